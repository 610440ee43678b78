import Keyring
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring

/// Where both executables look for an item: the keyring, then the file store of `--insecure-storage` — the one place
/// that rule is written.
///
/// The keyring's answer wins; when it has no such item, or no keyring can be reached at all (no Secret Service, or in
/// a sandbox no Secret portal: ``KeyringError/meansNoKeyring``), the item's file is looked at; when the file has
/// nothing either, the answer is the keyring's — nothing, or the error that says no keyring can be reached. Any other
/// keyring error (locked with prompting disabled, timed out, misconfigured) is the answer at once: the file is never
/// a fallback for a keyring that could hold the item. Nothing here writes to the file store: only `login` and
/// `import` with `--insecure-storage` do.
package struct StoreLookup: Sendable {
    /// The item in the keyring, with the keyring as the options set it up.
    package let keyringStore: KeyringAuthStore

    package init(service: String, account: String, keyring: Keyring) {
        keyringStore = KeyringAuthStore(service: service, account: account, keyring: keyring)
    }

    /// The item's file in the file store.
    package var fileStore: FileAuthStore { FileAuthStore(service: keyringStore.service, account: keyringStore.account) }

    /// What `inKeyring` finds, else what `inFile` finds, by the rule of the type's overview.
    package func first<Found>(
        inKeyring: (KeyringAuthStore) async throws -> Found?, inFile: (FileAuthStore) async throws -> Found?
    ) async throws -> Found? {
        var unreachable: KeyringError?
        do {
            if let found = try await inKeyring(keyringStore) { return found }
        } catch let error as KeyringError where error.meansNoKeyring {
            unreachable = error
        }
        return try Self.settle(try await inFile(fileStore), unreachable: unreachable)
    }

    /// ``first(inKeyring:inFile:)`` on the calling thread, for `tokenctl`'s read before any task starts (a blocking
    /// twin, since a synchronous caller cannot await; the rule is the same, and ``settle(_:unreachable:)`` ends both).
    package func firstBlocking<Found>(
        inKeyring: (KeyringAuthStore) throws -> Found?, inFile: (FileAuthStore) throws -> Found?
    ) throws -> Found? {
        var unreachable: KeyringError?
        do {
            if let found = try inKeyring(keyringStore) { return found }
        } catch let error as KeyringError where error.meansNoKeyring {
            unreachable = error
        }
        return try Self.settle(try inFile(fileStore), unreachable: unreachable)
    }

    /// The accounts of `service` as `status`, `list` and `switch` read them: the keyring's (`inKeyring`), then those
    /// of the file store (`inFiles`) that the keyring does not have. Without a keyring, the file store's alone — or,
    /// when it has none either, the error that says no keyring can be reached.
    package static func accounts<Account>(
        inKeyring: () async throws -> [Account], inFiles: () throws -> [Account], name: (Account) -> String
    ) async throws -> (keyring: [Account], files: [Account]) {
        var unreachable: KeyringError?
        var fromKeyring: [Account] = []
        do {
            fromKeyring = try await inKeyring()
        } catch let error as KeyringError where error.meansNoKeyring {
            unreachable = error
        }
        let known = Set(fromKeyring.map(name))
        let fromFiles = try inFiles().filter { !known.contains(name($0)) }
        _ = try settle(fromFiles.isEmpty ? nil : fromFiles, unreachable: unreachable)
        return (fromKeyring, fromFiles)
    }

    /// The end of every lookup: what the file store found; when it found nothing, the keyring's answer — the error
    /// that says no keyring can be reached, or nothing.
    private static func settle<Found>(_ inFile: Found?, unreachable: KeyringError?) throws -> Found? {
        if let inFile { return inFile }
        if let unreachable { throw unreachable }
        return nil
    }
}
