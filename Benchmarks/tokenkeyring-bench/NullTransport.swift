import Foundation
import HTTPTypes
import TokenAuth

/// A transport that answers every request at once with an empty `200`: with it, what a client costs per request is
/// its own work alone, without the network or the server.
struct NullTransport: HTTPTransport {
    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        (HTTPResponse(status: .ok), Data())
    }
}
