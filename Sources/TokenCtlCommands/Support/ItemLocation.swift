import Keyring
import TokenCtlFastPath
import TokenAuth
import TokenAuthURLSession
import TokenAuthKeyring

/// Where an item lives: in the keyring, or in the file store that `--insecure-storage` writes to.
///
/// Readers look in the keyring first, then in the file store — also when no Secret Service is reachable
/// (``ItemOptions/keyringFirst(_:orFile:)``). They never write to the file store on their own: only `login` and
/// `import` with `--insecure-storage` do.
package enum ItemLocation: Sendable, Equatable {
    case keyring
    case file(path: String)

    /// `keyring` or `file`, for JSON.
    var storage: String {
        switch self {
        case .keyring: "keyring"
        case .file: "file"
        }
    }

    /// The file's path; `nil` for the keyring.
    var path: String? {
        guard case .file(let path) = self else { return nil }
        return path
    }

    /// How messages name it: "the keyring", or "the file PATH".
    package var named: String {
        switch self {
        case .keyring: "the keyring"
        case .file(let path): "the file \(path)"
        }
    }
}

/// A row of JSON output with where its item lives: the row's own members, then `storage` (`keyring` or `file`) and,
/// for a file, `path`.
struct Located<Row: Encodable>: Encodable {
    let row: Row
    let location: ItemLocation

    private enum Keys: String, CodingKey { case storage, path }

    func encode(to encoder: any Encoder) throws {
        try row.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(location.storage, forKey: .storage)
        try container.encodeIfPresent(location.path, forKey: .path)
    }
}

extension ItemOptions {
    /// The item's file in the file store.
    var fileStore: FileAuthStore { FileAuthStore(service: service, account: account) }

    /// What `inKeyring` finds; when it finds nothing, or no Secret Service is reachable, what `inFile` finds in the
    /// item's file; when that finds nothing either, the keyring's answer: `nil`, or its error.
    func keyringFirst<T>(
        _ inKeyring: () async throws -> T?, orFile inFile: (FileAuthStore) async throws -> T?
    ) async throws -> T? {
        var unreachable: KeyringError?
        do {
            if let found = try await inKeyring() { return found }
        } catch let error as KeyringError where error.meansNoKeyring {
            unreachable = error
        }
        if let found = try await inFile(fileStore) { return found }
        if let unreachable { throw unreachable }
        return nil
    }

    /// The stored credentials and where they live, or `nil` when neither the keyring nor the file store has them.
    func locateCredentials(keyring: Keyring) async throws -> (StoredCredentials, ItemLocation)? {
        try await keyringFirst({
            try await KeyringAuthStore(service: service, account: account, keyring: keyring).loadCredentials()
                .map { ($0, .keyring) }
        }, orFile: { store in
            try await store.loadCredentials().map { ($0, .file(path: store.path)) }
        })
    }

    /// A manager for the item where it lives, for a process that lives for one call; when neither store has it,
    /// ``Failure/noCredentials(_:)``, as every command says it (or, without a Secret Service, the keyring's error).
    ///
    /// A refresh's answer that the store does not take is an error here (`notStored`, exit 4), never a token printed:
    /// the process ends, and its memory with it. The answer is kept for the next call, which stores it. Terminating
    /// signals wait while a refresh token is at stake (``SignalDeferral``).
    func manager(
        keyring: Keyring, transport: any HTTPTransport = URLSessionTransport(maximumResponseBodySize: TokenResponse.maximumSize)
    ) async throws -> AuthManager {
        let configuration = AuthManager.Configuration(servesUnstoredTokens: false, windowGuards: [SignalDeferral()])
        let found = try await keyringFirst({
            do {
                return try await AuthManager.forKeyringItem(
                    service: service, account: account, keyring: keyring, transport: transport,
                    configuration: configuration, identityChecks: TokenCtl.signIn.identityChecks, followsChanges: false)
            } catch let error as TokenAuthError where error.code == .noCredentials {
                return nil
            }
        }, orFile: { _ in
            do {
                return try await AuthManager.forFileItem(
                    service: service, account: account, transport: transport, configuration: configuration,
                    identityChecks: TokenCtl.signIn.identityChecks, followsChanges: false)
            } catch let error as TokenAuthError where error.code == .noCredentials {
                return nil
            }
        })
        guard let found else { throw Failure.noCredentials(self) }
        return found
    }
}

/// The accounts of a service as `status`, `list` and `switch` read them: the keyring's (`inKeyring`), then those of
/// the file store (`inFiles`) that the keyring does not have. Without a Secret Service, the file store's alone — or,
/// when it has none either, the keyring's error.
func accountsInBothStores<T>(
    _ inKeyring: () async throws -> [T], files inFiles: () throws -> [T], account: (T) -> String
) async throws -> (keyring: [T], files: [T]) {
    var unreachable: KeyringError?
    var fromKeyring: [T] = []
    do {
        fromKeyring = try await inKeyring()
    } catch let error as KeyringError where error.meansNoKeyring {
        unreachable = error
    }
    let known = Set(fromKeyring.map(account))
    let fromFiles = try inFiles().filter { !known.contains(account($0)) }
    if let unreachable, fromFiles.isEmpty { throw unreachable }
    return (fromKeyring, fromFiles)
}
