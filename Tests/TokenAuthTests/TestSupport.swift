import Foundation
import HTTPTypes
import HTTPTypesFoundation
import OAuthTestServer
import Synchronization
import Testing
@testable import TokenAuth

/// A wall clock the test controls. It can also step forward by a fixed amount after every read, to tell apart
/// the reads a client makes before and after a request.
final class ManualWallClock: Sendable {
    private struct State {
        var now: Date
        var step: TimeInterval
        var reads = 0
    }

    private let state: Mutex<State>

    /// A clock at `start` (a fixed, round date by default) that moves `step` seconds forward after each read.
    init(_ start: Date = ManualWallClock.epoch, advancingEachReadBy step: TimeInterval = 0) {
        state = Mutex(State(now: start, step: step))
    }

    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    /// The current time, without counting as a read.
    var now: Date { state.withLock { $0.now } }

    /// How often ``read()`` was called.
    var reads: Int { state.withLock { $0.reads } }

    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now.addTimeInterval(seconds) }
    }

    func read() -> Date {
        state.withLock { state in
            let now = state.now
            state.reads += 1
            state.now.addTimeInterval(state.step)
            return now
        }
    }

    /// The clock as a `WallClock` closure.
    var wallClock: WallClock { { self.read() } }
}

/// A transport double for tests of what happens before or without the network: answers every request with one
/// canned response and counts the requests it saw.
final class CannedTransport: HTTPTransport {
    private struct Log {
        var requests: [(HTTPRequest, Data?)] = []
    }

    private let status: HTTPResponse.Status
    private let headers: HTTPFields
    private let body: Data
    private let log = Mutex(Log())

    init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    convenience init(status: HTTPResponse.Status = .ok, headers: HTTPFields = [:], json: String) {
        self.init(status: status, headers: headers, body: Data(json.utf8))
    }

    /// How many requests were sent.
    var sendCount: Int { log.withLock { $0.requests.count } }

    /// The body of the last request, as text.
    var lastBody: String? {
        log.withLock { $0.requests.last?.1.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// The last request's head.
    var lastRequest: HTTPRequest? { log.withLock { $0.requests.last?.0 } }

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        log.withLock { $0.requests.append((request, body)) }
        return (HTTPResponse(status: status, headerFields: headers), self.body)
    }
}

/// Starts a server for the duration of `body` and shuts it down afterwards, also when `body` throws.
func withServer<T>(
    _ configuration: OAuthTestServer.Configuration = OAuthTestServer.Configuration(),
    _ body: (OAuthTestServer) async throws -> T
) async throws -> T {
    let server = try await OAuthTestServer.start(configuration)
    do {
        let result = try await body(server)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// A confidential client registered on test servers.
let confidentialClient = OAuthTestServer.RegisteredClient(id: "confidential", secret: "s3cret-value")

extension OAuthTestServer {
    /// An `OAuthClient` for this server's token endpoint.
    func client(id: String = "test-client", secret: String? = nil, authentication: OAuthClient.Authentication? = nil) -> OAuthClient {
        OAuthClient(tokenEndpoint: tokenEndpoint, clientID: id, clientSecret: secret, authentication: authentication)
    }

    /// A token-endpoint client for this server with the real URLSession transport.
    func tokenClient(
        id: String = "test-client",
        secret: String? = nil,
        authentication: OAuthClient.Authentication? = nil,
        clock: @escaping WallClock = systemWallClock
    ) -> TokenEndpointClient {
        TokenEndpointClient(client: client(id: id, secret: secret, authentication: authentication), clock: clock)
    }
}

/// Sends a request with the real transport and returns status, headers and the body decoded as a JSON object.
@discardableResult
func call(
    _ method: HTTPRequest.Method,
    _ url: URL,
    bearer token: String? = nil,
    headers: HTTPFields = [:],
    body: Data? = nil,
    transport: URLSessionTransport = URLSessionTransport()
) async throws -> (status: Int, headers: HTTPFields, json: [String: Any]) {
    var fields = headers
    if let token { fields[.authorization] = "Bearer \(token)" }
    let request = HTTPRequest(method: method, url: url, headerFields: fields)
    let (response, data) = try await transport.send(request, body: body)
    let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    return (response.status.code, response.headerFields, json)
}

/// The error `body` throws, or a recorded test failure when it throws none or another type.
func tokenError(_ body: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation) async -> TokenEndpointError? {
    do {
        _ = try await body()
        Issue.record("expected a TokenEndpointError, got a result", sourceLocation: sourceLocation)
    } catch let error as TokenEndpointError {
        return error
    } catch {
        Issue.record("expected a TokenEndpointError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
