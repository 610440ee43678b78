#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Logging

/// What the library's log lines and events may say about a URL, an error or a duration: never a token, a
/// password, a client secret, a query string or an error's free text, which can quote a server or a secret.
package enum LogRedaction {
    /// `scheme://host[:port]/path`: no user info, query or fragment, which can carry credentials.
    package static func url(_ url: URL) -> String {
        guard let scheme = url.scheme, let host = url.host else { return "?" }
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)\(url.path)"
    }

    /// `METHOD scheme://authority/path` of `request`, without user info, query or fragment.
    package static func request(_ request: HTTPRequest) -> String {
        let authority = request.authority.map { $0.split(separator: "@").last.map(String.init) ?? $0 } ?? "?"
        let path = request.path.map { String($0.prefix { $0 != "?" && $0 != "#" }) } ?? ""
        return "\(request.method) \(request.scheme ?? "?")://\(authority)\(path)"
    }

    /// `Type` or `Type.code` of `error` (e.g. `KeyringError.locked`), never its description; for an error of the HTTP
    /// transport, the transport's own type and code after it (`TokenAuthError.networkFailure (URLError -1004)`),
    /// which the error's sentence names only in words.
    ///
    /// The code is the error's stored `code` (or private `kind`) property when its text is a plain identifier, as for ``TokenAuthError``,
    /// ``TokenAuthError`` and the keyring's errors; anything else gives the type name alone.
    package static func error(_ error: any Error) -> String {
        if let transport = error as? any NamedTransportFailure { return transport.failureName }
        let named = typeAndCode(of: error)
        // The transport's error, however deep: an endpoint's error wraps the transport's, which wraps its own.
        var cause = (error as? TokenAuthError)?.underlying
        while let wrapped = cause as? TokenAuthError { cause = wrapped.underlying }
        guard let transport = cause as? any NamedTransportFailure else { return named }
        return "\(named) (\(transport.failureName))"
    }

    private static func typeAndCode(of error: any Error) -> String {
        let type = String(describing: Swift.type(of: error))
        guard let code = Mirror(reflecting: error).children.first(where: { $0.label == "code" || $0.label == "kind" })?.value else {
            return type
        }
        let name = String(describing: code)
        let isIdentifier = !name.isEmpty && name.count <= 40
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "_") }
        return isIdentifier ? "\(type).\(name)" : type
    }
}
