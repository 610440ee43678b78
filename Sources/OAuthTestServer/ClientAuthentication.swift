import Foundation
import Hummingbird

/// Client authentication at the token endpoint (RFC 6749 §2.3): none, `client_secret_post` or
/// `client_secret_basic`.
enum ClientAuthentication {
    /// How a request authenticated its client.
    enum Method: String, Equatable {
        case none
        case clientSecretPost = "client_secret_post"
        case clientSecretBasic = "client_secret_basic"
    }

    /// A failed authentication: the RFC 6749 §5.2 error code and a description.
    struct Failure: Error {
        var code: String
        var description: String
    }

    /// Identifies and authenticates the client of a token request.
    ///
    /// - Parameters:
    ///   - authorization: The request's `Authorization` header, if any.
    ///   - form: The request's form parameters.
    ///   - configuration: The registered clients.
    static func authenticate(
        authorization: String?,
        form: [String: String],
        configuration: OAuthTestServer.Configuration
    ) -> Result<(OAuthTestServer.RegisteredClient, Method), Failure> {
        if let authorization, let credentials = basicCredentials(authorization) {
            guard let credentials else {
                return .failure(Failure(code: "invalid_client", description: "The Basic credentials are not valid base64 of a form-encoded id and secret."))
            }
            let (id, secret) = credentials
            if form["client_secret"] != nil {
                return .failure(Failure(code: "invalid_request", description: "The request uses more than one client authentication method."))
            }
            if let bodyID = form["client_id"], bodyID != id {
                return .failure(Failure(code: "invalid_request", description: "The client_id in the body differs from the one in the Authorization header."))
            }
            return verify(id: id, secret: secret, method: .clientSecretBasic, configuration: configuration)
        }
        guard let id = form["client_id"] else {
            return .failure(Failure(code: "invalid_client", description: "The request identifies no client."))
        }
        if let secret = form["client_secret"] {
            return verify(id: id, secret: secret, method: .clientSecretPost, configuration: configuration)
        }
        return verify(id: id, secret: nil, method: .none, configuration: configuration)
    }

    /// The client of `request`, whose form is `form`, and how it authenticated: what the token, revocation and
    /// device authorization endpoints ask of ``authenticate(authorization:form:configuration:)``.
    ///
    /// - Throws: ``Refused`` with the RFC 6749 §5.2 error when the client does not authenticate.
    static func client(
        of request: Request, form: [String: String], configuration: OAuthTestServer.Configuration
    ) throws -> (OAuthTestServer.RegisteredClient, Method) {
        switch authenticate(authorization: request.headers[.authorization], form: form, configuration: configuration) {
        case .failure(let failure): throw Refused(reply: Reply.oauthError(failure.code, failure.description))
        case .success(let authenticated): return authenticated
        }
    }

    private static func verify(
        id: String,
        secret: String?,
        method: Method,
        configuration: OAuthTestServer.Configuration
    ) -> Result<(OAuthTestServer.RegisteredClient, Method), Failure> {
        guard let client = configuration.client(withID: id) else {
            return .failure(Failure(code: "invalid_client", description: "The client is not registered."))
        }
        switch (client.secret, secret) {
        case (nil, nil):
            return .success((client, method))
        case (nil, .some):
            return .failure(Failure(code: "invalid_client", description: "The client is public and has no secret."))
        case (.some, nil):
            return .failure(Failure(code: "invalid_client", description: "The client must authenticate with its secret."))
        case (.some(let expected), .some(let presented)):
            guard expected == presented else {
                return .failure(Failure(code: "invalid_client", description: "The client secret is wrong."))
            }
            return .success((client, method))
        }
    }

    /// The id and secret of a `Basic` Authorization header, each form-decoded (RFC 6749 §2.3.1).
    ///
    /// Returns `nil` when the header uses another scheme, and `.some(nil)` when it is Basic but malformed.
    private static func basicCredentials(_ header: String) -> (String, String)?? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return nil }
        guard let decoded = Data(base64Encoded: String(parts[1]).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8),
            let colon = text.firstIndex(of: ":"),
            let id = FormDecoding.decode(text[..<colon]),
            let secret = FormDecoding.decode(text[text.index(after: colon)...])
        else {
            return .some(nil)
        }
        return .some((id, secret))
    }
}
