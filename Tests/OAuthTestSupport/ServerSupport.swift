import Foundation
import HTTPTypes
import HTTPTypesFoundation
import OAuthTestServer
import Synchronization
import TestSupport
import Testing
import TokenAuth
import TokenAuthURLSession
import TokenAuthTesting

/// Starts a server for the duration of `body` and awaits its shutdown afterwards, also when `body` throws: no test
/// leaves a server to stop on its own. `try await withServer { $0.tokenEndpoint }` is an endpoint where nothing
/// listens any more.
@discardableResult
package func withServer<T>(
    _ configuration: OAuthTestServer.Configuration = OAuthTestServer.Configuration(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (OAuthTestServer) async throws -> T
) async throws -> T {
    let server = try await OAuthTestServer.start(configuration)
    return try await cleaningUp({ await server.shutdown() }) { try await body(server) }
}

/// A confidential client registered on test servers.
package let confidentialClient = OAuthTestServer.RegisteredClient(id: "confidential", secret: "s3cret-value")

extension OAuthTestServer {
    /// An `OAuthClient` for this server's token endpoint.
    package func client(id: String = "test-client", secret: String? = nil, authentication: OAuthClient.Authentication? = nil) -> OAuthClient {
        OAuthClient(tokenEndpoint: tokenEndpoint, clientID: id, clientSecret: secret, authentication: authentication)
    }

    /// A token-endpoint client for this server with the real URLSession transport.
    package func tokenClient(
        id: String = "test-client",
        secret: String? = nil,
        authentication: OAuthClient.Authentication? = nil,
        clock: @escaping WallClock = systemWallClock
    ) -> TokenEndpointClient {
        TokenEndpointClient(
            client: client(id: id, secret: secret, authentication: authentication), transport: URLSessionHTTPTransport(),
            wallClock: clock)
    }
}

/// Sends a request with the real transport and returns status, headers and the body decoded as a JSON object.
@discardableResult
package func call(
    _ method: HTTPRequest.Method,
    _ url: URL,
    bearer token: String? = nil,
    headers: HTTPFields = [:],
    body: Data? = nil,
    transport: URLSessionHTTPTransport = URLSessionHTTPTransport()
) async throws -> (status: Int, headers: HTTPFields, json: [String: Any]) {
    var fields = headers
    if let token { fields[.authorization] = "Bearer \(token)" }
    let request = HTTPRequest(method: method, url: url, headerFields: fields)
    let (response, data) = try await transport.send(request, body: body)
    let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    return (response.status.code, response.headerFields, json)
}

/// The error `body` throws, or a recorded test failure when it throws none or another type.
package func tokenError(_ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async -> TokenAuthError? {
    do {
        _ = try await body()
        Issue.record("expected a TokenAuthError, got a result", sourceLocation: sourceLocation)
    } catch let error as TokenAuthError {
        return error
    } catch {
        Issue.record("expected a TokenAuthError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// The ``TokenAuthError`` that `body` throws, after checking that its code is `code`; a recorded test failure when
/// it throws nothing, another error or another code.
@discardableResult
package func expectTokenAuthError(
    _ code: TokenAuthError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> some Any
) async -> TokenAuthError? {
    do {
        _ = try await body()
        Issue.record("expected a TokenAuthError \(code), got a result", sourceLocation: sourceLocation)
    } catch let error as TokenAuthError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a TokenAuthError \(code), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
