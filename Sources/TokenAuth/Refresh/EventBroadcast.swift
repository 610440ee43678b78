import Synchronization

/// Hands every event of an ``AuthManager`` to each of its ``AuthManager/events`` streams: any number of consumers — a
/// log, a status line, a test — each with its own stream and its own buffer of the newest 100 events.
final class EventBroadcast: Sendable {
    private struct Subscribers {
        var nextID = 0
        var continuations: [Int: AsyncStream<AuthEvent>.Continuation] = [:]
        var finished = false
    }

    private let subscribers = Mutex(Subscribers())

    /// A new stream of the events from now on; it ends when the manager does, or when its consumer stops.
    func subscribe() -> AsyncStream<AuthEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthEvent.self, bufferingPolicy: .bufferingNewest(100))
        let id: Int? = subscribers.withLock { subscribers in
            guard !subscribers.finished else { return nil }
            defer { subscribers.nextID += 1 }
            subscribers.continuations[subscribers.nextID] = continuation
            return subscribers.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Gives `event` to every stream.
    func yield(_ event: AuthEvent) {
        for continuation in subscribers.withLock({ Array($0.continuations.values) }) { continuation.yield(event) }
    }

    /// Ends every stream, and those subscribed later.
    func finish() {
        let continuations = subscribers.withLock { subscribers in
            subscribers.finished = true
            defer { subscribers.continuations = [:] }
            return Array(subscribers.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
