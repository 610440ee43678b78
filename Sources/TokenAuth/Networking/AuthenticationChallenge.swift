import HTTPTypes

/// One challenge of a `WWW-Authenticate` header field (RFC 9110 §11.6.1), such as the RFC 6750 §3
/// `Bearer realm="example", error="invalid_token", error_description="The access token expired"`.
///
/// A response may carry several challenges, in one field separated by commas or in several fields; use
/// ``challenges(in:)`` to read them all. Parameter names are case-insensitive and stored lowercased; values are
/// unquoted, with `\` escapes removed. Parsing never fails: malformed parts are skipped, so a sloppy server's
/// header still yields whatever can be read from it.
public struct AuthenticationChallenge: Sendable, Hashable, CustomStringConvertible {
    /// The authentication scheme as the server spelled it, for example `Bearer`. Compare it with
    /// ``hasScheme(_:)``: schemes are case-insensitive.
    public var scheme: String
    /// The auth-params, keyed by lowercased name. When a name repeats, the first value is kept.
    public var parameters: [String: String]
    /// The token68 form of credentials some schemes use instead of parameters (`Negotiate abc==`), if present.
    public var token68: String?

    /// Creates a challenge.
    public init(scheme: String, parameters: [String: String] = [:], token68: String? = nil) {
        self.scheme = scheme
        self.parameters = Dictionary(parameters.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.token68 = token68
    }

    /// Whether the challenge's scheme is `scheme`, compared case-insensitively.
    public func hasScheme(_ scheme: String) -> Bool {
        self.scheme.lowercased() == scheme.lowercased()
    }

    /// The value of the parameter `name` (case-insensitive).
    public subscript(parameter name: String) -> String? {
        parameters[name.lowercased()]
    }

    /// `realm`: the protection space.
    public var realm: String? { self[parameter: "realm"] }
    /// RFC 6750 `error`: `invalid_request`, `invalid_token` or `insufficient_scope`.
    public var error: String? { self[parameter: "error"] }
    /// RFC 6750 `error_description`: text for developers, not for end users.
    public var errorDescription: String? { self[parameter: "error_description"] }
    /// RFC 6750 `error_uri`: a page about the error.
    public var errorURI: String? { self[parameter: "error_uri"] }
    /// RFC 6750 `scope`: the scope the resource needs, as a space-separated list.
    public var scope: String? { self[parameter: "scope"] }

    /// The challenge in `WWW-Authenticate` syntax, parameters sorted by name.
    public var description: String {
        var text = scheme
        if let token68 { text += " " + token68 }
        let parameters = self.parameters.sorted { $0.key < $1.key }.map { name, value in
            // Escaped scalar by scalar: a quote followed by a combining mark is one Character, which a
            // Character-level replacement would leave unescaped (found by Fuzz/Targets/www-authenticate.swift).
            var escaped = String.UnicodeScalarView()
            for scalar in value.unicodeScalars {
                if scalar == "\\" || scalar == "\"" { escaped.append("\\") }
                escaped.append(scalar)
            }
            return "\(name)=\"\(String(escaped))\""
        }
        if !parameters.isEmpty { text += " " + parameters.joined(separator: ", ") }
        return text
    }

    // MARK: Reading responses

    /// Every challenge in every `WWW-Authenticate` field of `response`, in order.
    public static func challenges(in response: HTTPResponse) -> [AuthenticationChallenge] {
        response.headerFields[values: .wwwAuthenticate].flatMap { parse($0) }
    }

    /// The first `Bearer` challenge of `response`, if any.
    public static func bearerChallenge(in response: HTTPResponse) -> AuthenticationChallenge? {
        challenges(in: response).first { $0.hasScheme("Bearer") }
    }

    /// Parses the value of one `WWW-Authenticate` field into its challenges.
    ///
    /// ```swift
    /// let challenges = AuthenticationChallenge.parse(#"Bearer realm="api", error="invalid_token", Basic realm="api""#)
    /// // [Bearer realm="api" error="invalid_token", Basic realm="api"]
    /// ```
    public static func parse(_ fieldValue: String) -> [AuthenticationChallenge] {
        var scanner = ChallengeScanner(fieldValue)
        var challenges: [AuthenticationChallenge] = []
        while true {
            scanner.skipListSeparators()
            if scanner.atEnd { break }
            guard let scheme = scanner.token() else {
                // Not a challenge: skip to the next list element.
                scanner.skip { $0 != UInt8(ascii: ",") }
                continue
            }
            var challenge = AuthenticationChallenge(scheme: scheme)
            guard scanner.skipSpaces() > 0 || scanner.atEnd || scanner.peek == UInt8(ascii: ",") else {
                // `Scheme"…"` or similar: not a challenge.
                scanner.skip { $0 != UInt8(ascii: ",") }
                continue
            }
            if let token68 = scanner.token68() {
                challenge.token68 = token68
            } else {
                scanner.parameters(into: &challenge.parameters)
            }
            challenges.append(challenge)
        }
        return challenges
    }
}

/// A cursor over the bytes of a `WWW-Authenticate` value, with the RFC 9110 productions the parser needs.
private struct ChallengeScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    mutating func skip(while predicate: (UInt8) -> Bool) {
        while let byte = peek, predicate(byte) { index += 1 }
    }

    /// Skips spaces and tabs; returns how many.
    @discardableResult
    mutating func skipSpaces() -> Int {
        let start = index
        skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        return index - start
    }

    /// Skips whitespace and commas: empty list elements are allowed (RFC 9110 §5.6.1).
    mutating func skipListSeparators() {
        skip { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
    }

    /// `token = 1*tchar`
    mutating func token() -> String? {
        let start = index
        skip(while: Self.isTokenCharacter)
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// `token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`, only when it stands alone: followed
    /// by the end or a comma. Otherwise nothing is consumed (it was the start of an auth-param).
    mutating func token68() -> String? {
        let start = index
        skip(while: Self.isToken68Character)
        guard index > start else { return nil }
        skip { $0 == UInt8(ascii: "=") }
        let end = index
        skipSpaces()
        guard atEnd || peek == UInt8(ascii: ",") else {
            index = start
            return nil
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// `#auth-param` where `auth-param = token BWS "=" BWS ( token / quoted-string )`. Stops, without consuming
    /// it, at a list element that is not a parameter: the scheme of the next challenge.
    mutating func parameters(into parameters: inout [String: String]) {
        while true {
            skipListSeparators()
            let elementStart = index
            guard let name = token() else { return }
            skipSpaces()
            guard peek == UInt8(ascii: "=") else {
                index = elementStart
                return
            }
            index += 1
            skipSpaces()
            let value = peek == UInt8(ascii: "\"") ? quotedString() : (token() ?? "")
            let key = name.lowercased()
            if parameters[key] == nil { parameters[key] = value }
            skipSpaces()
            // Anything else before the next comma is malformed: skip it.
            skip { $0 != UInt8(ascii: ",") }
        }
    }

    /// `quoted-string`, starting at its opening quote; an unterminated one runs to the end.
    mutating func quotedString() -> String {
        index += 1
        var value: [UInt8] = []
        while let byte = peek {
            index += 1
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\"), let escaped = peek {
                value.append(escaped)
                index += 1
            } else {
                value.append(byte)
            }
        }
        return String(decoding: value, as: UTF8.self)
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func isToken68Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~+/".utf8.contains(byte)
        }
    }
}
