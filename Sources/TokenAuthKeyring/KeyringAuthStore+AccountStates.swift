#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth

extension KeyringAuthStore {
    /// One stored account and the state of its session, as ``accountStates(of:keyring:at:leeway:)`` reads it.
    public struct AccountState: Sendable, Equatable {
        /// What a use of the account would meet now, without refreshing anything.
        public enum State: Sendable, Equatable {
            /// The access token is valid for longer than the leeway, until `until` (`nil`: no known expiry).
            case valid(until: Date?)
            /// The access token expires within the leeway or has expired; the next use refreshes it.
            case needsRefresh
            /// The next use needs a sign-in: the session ended (`reason` says why), or the token expired with no way
            /// to refresh it.
            case signInRequired(reason: String)
            /// The item is in a locked collection: unlocking the keyring shows more.
            case locked
            /// The item cannot be read by this version (`reason` says why); nothing was changed.
            case unreadable(reason: String)
        }

        /// The item's `account` attribute.
        public let account: String
        /// Its state.
        public let state: State
        /// Whether the `id_token` of the last refresh still waits for its check.
        public let identityCheckPending: Bool
        /// When a refresh of the account started whose answer was not stored since (`Auth.refreshStartedAt`): its
        /// refresh token may have been spent. The next use looks for the answer where it was kept.
        public var refreshStartedAt: Date? = nil
    }

    /// Every stored account of `service` and the state of its session at `now`, read without refreshing, writing or
    /// unlocking anything: items of a locked collection are `.locked` unread.
    ///
    /// ```swift
    /// for account in try await KeyringAuthStore.accountStates(of: "api.example.com", at: Date.now) {
    ///     print(account.account, account.state)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - service: The items' `service` attribute.
    ///   - keyring: The keyring to read.
    ///   - now: The wall clock's time.
    ///   - leeway: As `AuthManager`'s: a token valid for less is `.needsRefresh`.
    /// - Throws: `KeyringError` (no Secret Service, timed out).
    public static func accountStates(
        of service: String, keyring: Keyring = Keyring(), at now: Date,
        leeway: Duration = AuthManager.Configuration().leeway
    ) async throws -> [AccountState] {
        var states: [AccountState] = []
        for item in try await accounts(of: service, keyring: keyring) {
            let account = item.attributes["account"] ?? ""
            guard !item.isLocked else {
                states.append(AccountState(account: account, state: .locked, identityCheckPending: false))
                continue
            }
            let store = KeyringAuthStore(service: service, account: account, keyring: keyring)
            let credentials: StoredCredentials?
            do {
                credentials = try await store.loadCredentials()
            } catch let error as TokenAuthError where error.isUnreadableEntry {
                states.append(AccountState(account: account, unreadable: error.reason))
                continue
            } catch let error as KeyringError where error.code == .locked {
                states.append(AccountState(account: account, state: .locked, identityCheckPending: false))
                continue
            }
            // Deleted between the listing and the read: no longer an account.
            guard let credentials else { continue }
            states.append(AccountState(account: account, credentials: credentials, at: now, leeway: leeway))
        }
        return states
    }
}

extension KeyringAuthStore.AccountState {
    /// The state of `credentials` of `account` at `now`, as `AuthManager` would meet them.
    init(account: String, credentials: StoredCredentials, at now: Date, leeway: Duration) {
        self.init(
            account: account, state: Self.state(of: credentials, at: now, leeway: leeway),
            identityCheckPending: credentials.auth.unverifiedIDToken != nil,
            refreshStartedAt: credentials.auth.refreshStartedAt)
    }

    /// An entry of `account` that cannot be read, for `reason`.
    init(account: String, unreadable reason: String) {
        self.init(account: account, state: .unreadable(reason: reason), identityCheckPending: false)
    }

    /// The state of `credentials` at `now`, as `AuthManager` would meet them.
    private static func state(of credentials: StoredCredentials, at now: Date, leeway: Duration) -> State {
        let auth = credentials.auth
        if let reason = auth.endReason { return .signInRequired(reason: reason) }
        if auth.isFresh(at: now, leeway: leeway) { return .valid(until: auth.expiresAt) }
        let refreshable = auth.refreshToken != nil
            || (credentials.client?.usesClientCredentials == true && credentials.client?.clientSecret != nil)
        guard refreshable, credentials.client != nil else {
            return .signInRequired(reason: "the access token expires and there is nothing to refresh it with")
        }
        return .needsRefresh
    }
}
