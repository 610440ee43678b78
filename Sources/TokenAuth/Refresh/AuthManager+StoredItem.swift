#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging

extension AuthManager {
    /// A manager for `store`, which holds `credentials` (just read), refreshing through the token endpoint and client
    /// they record under `lock` — what `forKeyringItem` (TokenAuthKeyring) and `forFileItem` (TokenAuthFileStore)
    /// share: the client credentials grant for a client recorded as signing in as itself, the identity check of an
    /// entry that records who signed in, revocation at the recorded endpoint, and the store's refresh journal. Its
    /// window guards are the configuration's: `forKeyringItem` adds the logind sleep inhibitor, which needs the
    /// keyring module's D-Bus; `forFileItem` takes those its caller passes.
    package static func managing(
        _ store: some CredentialsStore, credentials: StoredCredentials, lock: FileRefreshLock,
        transport: any HTTPTransport, configuration: Configuration, identityChecks: IdentityCheckFactory?,
        storeChanges: AsyncStream<Void>?, wallClock: @escaping WallClock, logger: Logger
    ) async -> AuthManager {
        var configuration = configuration
        // Only a client recorded as signing in as itself: a user's token is never replaced by the client's own.
        if credentials.auth.refreshToken == nil, credentials.auth.isLive, credentials.client?.usesClientCredentials == true,
            credentials.client?.clientSecret != nil
        {
            configuration.usesClientCredentials = true
            configuration.scope = configuration.scope ?? credentials.auth.scope
        }
        // An item that records who signed in, and where its issuer's keys are, has each refreshed id_token checked:
        // a refresh must not change the account (see `Configuration.identityCheck`).
        if configuration.identityCheck == nil, credentials.auth.identity != nil, let client = credentials.client {
            configuration.identityCheck = identityChecks?(client, transport, wallClock)
            if configuration.identityCheck == nil {
                logger.notice("the item records who signed in, but refreshed id_tokens are not checked: no identity check")
            }
        }
        let refresher: any TokenRefresher = credentials.client.map {
            TokenEndpointClient(client: $0, transport: transport, wallClock: wallClock, dpop: configuration.dpop)
        } ?? UnconfiguredRefresher(service: store.service, account: store.account)
        let manager = AuthManager(
            store: store, refresher: refresher, configuration: configuration, lock: lock,
            revoker: credentials.client.flatMap { TokenRevocationClient(client: $0, transport: transport) },
            journal: store.refreshJournal, storeChanges: storeChanges, wallClock: wallClock, logger: logger)
        await manager.prime(with: credentials.auth)
        return manager
    }
}

/// Stands in for the token endpoint of an item that records none: any refresh is a permanent failure.
struct UnconfiguredRefresher: TokenRefresher {
    let service: String
    let account: String

    func refresh(refreshToken: String, scope: String?) async throws -> TokenResponse { throw missing }
    func clientCredentials(scope: String?) async throws -> TokenResponse { throw missing }

    private var missing: TokenAuthError {
        .invalidClientConfiguration("the item for account \"\(account)\" on service \"\(service)\" records no token endpoint")
    }
}
