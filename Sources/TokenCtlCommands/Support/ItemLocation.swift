import Keyring
import TokenAuth
import TokenAuthDPoP
import TokenAuthTPM
import TokenAuthFileStore
import TokenAuthKeyring
import TokenAuthSignIn
import TokenAuthURLSession
import TokenCtlBase

/// Where an item lives: in the keyring, or in the file store that `--insecure-storage` writes to.
///
/// Readers look in the keyring first, then in the file store — also when no Secret Service is reachable
/// (``StoreLookup``). They never write to the file store on their own: only `login` and `import` with
/// `--insecure-storage` do.
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
    /// Where the item is looked for: the keyring, then the file store (``StoreLookup``).
    func lookup(keyring: Keyring) -> StoreLookup {
        StoreLookup(service: service, account: account, keyring: keyring)
    }

    /// The item's file in the file store.
    var fileStore: FileAuthStore { FileAuthStore(service: service, account: account) }

    /// The stored credentials and where they live, or `nil` when neither the keyring nor the file store has them.
    func locateCredentials(keyring: Keyring) async throws -> (StoredCredentials, ItemLocation)? {
        try await lookup(keyring: keyring).first(
            inKeyring: { try await $0.loadCredentials().map { ($0, .keyring) } },
            inFile: { store in try await store.loadCredentials().map { ($0, .file(path: store.path)) } })
    }

    /// A manager for the item where it lives, for a process that lives for one call; when neither store has it,
    /// ``Failure/noCredentials(_:)``, as every command says it (or, without a Secret Service, the keyring's error).
    ///
    /// A refresh's answer that the store does not take is an error here (`notStored`, exit 4), never a token printed:
    /// the process ends, and its memory with it. The answer is kept for the next call, which stores it. Terminating
    /// signals wait while a refresh token is at stake (``SignalDeferral``), and so do sleep and shutdown, where logind
    /// runs (`SleepInhibitorGuard`, which `forFileItem` does not add by itself). Refreshed `id_token`s are checked
    /// against the issuer's keys (`IDTokenVerifier.forStoredClient`).
    func manager(
        keyring: Keyring, transport: any HTTPTransport = URLSessionHTTPTransport(maximumResponseBodySize: TokenResponse.maximumSize)
    ) async throws -> AuthManager {
        // One call, then the process ends: every refresh within the leeway is waited for, none left running.
        let leeway = AuthManager.Configuration().leeway
        let configuration = AuthManager.Configuration(
            leeway: leeway, minimumValidity: leeway, servesUnstoredTokens: false,
            windowGuards: [SignalDeferral(), SleepInhibitorGuard()], dpop: DPoP(keys: MachineProofKeys()))
        let identityChecks = IDTokenVerifier.forStoredClient
        let found = try await lookup(keyring: keyring).first(inKeyring: { _ in
            try await Self.unlessNothingStored {
                try await AuthManager.forKeyringItem(
                    service: service, account: account, keyring: keyring, transport: transport,
                    configuration: configuration, identityChecks: identityChecks, followsChanges: false)
            }
        }, inFile: { _ in
            try await Self.unlessNothingStored {
                try await AuthManager.forFileItem(
                    service: service, account: account, transport: transport, configuration: configuration,
                    identityChecks: identityChecks, followsChanges: false)
            }
        })
        guard let found else { throw Failure.noCredentials(self) }
        return found
    }

    /// What `make` makes; `nil` when it says nothing is stored (`noCredentials`), for the lookup to look further.
    private static func unlessNothingStored(_ make: () async throws -> AuthManager) async throws -> AuthManager? {
        do {
            return try await make()
        } catch let error as TokenAuthError where error.code == .noCredentials {
            return nil
        }
    }
}
