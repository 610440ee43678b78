import Foundation
import TokenKeyring

/// What the app asks of TokenKeyring: one `AuthSession` — sign-in, the keyring item, the manager that keeps the
/// tokens valid, the API client, sign-out, and the states that follow other processes — and what the window shows
/// of it. The controller calls the session from GTK's thread (`GLibMainActor`): the sign-in's hooks, which show a
/// URL or a code, then run there too; the library's work runs elsewhere, and every `await` comes back.
struct Session: Sendable {
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

    /// The signed-in account as the window shows it.
    struct SignedIn: Sendable, Equatable {
        /// Who signed in, from the `id_token` the sign-in checked.
        var name: String
        /// When the access token enters the manager's leeway, and the background refresh is due.
        var refreshDue: Date?
    }

    let settings: Settings
    /// The app's session with its provider.
    let auth: AuthSession

    init(_ settings: Settings) {
        self.settings = settings
        auth = AuthSession(configuration: .init(
            provider: .issuer(settings.issuer), clientID: settings.clientID, scope: settings.scope,
            service: settings.service, account: settings.account))
    }

    // snippet.refreshDue
    /// Makes sure the access token is valid beyond the manager's leeway — refreshing it when it is due — and says
    /// when the next refresh is due.
    func signedIn(_ name: String) async throws -> SignedIn {
        let manager = try await auth.manager()
        let tokens = try await manager.validAuth()
        let leeway = tokens.refreshLeeway(atMost: manager.configuration.leeway)
        return SignedIn(name: name, refreshDue: tokens.expiresAt.map { $0.addingTimeInterval(-leeway.timeInterval) })
    }
    // snippet.end
}

extension Session {
    /// Whether `error` means that nobody is signed in any more (the item is gone, or its session ended).
    static func needsSignIn(_ error: any Error) -> Bool {
        (error as? TokenAuthError)?.isLoginRequired == true
    }
}

extension Duration {
    /// In seconds.
    var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }
}
