#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The attributes of one exchange of git's credential protocol (git-credential(1), "INPUT/OUTPUT FORMAT"): what git
/// writes to a helper's standard input, and what a helper answers on its standard output.
///
/// ```swift
/// let asked = try GitCredential(parsing: "protocol=https\nhost=gitlab.example.com\n\n")
/// if asked.host == "gitlab.example.com" {
///     var answer = GitCredential()
///     answer.username = "oauth2"
///     answer.password = try await manager.validToken()
///     print(try answer.formatted(), terminator: "")
/// }
/// ```
///
/// Each attribute is a line `key=value`: the key up to the first `=`, the value the rest of the line (it may hold
/// `=`, never a newline or NUL). The input ends at a blank line or at its end. `url=` stands for the attributes of its
/// parts (`protocol`, `host` with the port, `path`, `username`, `password`). A key ending in `[]` adds a value to a
/// list, and an empty value empties it. Keys this type does not know are kept in ``others``, unread by the helper.
public struct GitCredential: Sendable, Equatable {
    /// `https`, `http`, …
    public var `protocol`: String?
    /// The host, with `:port` when the URL has one.
    public var host: String?
    /// The repository's path, when git sends it (`credential.useHttpPath`).
    public var path: String?
    public var username: String?
    /// The password (for an answer: the access token). Never in `description`.
    public var password: String?
    /// When the password stops working (`password_expiry_utc`, seconds since 1970, UTC).
    public var passwordExpiry: Date?
    /// What git can take beside a username and password (`capability[]`, git ≥ 2.46): `authtype`, `state`.
    public var capabilities: [String] = []
    /// The server's `WWW-Authenticate` challenges of the request (`wwwauth[]`, git ≥ 2.41).
    public var challenges: [String] = []
    /// An authentication scheme and its credential, for git that can take them (`authtype`, `credential`).
    public var authType: String?
    /// The credential that goes with ``authType``. Never in `description`.
    public var credential: String?
    /// Every other attribute, in order: read, never acted on.
    public var others: [(key: String, value: String)] = []

    public init() {}

    /// Reads git's input.
    ///
    /// - Throws: ``GitCredentialError`` for a line without `=`, or a `url=` that is not a URL.
    public init(parsing text: String) throws(GitCredentialError) {
        // By Character, "\r\n" is one newline: CRLF lines end where LF lines do.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.isEmpty { break }
            guard let equals = line.firstIndex(of: "=") else { throw .lineWithoutEquals }
            try set(String(line[..<equals]), String(line[line.index(after: equals)...]))
        }
    }

    /// The answer as git reads it: one `key=value` line per attribute that is set, then nothing (git reads to the end).
    /// Lists are written as their `key[]=value` lines.
    ///
    /// - Throws: ``GitCredentialError`` when a value holds a newline or NUL: written, it would add attributes of its
    ///   own to the answer.
    public func formatted() throws(GitCredentialError) -> String {
        var lines: [(String, String)] = capabilities.map { ("capability[]", $0) }
        let single: [(String, String?)] = [
            ("protocol", `protocol`), ("host", host), ("path", path), ("username", username), ("password", password),
            ("password_expiry_utc", passwordExpiry.map { String(Int64($0.timeIntervalSince1970.rounded(.down))) }),
            ("authtype", authType), ("credential", credential),
        ]
        lines += single.compactMap { key, value in value.map { (key, $0) } }
        lines += challenges.map { ("wwwauth[]", $0) }
        lines += others.map { ($0.key, $0.value) }
        var text = ""
        for (key, value) in lines {
            guard !value.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\0" }) else { throw .unsafeValue(key) }
            text += "\(key)=\(value)\n"
        }
        return text
    }

    private mutating func set(_ key: String, _ value: String) throws(GitCredentialError) {
        switch key {
        case "protocol": `protocol` = value
        case "host": host = value
        case "path": path = value
        case "username": username = value
        case "password": password = value
        case "password_expiry_utc": passwordExpiry = Int64(value).map { Date(timeIntervalSince1970: TimeInterval($0)) }
        case "authtype": authType = value
        case "credential": credential = value
        case "capability[]": if value.isEmpty { capabilities = [] } else { capabilities.append(value) }
        case "wwwauth[]": if value.isEmpty { challenges = [] } else { challenges.append(value) }
        case "url": try setURL(value)
        default: others.append((key, value))
        }
    }

    /// `url=`: its parts, as git reads them (a part the URL lacks leaves the attribute as it was).
    private mutating func setURL(_ value: String) throws(GitCredentialError) {
        guard let url = URL(string: value), let scheme = url.scheme else { throw .notAURL }
        `protocol` = scheme
        if let name = url.host { host = url.port.map { "\(name):\($0)" } ?? name }
        let urlPath = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        if !urlPath.isEmpty { path = urlPath }
        if let user = url.user { username = user }
        if let secret = url.password { password = secret }
    }

    public static func == (lhs: GitCredential, rhs: GitCredential) -> Bool {
        (try? lhs.formatted()) == (try? rhs.formatted())
    }
}

extension GitCredential: CustomStringConvertible {
    /// The attributes without the password and the credential.
    public var description: String {
        var shown = self
        shown.password = password.map { _ in "<redacted>" }
        shown.credential = credential.map { _ in "<redacted>" }
        return "GitCredential(" + ((try? shown.formatted()) ?? "").split(separator: "\n").joined(separator: ", ") + ")"
    }
}
