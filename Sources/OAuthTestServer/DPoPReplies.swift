import Foundation
import HTTPTypes
import Hummingbird

extension Reply {
    /// A `DPoP` challenge from the protected resource (RFC 9449 §7.1):
    /// `WWW-Authenticate: DPoP error="…", error_description="…", algs="ES256"` (with `scope="…"` when given), and
    /// the same error as a JSON body.
    static func dpopChallenge(
        status: HTTPResponse.Status = .unauthorized,
        error: String,
        description: String,
        scope: String? = nil
    ) -> Response {
        var parameters = [#"error="\#(error)""#, #"error_description="\#(description)""#]
        if let scope { parameters.append(#"scope="\#(scope)""#) }
        parameters.append(#"algs="ES256""#)
        let headers: HTTPFields = [.wwwAuthenticate: "DPoP " + parameters.joined(separator: ", ")]
        return json(["error": error, "error_description": description], status: status, headers: headers)
    }

    /// `401 Unauthorized` with an empty body and no `WWW-Authenticate`: the resource's
    /// ``OAuthTestServer/Faults/emptyDPoPUnauthorizedAnswers``.
    static func emptyUnauthorized() -> Response {
        bytes(Data(), contentType: "text/plain", status: .unauthorized, headers: [:])
    }

    /// `response` with a `DPoP-Nonce: nonce` header (RFC 9449 §8.1, §9), replacing any it had.
    static func addingDPoPNonce(_ nonce: String, to response: Response) -> Response {
        var response = response
        response.headers[.dpopNonce] = nonce
        return response
    }
}
