import Foundation
import Hummingbird

/// Endpoints without authentication: `/public` (and below) and `/redirect`.
struct OpenEndpoints: Sendable {
    /// `/public`: `200` with the method, the path and whether an `Authorization` header came along.
    func publicResource(_ request: Request) -> Response {
        Reply.json([
            "method": request.method.rawValue,
            "path": request.uri.path,
            "authorization_present": request.headers[.authorization] != nil,
        ])
    }

    /// `/redirect?to=URL[&status=CODE]`: a redirect to `URL`, `307` unless `status` names another 3xx code.
    func redirect(_ request: Request) -> Response {
        let parameters = request.uri.queryParameters
        guard let target = parameters["to"].map(String.init), !target.isEmpty else {
            return Reply.json(["error": "invalid_request", "error_description": "Say where to with ?to=URL."], status: .badRequest)
        }
        var status = HTTPResponse.Status.temporaryRedirect
        if let code = parameters["status"].flatMap({ Int($0) }) {
            guard [301, 302, 303, 307, 308].contains(code) else {
                return Reply.json(["error": "invalid_request", "error_description": "status must be a redirect code."], status: .badRequest)
            }
            status = HTTPResponse.Status(code: code)
        }
        return Response(status: status, headers: [.location: target])
    }
}
