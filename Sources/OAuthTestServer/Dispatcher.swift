import Hummingbird

/// Routes each request to its endpoint, and counts and records every request outside `/_admin`.
struct Dispatcher: HTTPResponder {
    typealias Context = BasicRequestContext

    let state: ServerState

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/_admin/") {
            return try await AdminEndpoints(state: state).respond(to: request)
        }
        state.record(Self.recorded(request))
        let response: Response
        do {
            response = try await route(request, path: path)
        } catch let refused as Refused {
            response = refused.reply
        } catch {
            state.count(status: 500)
            throw error
        }
        state.count(status: response.status.code)
        return response
    }

    private func route(_ request: Request, path: String) async throws -> Response {
        if path == "/token" {
            return try await TokenEndpoint(state: state).respond(to: request)
        }
        if path == "/revoke" {
            return try await RevocationEndpoint(state: state).respond(to: request)
        }
        if path == "/resource" || path.hasPrefix("/resource/") {
            return try await ProtectedResource(state: state).respond(to: request)
        }
        if path == "/public" || path.hasPrefix("/public/") {
            return OpenEndpoints().publicResource(request)
        }
        if path == "/redirect" {
            return OpenEndpoints().redirect(request)
        }
        if path == "/authorize" {
            return AuthorizationEndpoint(state: state).respond(to: request)
        }
        if path == "/device_authorization" {
            return try await DeviceAuthorizationEndpoint(state: state).respond(to: request)
        }
        if path == DeviceVerificationPage.path {
            return try await DeviceVerificationPage(state: state).respond(to: request)
        }
        if path == "/jwks" {
            return await OpenIDProvider(state: state).jwks(request)
        }
        if path == "/userinfo" {
            return OpenIDProvider(state: state).userinfo(request)
        }
        if DiscoveryEndpoint.handles(path) {
            return DiscoveryEndpoint(state: state).respond(to: request)
        }
        return Reply.json(["error": "not_found"], status: .notFound)
    }

    private static func recorded(_ request: Request) -> OAuthTestServer.RecordedRequest {
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        return OAuthTestServer.RecordedRequest(method: request.method.rawValue, uri: request.uri.string, headers: headers)
    }
}
