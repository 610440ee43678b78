/// A process other than the caller's that runs an item's whole refresh — from the write ahead of the grant, through
/// the grant at the server, to storing its answer — so that the death of the process that needed the refresh (killed,
/// terminated, crashed while the grant is at the server) cannot lose the answer: the only copy of the session.
///
/// Set it as ``AuthManager/Configuration/refreshHost`` and the manager hands every refresh to it instead of sending
/// the grant itself, then reads the store again and hands out what the other process stored. TokenKeyring's
/// `AuthSession.bootstrap()` provides one: a process started from the app's own executable.
///
/// ## Implementation requirements
/// - The other process takes the item's lock itself and holds it until the answer is stored or kept
///   (``RefreshJournal``): the caller holds no lock while it waits, or the two would wait for each other.
/// - Its life must not depend on the caller's: a process of its own, in a session of its own, so that a signal to the
///   caller (or to the caller's process group, as a terminal's ^C) does not reach it.
/// - ``refresh(_:)`` returns once the other process has ended; it throws what that process reported, or an error
///   that says it could not be run. Either way the manager then reads the store, which says what happened.
public protocol RefreshHost: Sendable {
    /// Runs the refresh `request` asks for in the other process and waits for it to end.
    func refresh(_ request: RefreshRequest) async throws
}

/// What a refresh run by a ``RefreshHost`` is for, as the manager was asked.
public enum RefreshRequest: Sendable, Equatable {
    /// The token is about to expire (``AuthManager/validAuth()``): tokens that are fresh will do.
    case needed
    /// The caller asked for new tokens (``AuthManager/refresh()``): only a grant will do.
    case forced
    /// A server rejected this access token (``AuthManager/refresh(rejecting:)``): any other valid token will do.
    case rejected(accessToken: String)
}

extension RefreshRequest: CustomStringConvertible {
    /// The request without the rejected token.
    public var description: String {
        switch self {
        case .needed: "needed"
        case .forced: "forced"
        case .rejected: "rejected(<redacted>)"
        }
    }
}

extension RefreshReason {
    /// The request a ``RefreshHost`` is given for this reason.
    var request: RefreshRequest {
        switch self {
        case .needed: .needed
        case .forced: .forced
        case .rejected(let accessToken): .rejected(accessToken: accessToken)
        }
    }
}
