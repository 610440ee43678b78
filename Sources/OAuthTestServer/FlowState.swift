import Foundation

/// The discovery and device-flow part of the server's state, kept in ``ServerState`` under its one lock.
struct FlowState {
    var discovery = OAuthTestServer.DiscoverySettings()
    /// Requests to well-known paths, by path, whether or not a document was served there.
    var discoveryRequests: [String: Int] = [:]
    var deviceFlow = OAuthTestServer.DeviceFlowSettings()
    var deviceStats = OAuthTestServer.DeviceFlowStats()
    /// Live device codes, by device code.
    var deviceGrants: [String: DeviceGrant] = [:]
    var browser = OAuthTestServer.BrowserFlowSettings()
    var browserStats = OAuthTestServer.BrowserFlowStats()
    /// Codes not yet exchanged, by code.
    var authorizationCodes: [String: CodeGrant] = [:]

    /// One authorization code and the request it answers.
    struct CodeGrant {
        var clientID: String
        var redirectURI: String
        var challenge: String
        var nonce: String?
        var subject: String
        var scope: String?
        var expiresAt: Date
        /// The authorization request's `dpop_jkt` (RFC 9449 §10): the key whose proof the code's token request needs.
        var dpopJKT: String?
    }

    /// One device code and what the user has decided about it.
    struct DeviceGrant {
        var userCode: String
        var clientID: String
        var scope: String?
        var expiresAt: Date
        var decision: OAuthTestServer.DeviceDecision?
        /// Polls still to answer `authorization_pending` before ``decision`` takes effect.
        var pollsBeforeDecision = 0
    }

    /// A user code as RFC 8628 §6.1 suggests: eight consonants, in two groups of four.
    static func randomUserCode() -> String {
        let letters = Array("BCDFGHJKLMNPQRSTVWXZ")
        var generator = SystemRandomNumberGenerator()
        let code = String((0..<8).map { _ in letters.randomElement(using: &generator)! })
        return "\(code.prefix(4))-\(code.suffix(4))"
    }
}
