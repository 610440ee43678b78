import Foundation
import Keyring
import Testing

/// Whether tests that need a real Secret Service run here.
///
/// Under `scripts/test` (which sets `TOKENKEYRING_REQUIRE_SECRET_SERVICE=1` after starting a private
/// gnome-keyring) they always run, so a missing service fails them. Under a bare `swift test` they run
/// when a Secret Service answers and are skipped, with the reason shown, when none does.
public enum SecretServiceRequirement {
    public static var isRequired: Bool {
        ProcessInfo.processInfo.environment["TOKENKEYRING_REQUIRE_SECRET_SERVICE"] == "1"
    }

    public static func shouldRun() async -> Bool {
        if isRequired { return true }
        let probe = Keyring(configuration: .init(timeout: .seconds(3), prompting: .never))
        return await probe.diagnose().isUsable
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where a Secret Service is reachable — always under `scripts/test`.
    public static var needsSecretService: Self {
        .enabled("needs a Secret Service on the session bus: run scripts/test") {
            await SecretServiceRequirement.shouldRun()
        }
    }
}
