import TokenAuth

/// git's credential helper (gitcredentials(7)) over one session: `get` hands out its access token, refreshed first
/// when it is near expiry — under the item's lock, so parallel gits refresh once —; `store` is ignored; `erase`
/// refreshes a token the server refused. The refresh token never leaves the session, and the token goes to one
/// protocol and host only.
///
/// ```swift
/// let helper = GitCredentialHelper(manager: manager, host: GitHost(url: URL(string: "https://gitlab.example.com")!)!)
/// let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
/// if let answer = try await helper.get(try GitCredential(parsing: input)) {
///     print(try answer.formatted(), terminator: "")
/// }
/// ```
public struct GitCredentialHelper: Sendable {
    /// What git asks of a helper: the last argument of its command line.
    public enum Operation: String, Sendable, CaseIterable {
        case get, store, erase
    }

    /// The session.
    public let manager: AuthManager
    /// The only protocol and host its token is handed to.
    public let host: GitHost
    /// The username of the answers: forges take any with an OAuth token; GitLab and Gitea document `oauth2`.
    public let username: String
    /// Whether to answer `authtype=Bearer` to a git that offers `capability[]=authtype` (git ≥ 2.46), instead of a
    /// username and password.
    public let offersBearer: Bool

    /// Creates the helper.
    public init(manager: AuthManager, host: GitHost, username: String = "oauth2", offersBearer: Bool = false) {
        self.manager = manager
        self.host = host
        self.username = username
        self.offersBearer = offersBearer
    }

    /// The answer to `get`: the username and the access token (or `authtype=Bearer` and the token as its credential)
    /// and when it expires; nil for another protocol or host, which gets nothing.
    ///
    /// - Throws: The manager's `TokenAuthError`: a sign-in is needed (`isLoginRequired`), the token endpoint failed.
    public func get(_ request: GitCredential) async throws -> GitCredential? {
        guard host.matches(request) else { return nil }
        let auth = try await manager.validAuth()
        var answer = GitCredential()
        if offersBearer, request.capabilities.contains("authtype") {
            answer.capabilities = ["authtype"]
            answer.authType = "Bearer"
            answer.credential = auth.accessToken
        } else {
            answer.username = username
            answer.password = auth.accessToken
        }
        answer.passwordExpiry = auth.expiresAt
        return answer
    }

    /// `erase`, which git sends after the server refused what `get` gave. When the password (or credential) is the
    /// session's current access token — here, or in the store once read again — the session refreshes, rejecting it:
    /// once, however many gits erase it, and the refresh token is kept. Any other password (a stale token, another
    /// helper's), or another host, changes nothing. Nothing is ever deleted.
    ///
    /// - Throws: The manager's `TokenAuthError`.
    public func erase(_ request: GitCredential) async throws {
        guard host.matches(request), let refused = request.password ?? request.credential else { return }
        _ = try await manager.refresh(rejecting: refused)
    }
}
