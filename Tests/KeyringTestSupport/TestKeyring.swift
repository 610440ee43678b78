import ChildProcesses
import Foundation
import Keyring
import TestSupport

/// Helpers for tests that use the real Secret Service.
public enum TestKeyring {
    /// A keyring client that never prompts (a prompt cannot be shown headless) with a test-sized timeout.
    public static let keyring = Keyring(configuration: .init(timeout: .seconds(10), prompting: .never))

    /// Like ``keyring``, for tests that queue many writes to one item: a queued write waits for the lock at most
    /// its timeout, and 100 writes in a row can take longer than 10 s on a busy machine.
    public static let patientKeyring = Keyring(configuration: .init(timeout: .seconds(120), prompting: .never))

    /// A service name no other test uses, so that tests running in parallel never see each other's items.
    public static func uniqueService(_ function: String = #function) -> String {
        "tokenkeyring-test.\(function.prefix(while: { $0 != "(" })).\(UUID().uuidString.prefix(8))"
    }

    /// The repository's `scripts` directory.
    public static var scriptsDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts")
    }

    /// `secret-tool` with arguments and optional standard input.
    ///
    /// On KWallet, run again (up to three times in all) when its session failed: kwalletd5 now and then rejects
    /// libsecret's session key ("Client public key size is invalid") or refuses a call with "Can't find session"
    /// (the call did nothing), and about one session in 100 decrypts nothing,
    /// which makes `secret-tool lookup` print nothing and exit 1 exactly as for an absent item. `Keyring` opens a
    /// new session itself; `secret-tool` does not. An absent item stays absent after the retries.
    package static func secretTool(_ arguments: [String], stdin: String? = nil) async throws -> ChildResult {
        var result = try await runCommand("/usr/bin/secret-tool", arguments, stdin: stdin)
        guard TestProvider.current == .kwallet else { return result }
        func sessionMayHaveFailed(_ result: ChildResult) -> Bool {
            result.stderr.contains("public key size is invalid") || result.stderr.contains("Can't find session")
                || (arguments.first == "lookup" && result.status != 0 && result.stdout.isEmpty && result.stderr.isEmpty)
        }
        for _ in 1..<3 where sessionMayHaveFailed(result) {
            result = try await runCommand("/usr/bin/secret-tool", arguments, stdin: stdin)
        }
        return result
    }

    /// A collection of a test's own.
    public struct TestCollection: Sendable {
        public let path: String
        public var keyringCollection: KeyringCollection { .path(path) }
    }

    /// Creates a new password-protected collection in the running gnome-keyring (no prompt needed). Lock it with ``Keyring/lock(_:)`` or ``lockWithGDBus(_:)``, unlock
    /// it with ``unlockCollection(_:password:)``.
    public static func createCollection(label: String, password: String = "collection-password") async throws -> TestCollection {
        let result = try await runCommand(
            "/usr/bin/python3", [scriptsDirectory.appendingPathComponent("lib/gnome-keyring-admin.py").path, "create", label],
            stdin: password)
        guard result.status == 0 else { throw AdminError(message: "create collection failed: \(result.stderr)") }
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return TestCollection(path: path)
    }

    /// Runs `body` with a new password-protected collection (``createCollection(label:password:)``), then deletes the
    /// collection with its items, locked or not, and waits for that — also when `body` throws.
    public static func withCollection<T>(
        label: String, password: String = "collection-password", _ body: (TestCollection) async throws -> T
    ) async throws -> T {
        let collection = try await createCollection(label: label, password: password)
        return try await cleaningUp({ try? await deleteCollection(collection.path) }) { try await body(collection) }
    }

    /// Deletes a gnome-keyring collection and its items, locked or not, without a prompt.
    public static func deleteCollection(_ path: String) async throws {
        let result = try await runCommand(
            "/usr/bin/python3", [scriptsDirectory.appendingPathComponent("lib/gnome-keyring-admin.py").path, "delete", path])
        guard result.status == 0 else { throw AdminError(message: "delete collection failed: \(result.stderr)") }
    }

    /// Unlocks a gnome-keyring collection with its password, without a prompt.
    public static func unlockCollection(_ path: String, password: String = "collection-password") async throws {
        let result = try await runCommand(
            "/usr/bin/python3", [scriptsDirectory.appendingPathComponent("lib/gnome-keyring-admin.py").path, "unlock", path],
            stdin: password)
        guard result.status == 0 else { throw AdminError(message: "unlock failed: \(result.stderr)") }
    }

    /// Locks a collection through the Secret Service's `Lock` method, called with `gdbus` as a person would.
    public static func lockWithGDBus(_ path: String) async throws {
        let result = try await runCommand(
            "/usr/bin/gdbus",
            ["call", "--session", "--dest", "org.freedesktop.secrets", "--object-path", "/org/freedesktop/secrets",
             "--method", "org.freedesktop.Secret.Service.Lock", "['\(path)']"])
        guard result.status == 0 else { throw AdminError(message: "Lock failed: \(result.stderr)") }
    }

    public struct AdminError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
