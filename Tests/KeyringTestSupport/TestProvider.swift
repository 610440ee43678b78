import Foundation
import Keyring
import Testing
import TestSupport

/// The Secret Service provider the tests run against, and its own ways to lock and unlock.
///
/// `scripts/test` starts each provider on a private bus with `start_private_provider` and names it in
/// `TOKENKEYRING_PROVIDER`; without that variable (a bare `swift test`) the provider is taken to be gnome-keyring.
/// Locking and unlocking go through `scripts/lib/provider-admin.py`: the Secret Service `Lock`, KeePassXC's
/// `lockAllDatabases`/`openDatabase`, kwalletd5's `pamOpen`, gnome-keyring's master-password unlock.
public enum TestProvider: String, Sendable, CaseIterable {
    case gnomeKeyring = "gnome-keyring"
    case keepassxc
    case kwallet

    /// The provider named by `TOKENKEYRING_PROVIDER`; gnome-keyring when it is unset. An unknown name stops the
    /// run: a typo must not quietly test another provider.
    public static var current: TestProvider {
        guard let name = ProcessInfo.processInfo.environment["TOKENKEYRING_PROVIDER"], !name.isEmpty else {
            return .gnomeKeyring
        }
        guard let provider = TestProvider(rawValue: name) else {
            preconditionFailure("TOKENKEYRING_PROVIDER=\(name) is not one of gnome-keyring, keepassxc, kwallet")
        }
        return provider
    }

    /// The throwaway password `start_private_provider` gives every provider (it protects test data only).
    public static let password = "tokenkeyring-test"

    /// The command name (`/proc/PID/comm`) of this provider's process.
    public var command: String {
        switch self {
        case .gnomeKeyring: "gnome-keyring-d"
        case .keepassxc: "keepassxc"
        case .kwallet: "kwalletd5"
        }
    }

    /// The name ``KeyringProvider`` gives it.
    public var displayName: String {
        switch self {
        case .gnomeKeyring: "gnome-keyring"
        case .keepassxc: "KeePassXC"
        case .kwallet: "KWallet"
        }
    }

    /// Whether `scripts/test` started KeePassXC with `UnlockBeforeSearch=true` for this run.
    public static var keePassXCUnlocksBeforeSearch: Bool {
        ProcessInfo.processInfo.environment["TOKENKEYRING_KEEPASSXC_UNLOCK_BEFORE_SEARCH"] == "true"
    }

    /// Locks the default collection the provider's own way and waits until it reports `Locked=true`.
    public func lockDefaultCollection() async throws {
        try await admin(["lock"])
    }

    /// Unlocks the default collection the provider's own way, with ``password``, and waits until it reports
    /// `Locked=false`.
    public func unlockDefaultCollection() async throws {
        try await admin(["unlock"], stdin: Self.password)
    }

    /// KWallet only: opens the wallet the way pam_kwallet does at login (`pamOpen`), without the Secret Service
    /// `Unlock` that ``unlockDefaultCollection()`` adds, so the collection still reports `Locked=true`.
    public func pamOpenKWallet() async throws {
        try await admin(["pam-open"], stdin: Self.password)
    }

    /// Creates an item with exactly `service` and `account` in the default collection with a raw `CreateItem`
    /// that replaces nothing: a duplicate, as another client might leave one. Returns its path.
    @discardableResult
    public func createDuplicate(service: String, account: String, label: String, secret: String) async throws -> String {
        try await admin(["duplicate", service, account, label], stdin: secret)
    }

    /// The command name of the process that owns `org.freedesktop.secrets` now.
    public static func owner() async throws -> String {
        try await current.admin(["owner"])
    }

    @discardableResult
    private func admin(_ arguments: [String], stdin: String? = nil) async throws -> String {
        let script = TestKeyring.scriptsDirectory.appendingPathComponent("lib/provider-admin.py").path
        let result = try await runCommand("/usr/bin/python3", [script, rawValue] + arguments, stdin: stdin, timeout: .seconds(90))
        guard result.status == 0 else {
            throw TestKeyring.AdminError(message: "provider-admin.py \(rawValue) \(arguments.first ?? "") failed: \(result.stderr)")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Runs `body` with the default collection locked, and unlocks it afterwards — also when `body` throws, so that a
/// failing test does not leave the rest of the run locked out.
public func withDefaultCollectionLocked<T>(_ body: () async throws -> T) async throws -> T {
    let provider = TestProvider.current
    try await provider.lockDefaultCollection()
    let result: Result<T, any Error>
    do { result = .success(try await body()) } catch { result = .failure(error) }
    try await provider.unlockDefaultCollection()
    return try result.get()
}
