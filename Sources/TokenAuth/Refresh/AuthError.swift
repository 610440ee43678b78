/// Why ``AuthManager`` could not hand out a valid token.
///
/// Errors of the token store itself (a locked keyring, say) are thrown as they are, not wrapped:
/// they are about the keyring, not about the sign-in.
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable { case loginRequired, transient, excessiveRefresh, misconfigured }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The user must sign in: nothing is stored, the server rejected the grant, or they logged out.
        public static let loginRequired = Code(.loginRequired)
        /// The token endpoint could not be used just now; the tokens were kept and a later call may succeed.
        public static let transient = Code(.transient)
        /// Refreshes came faster than ``AuthManager/Configuration/refreshLimit`` allows: a loop was stopped.
        public static let excessiveRefresh = Code(.excessiveRefresh)
        /// The token endpoint is configured so that no refresh can succeed (plain HTTP to a remote host, or it
        /// redirects): fix the configuration. The stored tokens are kept, whatever the rejection policy.
        public static let misconfigured = Code(.misconfigured)

        /// The code's name.
        public var description: String { base.rawValue }
    }

    /// The kind of failure.
    public let code: Code
    /// What happened, in one sentence. Never contains a token.
    public let reason: String
    /// The RFC 6749 error code of a permanent rejection, e.g. `invalid_grant`.
    public let oauthErrorCode: String?
    /// The server's `error_description` of a permanent rejection.
    public let oauthErrorDescription: String?
    /// How long to wait before the token endpoint is tried again, for transient failures.
    public let retryAfter: Duration?
    /// The token-endpoint failure behind this error, if any.
    public let underlying: TokenEndpointError?
    /// Why a refresh's `id_token` was not accepted (``AuthManager/Configuration/identityCheck``), if that is what
    /// failed; its ``IdentityCheckFailure/underlying`` is the check's own error.
    public let identityFailure: IdentityCheckFailure?

    init(
        _ code: Code, _ reason: String, oauthErrorCode: String? = nil, oauthErrorDescription: String? = nil,
        retryAfter: Duration? = nil, underlying: TokenEndpointError? = nil, identityFailure: IdentityCheckFailure? = nil
    ) {
        self.code = code
        self.reason = reason
        self.oauthErrorCode = oauthErrorCode
        self.oauthErrorDescription = oauthErrorDescription
        self.retryAfter = retryAfter
        self.underlying = underlying
        self.identityFailure = identityFailure
    }

    /// Whether the user has to sign in again.
    public var isLoginRequired: Bool { code == .loginRequired }

    /// What happened and what to do, for a person: the summary, then ``fix``.
    public var description: String {
        switch code {
        case .loginRequired:
            var text = "Sign-in required: \(reason)."
            if let oauthErrorCode { text += " The server answered \(oauthErrorCode)" + (oauthErrorDescription.map { " (\"\($0)\")" } ?? "") + "." }
            return text + " " + fix
        case .transient:
            return "The tokens could not be refreshed just now and were kept: \(reason). " + fix
        case .misconfigured:
            return "The tokens cannot be refreshed: \(reason). They were kept. " + fix
        default:
            return "Refreshing stopped: \(reason). " + fix
        }
    }

    /// What the user or the app can do about it.
    public var fix: String {
        switch code {
        case .loginRequired:
            return "Sign in again."
        case .transient:
            return retryAfter.map { "Try again in \(Self.seconds($0)) s." } ?? "Try again shortly."
        case .misconfigured:
            return underlying?.fix ?? identityFailure?.fix ?? "Fix the token endpoint's URL."
        default:
            return "Check that the server accepts the tokens it issues (a resource that rejects every new token "
                + "causes this), then try again."
        }
    }

    private static func seconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds + (attoseconds > 0 ? 1 : 0)
    }

    package static func loginRequired(_ reason: String, rejection: TokenEndpointError? = nil) -> AuthError {
        AuthError(
            .loginRequired, reason, oauthErrorCode: rejection?.oauthErrorCode,
            oauthErrorDescription: rejection?.errorDescription, underlying: rejection)
    }

    package static func transient(_ reason: String, retryAfter: Duration?, underlying: TokenEndpointError?) -> AuthError {
        AuthError(.transient, reason, retryAfter: retryAfter, underlying: underlying)
    }
}
