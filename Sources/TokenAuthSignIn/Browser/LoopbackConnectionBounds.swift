import Synchronization

/// What one loopback redirect listener allows its connections, so that nothing else on the machine can hold it:
/// any local process can connect to `127.0.0.1`.
///
/// - At most ``maximumConnections`` at once; a connection beyond them is closed at once.
/// - Each connection has ``idleLimit`` to send its request; one that has not is closed. Once a request has arrived,
///   its answer (a code exchange) runs to its own end.
/// - A request may carry at most ``maximumBodySize`` bytes of body (a redirect is a `GET` and has none); a larger one
///   is closed unanswered. The request head is bounded by swift-nio's HTTP parser.
final class LoopbackConnectionBounds: Sendable {
    static let maximumConnections = 16
    static let idleLimit = Duration.seconds(10)
    static let maximumBodySize = 16 * 1024

    private let open = Mutex(0)

    /// Counts a new connection in. - Returns: `false` when ``maximumConnections`` are already open.
    func admit() -> Bool {
        open.withLock { count in
            guard count < Self.maximumConnections else { return false }
            count += 1
            return true
        }
    }

    /// Counts a connection out.
    func release() {
        open.withLock { $0 -= 1 }
    }

    /// Whether one connection's request has arrived: from then on the idle limit no longer applies to it.
    final class Arrival: Sendable {
        private let arrived = Mutex(false)
        func mark() { arrived.withLock { $0 = true } }
        var hasArrived: Bool { arrived.withLock { $0 } }
    }
}
