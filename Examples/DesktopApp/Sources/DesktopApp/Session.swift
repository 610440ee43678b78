import Foundation
import HTTPTypes
import Keyring
import TokenAuth
import TokenAuthGLib
import TokenAuthKeyring
import TokenAuthSignIn
import TokenAuthURLSession

/// Everything the app asks of TokenKeyring, in one place: sign-in, the stored item, the manager that keeps it
/// valid, the API client, sign-out and the item's change notifications. Only this file imports the library's
/// sign-in and keyring modules, so it is the one to replace by the library's own session object when there is one.
///
/// Every method runs off GTK's thread (an actor of its own); the app's hooks — showing a URL or a code — are
/// isolated to `GLibMainActor` and run on GTK's thread.
actor Session {
    /// What the app was started with.
    struct Settings: Sendable {
        var issuer: URL
        var clientID: String
        var service: String
        var account: String
        var scope = "openid profile read"

        /// The protected resource "Call API" asks: the test server's `/resource`, beside its issuer.
        var apiURL: URL { issuer.appending(path: "resource") }
    }

    /// The signed-in account as the item records it.
    struct SignedIn: Sendable, Equatable {
        /// Who signed in, from the `id_token` the sign-in checked.
        var name: String
        /// When the manager will refresh the access token: its expiry less the manager's leeway.
        var refreshDue: Date?
    }

    let settings: Settings
    private let transport = URLSessionTransport()
    private var manager: AuthManager?

    init(_ settings: Settings) {
        self.settings = settings
    }

    private nonisolated var store: KeyringAuthStore {
        KeyringAuthStore(service: settings.service, account: settings.account)
    }

    /// The item as it is now: who is signed in, or `nil` when nothing (or an ended session) is stored. Makes the
    /// manager for a stored item, and drops it when the item is gone.
    func reload() async throws -> SignedIn? {
        guard let credentials = try await store.loadCredentials(), credentials.auth.isLive else {
            manager = nil
            return nil
        }
        if manager == nil {
            manager = try await AuthManager.forKeyringItem(
                service: settings.service, account: settings.account, transport: transport,
                identityChecks: IDTokenVerifier.forStoredClient)
        }
        return signedIn(credentials.auth)
    }

    /// Signs in through the system browser (`BROWSER`, `xdg-open`, or the OpenURI portal in a Flatpak sandbox), or,
    /// where no browser can be started, with a code the user enters on any device; stores the tokens in the item.
    ///
    /// - Parameters:
    ///   - showURL: Shows the sign-in page's URL while the browser is open.
    ///   - showCode: Shows the device flow's code and where to enter it.
    func signIn(
        showURL: @escaping @GLibMainActor @Sendable (URL) -> Void,
        showCode: @escaping @GLibMainActor @Sendable (DeviceAuthorization.Prompt) -> Void
    ) async throws -> SignedIn {
        let metadata = try await Discovery(transport: transport).metadata(forIssuer: settings.issuer)
        let credentials: StoredCredentials
        do {
            let browser = try BrowserSignIn(metadata: metadata, clientID: settings.clientID, transport: transport)
            credentials = try await browser.signIn(scope: settings.scope) { url in
                await showURL(url)
                try await SystemBrowser(portal: { url in try await DesktopPortal.openURI(url) }).open(url)
            }
        } catch let error as SignInError where [.noGraphicalSession, .browserNotStarted].contains(error.code) {
            let device = try DeviceAuthorization(metadata: metadata, clientID: settings.clientID, transport: transport)
            credentials = try await device.signIn(scope: settings.scope) { prompt in await showCode(prompt) }
        }
        try await store.signIn(credentials)
        manager = try await AuthManager.forKeyringItem(
            service: settings.service, account: settings.account, transport: transport,
            identityChecks: IDTokenVerifier.forStoredClient)
        return signedIn(credentials.auth)
    }

    /// The client for authorized requests, or `nil` when nobody is signed in.
    func apiClient() -> AuthorizedClient? {
        manager.map { AuthorizedClient(manager: $0, transport: transport) }
    }

    /// Makes sure the access token is valid beyond the manager's leeway — refreshing it when it is due — and says
    /// when the next refresh is due.
    func refreshIfDue() async throws -> SignedIn? {
        guard let manager else { return nil }
        return signedIn(try await manager.validAuth())
    }

    /// Revokes the tokens at the server, then deletes the item (`SignOut`), then forgets them in memory.
    func signOut() async throws -> SignOut.Revocation {
        let outcome = try await SignOut.perform(
            service: settings.service, account: settings.account, transport: transport)
        try await manager?.signOut()
        manager = nil
        return outcome.revocation
    }

    /// Each announcement that the item may have changed in another process (or this one): the Secret Service's
    /// signals (`Keyring.changes()`, which a Flatpak sandbox has not) and the releases of the item's lock, which every
    /// writer takes (`FileRefreshLock.releases()`). No polling: a D-Bus signal or an inotify event wakes it.
    nonisolated func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let releases = store.itemLock().releases()
        let relay = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    guard let changes = try? await Keyring().changes() else { return }
                    for await _ in changes { continuation.yield() }
                }
                group.addTask { for await _ in releases { continuation.yield() } }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in relay.cancel() }
        return stream
    }

    private func signedIn(_ auth: Auth) -> SignedIn {
        let leeway = manager?.configuration.leeway ?? .seconds(60)
        return SignedIn(
            name: auth.identity?.description ?? settings.account,
            refreshDue: auth.expiresAt.map { $0.addingTimeInterval(-TimeInterval(leeway.components.seconds)) })
    }
}

extension Session {
    /// Whether `error` means that nobody is signed in any more (the item is gone, or its session ended).
    nonisolated static func needsSignIn(_ error: any Error) -> Bool {
        (error as? TokenAuthError)?.isLoginRequired == true
    }
}
