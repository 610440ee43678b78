import Foundation
import HTTPTypes
import Synchronization
import TokenAuth

/// Answers requests from a script, one answer each, and keeps what was sent: for the DPoP answers no test server
/// gives on demand in one exchange.
final class ScriptedTransport: HTTPTransport {
    enum Answer: Sendable {
        case tokens(nonce: String?)
        case ok
        case nonceNeeded(status: HTTPResponse.Status, nonce: String, resource: Bool)
        case proofRefused(status: HTTPResponse.Status, resource: Bool)
        case emptyUnauthorized
    }

    private let state: Mutex<(answers: [Answer], requests: [HTTPRequest])>
    /// Runs as each request arrives, before it is answered: what another request does meanwhile.
    private let arrived: @Sendable (HTTPRequest) -> Void

    init(_ answers: [Answer], arrived: @escaping @Sendable (HTTPRequest) -> Void = { _ in }) {
        state = Mutex((answers, []))
        self.arrived = arrived
    }

    /// How many requests were sent.
    var sent: Int { state.withLock { $0.requests.count } }
    /// The requests, in order.
    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// The claims of every request's `DPoP` proof, verified with its own key.
    func proofs() async throws -> [ProofTests.Claims] {
        var claims: [ProofTests.Claims] = []
        for request in requests {
            guard let proof = request.headerFields[HTTPField.Name("DPoP")!] else { throw Missing() }
            claims.append(try await ProofTests.verify(proof).claims)
        }
        return claims
    }

    struct Missing: Error {}

    func send(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        arrived(request)
        let answer = state.withLock { state -> Answer? in
            state.requests.append(request)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        switch answer {
        case .tokens(let nonce):
            var fields: HTTPFields = [.contentType: "application/json"]
            if let nonce { fields[HTTPField.Name("DPoP-Nonce")!] = nonce }
            let json = #"{"access_token":"at-2","token_type":"DPoP","expires_in":3600,"refresh_token":"rt-2"}"#
            return (HTTPResponse(status: .ok, headerFields: fields), Data(json.utf8))
        case .ok:
            return (HTTPResponse(status: .ok), Data("{}".utf8))
        case .nonceNeeded(let status, let nonce, let resource):
            var fields: HTTPFields = [HTTPField.Name("DPoP-Nonce")!: nonce]
            if resource {
                fields[.wwwAuthenticate] = #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#
                return (HTTPResponse(status: status, headerFields: fields), Data())
            }
            fields[.contentType] = "application/json"
            return (HTTPResponse(status: status, headerFields: fields), Data(#"{"error":"use_dpop_nonce"}"#.utf8))
        case .proofRefused(let status, let resource):
            if resource {
                let fields: HTTPFields = [.wwwAuthenticate: #"DPoP error="invalid_dpop_proof", algs="ES256""#]
                return (HTTPResponse(status: status, headerFields: fields), Data())
            }
            return (
                HTTPResponse(status: status, headerFields: [.contentType: "application/json"]),
                Data(#"{"error":"invalid_dpop_proof","error_description":"bad proof"}"#.utf8))
        case .emptyUnauthorized:
            return (HTTPResponse(status: .unauthorized), Data())
        case nil:
            return (HTTPResponse(status: .internalServerError), Data())
        }
    }
}
