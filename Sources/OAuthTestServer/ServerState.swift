import Synchronization

/// The server's mutable state behind one lock: tokens, counters, pending faults and recent requests.
///
/// One lock keeps each request's bookkeeping atomic: a refresh rotates its token, counts itself and consumes
/// its fault in one step, so concurrent requests cannot interleave halfway.
final class ServerState: Sendable {
    struct Contents {
        var ledger = TokenLedger()
        var stats = OAuthTestServer.Stats()
        var faults = OAuthTestServer.Faults()
        var recordedRequests: [OAuthTestServer.RecordedRequest] = []
        var flows = FlowState()
        var openID = OAuthTestServer.OpenIDSettings()
        /// The signing keys after a rotation; `nil` until then (the process-wide initial keys).
        var signingKeys: SigningKeys?
        /// DPoP's nonce and the proofs' `jti`s seen (RFC 9449).
        var dpop = DPoPState()
    }

    let configuration: OAuthTestServer.Configuration
    /// Where token requests wait while a test holds their answers.
    let hold = AnswerHold()
    /// Where resource requests wait while a test holds them.
    let resourceHold = AnswerHold()
    private let contents = Mutex(Contents())

    init(configuration: OAuthTestServer.Configuration) {
        self.configuration = configuration
    }

    /// Runs `body` with exclusive access to the state.
    func withLock<Result>(_ body: (inout Contents) throws -> Result) rethrows -> Result {
        try contents.withLock { contents in try body(&contents) }
    }

    /// The part of the state at `part`, read or replaced as a whole under the lock: what the server's settings and
    /// counters properties (``OAuthTestServer/faults``, ``OAuthTestServer/browserFlow``…) are made of.
    subscript<Part>(part: WritableKeyPath<Contents, Part>) -> Part {
        get { withLock { $0[keyPath: part] } }
        set { withLock { $0[keyPath: part] = newValue } }
    }

    /// Remembers a request for ``OAuthTestServer/recordedRequests``, dropping the oldest past the limit.
    func record(_ request: OAuthTestServer.RecordedRequest) {
        let limit = configuration.recordedRequestLimit
        withLock { contents in
            contents.recordedRequests.append(request)
            if contents.recordedRequests.count > limit {
                contents.recordedRequests.removeFirst(contents.recordedRequests.count - limit)
            }
        }
    }

    /// The keys `id_token`s are signed with now.
    func signingKeys() async -> SigningKeys {
        if let rotated = withLock({ $0.signingKeys }) { return rotated }
        return await SigningKeys.initial()
    }

    /// Counts a response by its status code.
    func count(status: Int) {
        withLock { $0.stats.responsesByStatus[status, default: 0] += 1 }
    }
}
