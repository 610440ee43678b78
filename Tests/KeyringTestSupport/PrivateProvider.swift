import ChildProcesses
import Foundation
import Testing

/// A Secret Service provider on a private bus of its own (`scripts/lib/private-provider`).
public enum PrivateProvider {
    /// Runs `body` with `provider` started on a private bus (with `environment` for `start_private_provider`, e.g.
    /// `TOKENKEYRING_KWALLET_WITHOUT_CRYPTO_PLUGIN=1`), and stops both afterwards, also when `body` throws.
    package static func with<T>(
        _ provider: TestProvider, environment: [String: String] = [:], _ body: (PrivateBusProcess) async throws -> T
    ) async throws -> T {
        // The script fails on its own after its waits (30 s each); 120 s ends it if it hangs anyway.
        try await PrivateBusProcess.with(
            TestKeyring.scriptsDirectory.appendingPathComponent("lib/private-provider"), [provider.rawValue],
            environment: environment, startLimit: .seconds(120), body)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only on a provider `scripts/test` started (`TOKENKEYRING_PROVIDER` is set): such tests lock the
    /// default collection or start providers of their own, which must never happen to a developer's own keyring.
    /// `scripts/test` always sets it, so there they always run, and fail when the provider is missing or another.
    public static var needsPrivateProvider: Self {
        .enabled("locks the keyring or starts providers: runs under scripts/test only") {
            ProcessInfo.processInfo.environment["TOKENKEYRING_PROVIDER"].map { !$0.isEmpty } ?? false
        }
    }
}
