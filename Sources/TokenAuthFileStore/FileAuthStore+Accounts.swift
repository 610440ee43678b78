#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenAuth

extension FileAuthStore {
    /// Every account of `service` that has a file in `directory`, sorted. Reads only the directory's names.
    ///
    /// ```swift
    /// for account in try FileAuthStore.accounts(of: "api.example.com") {
    ///     print(account)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - service: The service whose accounts to list.
    ///   - directory: The store's directory; by default ``defaultDirectory()``.
    /// - Throws: `TokenAuthError` with code `storageFailed` when the directory cannot be used or is open to other
    ///   users; none when it does not exist (then there are no accounts).
    public static func accounts(of service: String, directory: URL? = nil) throws -> [String] {
        let folder = StoreDirectory(path: (directory ?? defaultDirectory()).path)
        return try (folder.withDirectory(creating: false) { try $0.names() } ?? [])
            .compactMap { FileStoreNames.item(fromFileName: $0) }
            .filter { $0.service == service }
            .map(\.account)
            .sorted()
    }

    /// Every account of `service` that has a file, and the state of its session at `now`, read without refreshing or
    /// writing anything: the same states as `KeyringAuthStore.accountStates(of:keyring:at:leeway:)` (never
    /// `.locked`). A file that cannot be read, or that is refused because other users can open it, is
    /// `.unreadable` with the reason.
    ///
    /// ```swift
    /// for account in try FileAuthStore.accountStates(of: "api.example.com", at: Date.now) {
    ///     print(account.account, account.state)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - service: The service whose accounts to read.
    ///   - directory: The store's directory; by default ``defaultDirectory()``.
    ///   - now: The wall clock's time.
    ///   - leeway: As `AuthManager`'s: a token valid for less is `.needsRefresh`.
    /// - Throws: as ``accounts(of:directory:)``.
    public static func accountStates(
        of service: String, directory: URL? = nil, at now: Date, leeway: Duration = AuthManager.Configuration().leeway
    ) throws -> [StoredAccountState] {
        var states: [StoredAccountState] = []
        for account in try accounts(of: service, directory: directory) {
            let store = FileAuthStore(service: service, account: account, directory: directory)
            do {
                // Removed between the listing and the read: no longer an account.
                guard let credentials = try store.loadCredentialsNow() else { continue }
                states.append(.init(account: account, credentials: credentials, at: now, leeway: leeway))
            } catch let error as TokenAuthError where error.isUnreadableEntry || error.code == .storageFailed {
                states.append(.init(account: account, unreadable: error.reason))
            }
        }
        return states
    }

    /// The stored access token when it can be handed out as it is stored — as
    /// `KeyringAuthStore.freshTokenBlocking(at:leeway:)` decides — read on the calling thread; `nil` when anything
    /// else is needed (nothing stored, a refresh, a check, a file that cannot be read): then ask
    /// `AuthManager.forFileItem(service:account:…)`, which decides the same way and does what is needed.
    ///
    /// ```swift
    /// let store = FileAuthStore(service: "api.example.com", account: "ada")
    /// if let token = try store.freshTokenBlocking(at: Date.now) {
    ///     print(token)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - now: The wall clock's time.
    ///   - leeway: How long the token must stay valid; the default is `AuthManager`'s.
    /// - Throws: `TokenAuthError` with code `storageFailed` when the directory or file cannot be used.
    public func freshTokenBlocking(at now: Date, leeway: Duration = AuthManager.Configuration().leeway) throws -> String? {
        guard case .fresh(let token) = try freshTokenLookupBlocking(at: now, leeway: leeway) else { return nil }
        return token
    }

    /// ``freshTokenBlocking(at:leeway:)``, telling a missing file apart from one that needs the manager (a file
    /// this version cannot read included).
    package func freshTokenLookupBlocking(
        at now: Date, leeway: Duration = AuthManager.Configuration().leeway
    ) throws -> BlockingTokenLookup {
        do {
            return BlockingTokenLookup(try loadCredentialsNow(), at: now, leeway: leeway)
        } catch let error as TokenAuthError where error.isUnreadableEntry {
            return .needsManager
        }
    }
}
