/// Checks the `id_token` a refresh returns against the identity stored before it: what ``AuthManager`` needs so
/// that a refresh can never silently change who is signed in.
///
/// TokenAuthSignIn's `IDTokenVerifier` is the implementation for real issuers; set it as
/// ``AuthManager/Configuration/identityCheck``. The core knows identity only through this protocol.
///
/// ## Implementation requirements
/// - ``prepareCheck()`` must do whatever needs the network *before* the refresh token is sent (fetch the issuer's
///   keys): a check that can run at once after the refresh spares the session a pending check. Throw
///   ``IdentityCheckFailure`` too: ``IdentityCheckFailure/Code/unavailable`` keeps the refresh token unsent and
///   backs off; anything else makes the refresh `misconfigured`.
/// - ``checkRefresh(_:keeping:)`` must throw unless the new `id_token` is valid and names the same issuer and subject
///   as `previous`. Throw ``IdentityCheckFailure``, so the manager can tell a check that cannot run just now (the
///   answer is kept and checked again later) from one that proves another account or cannot be trusted (the
///   session ends); any other error counts as ``IdentityCheckFailure/Code/untrusted``.
public protocol IdentityCheck: Sendable {
    /// Gets ready to check a refresh, before the refresh token is sent.
    func prepareCheck() async throws

    /// The identity after a refresh whose response is `response`: `previous` (perhaps with a new display name)
    /// when the response's `id_token` is valid and for the same account, or `previous` unchanged when it has none.
    func checkRefresh(_ response: TokenResponse, keeping previous: Identity) async throws -> Identity
}

/// Makes the ``IdentityCheck`` for a stored client (its issuer and key set recorded), with the transport and wall
/// clock to use, or `nil` when the client records too little to check anything: how a store that rebuilds a manager
/// from a stored item (TokenAuthKeyring's `AuthManager.forKeyringItem`) gets one without depending on a JOSE library.
/// TokenAuthSignIn's `IDTokenVerifier.forStoredClient` is one.
public typealias IdentityCheckFactory = @Sendable (OAuthClient, any HTTPTransport, @escaping WallClock) -> (any IdentityCheck)?

/// Why an ``IdentityCheck`` did not accept a refresh's `id_token`.
public struct IdentityCheckFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case unavailable, otherAccount, untrusted }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The check cannot run just now (the issuer's keys cannot be fetched, or may not be fetched again yet):
        /// trying again later may succeed.
        public static let unavailable = Code(.unavailable)
        /// The `id_token` is valid and names another account (`iss` or `sub` changed, OpenID Connect Core §12.2).
        public static let otherAccount = Code(.otherAccount)
        /// The `id_token` cannot be trusted: malformed, signed with a key or algorithm not accepted, or for another
        /// client, time or nonce.
        public static let untrusted = Code(.untrusted)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in one sentence; never a token.
    public let reason: String
    /// What to do about it.
    public let fix: String
    /// The check's own error, such as TokenAuthSignIn's `IDTokenError`.
    public let underlying: (any Error & Sendable)?

    /// Creates a failure.
    public init(_ code: Code, reason: String, fix: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.reason = reason
        self.fix = fix
        self.underlying = underlying
    }

    /// Whether a later check may succeed.
    public var isTransient: Bool { code == .unavailable }

    /// What happened, then ``fix``.
    public var description: String { "\(reason) \(fix)" }

    /// Two failures are equal when their code and reason are: the underlying errors are not compared.
    public static func == (lhs: IdentityCheckFailure, rhs: IdentityCheckFailure) -> Bool {
        lhs.code == rhs.code && lhs.reason == rhs.reason
    }

    /// `error` as a failure: itself when it is one, else ``Code/untrusted``.
    static func from(_ error: any Error) -> IdentityCheckFailure {
        if let failure = error as? IdentityCheckFailure { return failure }
        return IdentityCheckFailure(
            .untrusted, reason: "The identity check failed (\(type(of: error))).", fix: "Sign in again.",
            underlying: error)
    }
}
