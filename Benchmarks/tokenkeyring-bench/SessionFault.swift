import Foundation

/// One kind of fault figure 8 injects into a `tokenctl token` that refreshes an expired item.
enum SessionFault: String, CaseIterable, Codable, Sendable {
    case sigterm, sighup, sigkill
    /// The Secret Service stopped (SIGSTOP) for 1 to 6 s, then continued: a daemon that hangs.
    case providerStopped
    /// The Secret Service killed, started again locked, then unlocked.
    case providerKilled
    /// The file store's directory made read-only for the running call (a bind mount in its mount namespace).
    case storeReadOnly
    /// The server rotates the refresh token, then closes the connection instead of answering
    /// (`OAuthTestServer.Faults.lostAnswers`). Nothing on the machine can keep an answer it never got: counted apart.
    case answerLost

    var title: String {
        switch self {
        case .sigterm: "SIGTERM of tokenctl"
        case .sighup: "SIGHUP of tokenctl"
        case .sigkill: "SIGKILL of tokenctl"
        case .providerStopped: "Secret Service stopped for 1-6 s"
        case .providerKilled: "Secret Service killed, back locked"
        case .storeReadOnly: "file store read-only"
        case .answerLost: "answer never reached the machine"
        }
    }

    /// The signal sent to the `tokenctl` the benchmark started, for the signal kinds.
    var signal: Int32? {
        switch self {
        case .sigterm: SIGTERM
        case .sighup: SIGHUP
        case .sigkill: SIGKILL
        default: nil
        }
    }

    /// Whether the round's item is in the file store (`--insecure-storage`) rather than the keyring.
    var usesFileStore: Bool { self == .storeReadOnly }
}

/// Where the call was when its fault landed, read from the server's counters at that moment.
enum FaultPhase: String, CaseIterable, Codable, Sendable {
    /// No refresh grant had reached the server: the write ahead or the read before it.
    case beforeGrant = "before grant"
    /// The grant was at the server (its answer delayed by the latency), not yet answered.
    case atServer = "at server"
    /// The server had answered: the answer on its way, kept or being stored.
    case afterAnswer = "after answer"
    /// The `tokenctl` the benchmark started had already exited.
    case callOver = "call over"
}

/// What figure 8 does in one round, drawn before the run from the seed.
struct FaultRound: Sendable {
    let number: Int
    let fault: SessionFault
    /// From the start of `tokenctl token` to the fault.
    let delay: Duration
    /// How long the Secret Service stays stopped (``SessionFault/providerStopped`` only).
    let pause: Duration

    /// `count` rounds over `kinds`, in shuffled blocks of one round of each kind, so every kind gets as many rounds
    /// (±1), in random order; each round's moment is uniform in `0..<latest`.
    static func draw(count: Int, kinds: [SessionFault], latest: Duration, seed: Int) -> [FaultRound] {
        var random = SeededRandom(seed: UInt64(seed))
        var block: [SessionFault] = []
        return (1...count).map { number in
            if block.isEmpty { block = kinds.shuffled(using: &random) }
            let fault = block.removeFirst()
            return FaultRound(
                number: number, fault: fault,
                delay: .milliseconds(Int.random(in: 0..<Int(latest.milliseconds), using: &random)),
                pause: .milliseconds(Int.random(in: 1000...6000, using: &random)))
        }
    }
}

/// How one round ended.
struct RoundOutcome: Sendable {
    let round: FaultRound
    let phase: FaultPhase
    /// How the faulted `tokenctl token` ended: `exit N` or `signal N`.
    let faultedExit: String
    /// Why the session is lost (the call after recovery printed no token the server accepts); `nil` when it is not.
    let lost: String?
    /// Presentations of a retired refresh token the server saw during the round.
    let reuseDetections: Int
    /// The faulted `tokenctl token`, from its start to its exit.
    let faultedSeconds: Double
    /// The whole round: import, fault, recovery and checks.
    let seconds: Double
}
