import Foundation
@testable import TokenAuth

/// Sessions in each state of ``SessionState``, and the tokens they hold, at a fixed `now`: the tests of the state
/// machine run an event in each and check the action it returns and the state it leaves.
enum Sessions {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    /// What the store holds when the session is read: valid for an hour.
    static let old = Auth(accessToken: "a0", refreshToken: "r0", expiresAt: now + 3600)
    /// A refresh's answer, or a sign-in's tokens.
    static let new = Auth(accessToken: "a1", refreshToken: "r1", expiresAt: now + 3600)
    /// What another process stored.
    static let elsewhere = Auth(accessToken: "a2", refreshToken: "r2", expiresAt: now + 3600)
    /// An entry another process ended.
    static let ended = Auth(accessToken: "a0", expiresAt: now + 3600, endReason: "a refresh answered for another account")

    /// `auth` as another process marked it while refreshing (``Auth/refreshStartedAt``).
    static func marked(_ auth: Auth) -> Auth {
        var marked = auth
        marked.refreshStartedAt = now
        return marked
    }

    /// `auth` as a store that keeps whole seconds gives it back: the same version, another expiry.
    static func reread(_ auth: Auth) -> Auth {
        var reread = auth
        reread.expiresAt = auth.expiresAt.map { $0 + 0.5 }
        return reread
    }

    /// Nothing read yet.
    static func unloaded(usesClientCredentials: Bool = false) -> SessionState {
        SessionState(usesClientCredentials: usesClientCredentials)
    }

    /// Signed in, with `auth` read from the store.
    static func signedIn(
        _ auth: Auth = old, usesClientCredentials: Bool = false, checksIdentity: Bool = false,
        rejectionPolicy: AuthManager.RejectionPolicy = .keepStoredCredentials
    ) -> SessionState {
        var session = SessionState(
            usesClientCredentials: usesClientCredentials, checksIdentity: checksIdentity,
            rejectionPolicy: rejectionPolicy)
        session.loaded(auth)
        return session
    }

    /// Signed out because the store held nothing.
    static func noCredentials(usesClientCredentials: Bool = false) -> SessionState {
        var session = SessionState(usesClientCredentials: usesClientCredentials)
        session.loaded(nil)
        return session
    }

    /// Signed out because the store held an ended entry.
    static func endedElsewhere(usesClientCredentials: Bool = false) -> SessionState {
        var session = SessionState(usesClientCredentials: usesClientCredentials)
        session.loaded(ended)
        return session
    }

    /// Signed out here, the entry erased.
    static func signedOut(usesClientCredentials: Bool = false) -> SessionState {
        var session = signedIn(usesClientCredentials: usesClientCredentials)
        session.signOut()
        session.erased()
        return session
    }

    /// Every loaded state, named for the failure messages.
    static var loaded: [(name: String, session: SessionState)] {
        [
            ("signed in", signedIn()), ("no credentials", noCredentials()), ("ended elsewhere", endedElsewhere()),
            ("signed out", signedOut()),
        ]
    }
}
