import Foundation
import HTTPTypes
import Hummingbird

/// Builders for the responses the server sends.
enum Reply {
    /// Whether OAuth answers (objects with `access_token` or `error`) are written form-encoded, errors with
    /// `200 OK`: set by the token endpoint for a request its ``OAuthTestServer/TokenAnswerFormat`` answers so.
    @TaskLocal static var formEncodesOAuthAnswers = false
    /// The status of OAuth error answers by `error` code, overriding 400: set by the token endpoint from
    /// ``OAuthTestServer/Configuration/tokenErrorStatuses``.
    @TaskLocal static var oauthErrorStatuses: [String: Int] = [:]

    /// `text` form-encoded: RFC 3986's unreserved characters as they are, every other byte as `%XX`.
    static func formEscaped(_ text: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// A JSON object response. Keys are sorted so bodies are stable.
    static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        if formEncodesOAuthAnswers, object["access_token"] != nil || object["error"] != nil {
            let form = object.keys.sorted().map { key in "\(formEscaped(key))=\(formEscaped("\(object[key]!)"))" }
            return bytes(
                Data(form.joined(separator: "&").utf8), contentType: "application/x-www-form-urlencoded", status: .ok,
                headers: headers)
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return bytes(data, contentType: "application/json", status: status, headers: headers)
    }

    /// A response whose body is an `Encodable` value as JSON.
    static func encoded(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return bytes(data, contentType: "application/json", status: status, headers: [:])
    }

    /// A response with the given body bytes.
    static func bytes(
        _ data: Data,
        contentType: String,
        status: HTTPResponse.Status,
        headers: HTTPFields
    ) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `405 Method Not Allowed` from an endpoint that accepts only `allowed`, named in `Allow` and in the
    /// description.
    static func methodNotAllowed(_ allowed: HTTPRequest.Method) -> Response {
        json(
            ["error": "invalid_request", "error_description": "The endpoint accepts only \(allowed.rawValue)."],
            status: .methodNotAllowed, headers: [.allow: allowed.rawValue])
    }

    /// An RFC 6749 §5.2 error response from the token endpoint.
    ///
    /// `invalid_client` answers 401 with a `Basic` challenge (§5.2 allows 400 when the client did not use the
    /// Authorization header; always answering 401 keeps the server simple and is what many servers do).
    static func oauthError(_ code: String, _ description: String, extras: [String: Int] = [:]) -> Response {
        var headers: HTTPFields = [.cacheControl: "no-store", .pragma: "no-cache"]
        var status = HTTPResponse.Status.badRequest
        if code == "invalid_client" {
            status = .unauthorized
            headers[.wwwAuthenticate] = #"Basic realm="oauth-test-server""#
        }
        if let override = oauthErrorStatuses[code] { status = HTTPResponse.Status(code: override) }
        var object: [String: Any] = ["error": code, "error_description": description]
        for (name, value) in extras { object[name] = value }
        return json(object, status: status, headers: headers)
    }

    /// An RFC 6750 §3 challenge from the protected resource.
    ///
    /// With `error` `nil` (a request without credentials, §3.1) the challenge names only the realm.
    static func bearerChallenge(status: HTTPResponse.Status, error: String?, description: String?, scope: String? = nil) -> Response {
        var parameters = [#"realm="oauth-test-server""#]
        if let error { parameters.append(#"error="\#(error)""#) }
        if let description { parameters.append(#"error_description="\#(description)""#) }
        if let scope { parameters.append(#"scope="\#(scope)""#) }
        var body: [String: Any] = [:]
        if let error { body["error"] = error }
        if let description { body["error_description"] = description }
        let headers: HTTPFields = [.wwwAuthenticate: "Bearer " + parameters.joined(separator: ", ")]
        return json(body, status: status, headers: headers)
    }
}

extension Reply {
    /// The head of a `200 OK`, then a closed connection instead of its body: an answer lost on its way to the client
    /// (``OAuthTestServer/Faults/lostAnswers``). The body's writer throws, and the server closes a connection whose
    /// response it cannot finish.
    static func lostOnTheWay() -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody { _ in throw LostOnTheWay() })
    }

    private struct LostOnTheWay: Error {}
}

/// A request an endpoint answers with `reply` at once: thrown by what the endpoints share (``FormPost``,
/// ``ClientAuthentication/client(of:form:configuration:)``), and sent by the ``Dispatcher``.
struct Refused: Error {
    let reply: Response
}

extension HTTPField.Name {
    /// `Pragma`, for `no-cache` on token responses (RFC 6749 §5.1).
    static var pragma: Self { Self("Pragma")! }
}
