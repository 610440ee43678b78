import Synchronization

extension OAuthTestServer {
    /// Makes token requests that arrive from now on wait before they answer, until ``releaseTokenAnswers()``.
    ///
    /// A held request has been counted (``Stats/tokenRequests`` and its grant) but has not been looked at
    /// further: it has not spent a refresh token, issued anything or sent a response. Tests use it to act while a
    /// client is provably waiting for the token endpoint, without guessing a latency.
    package func holdTokenAnswers() {
        state.hold.close()
    }

    /// Lets every held token request answer, and later ones at once. ``shutdown()`` also releases them.
    package func releaseTokenAnswers() {
        state.hold.open()
    }

    /// How many token requests are held now.
    package var heldTokenRequests: Int {
        state.hold.waiting
    }

    /// Returns once `count` token requests are held at the same time.
    ///
    /// - Throws: ``HoldTimeout`` when that does not happen within `limit`, so a request that never arrives fails
    ///   the test instead of hanging it; `CancellationError` when the calling task is cancelled.
    package func waitForHeldTokenRequests(_ count: Int = 1, within limit: Duration = .seconds(60)) async throws {
        try await state.hold.waitUntilWaiting(count, within: limit)
    }

    /// Makes requests to the protected resource that arrive from now on wait, before their token is checked, until
    /// ``releaseResourceAnswers()``: a slow API, whose requests are checked only when they are answered — the
    /// moment their token is looked at is the test's to choose.
    ///
    /// A held request has been counted (``Stats/resourceRequests``) and nothing else.
    package func holdResourceAnswers() {
        state.resourceHold.close()
    }

    /// Lets every held resource request go on, and later ones at once. ``shutdown()`` also releases them.
    package func releaseResourceAnswers() {
        state.resourceHold.open()
    }

    /// Returns once `count` resource requests are held at the same time; throws ``HoldTimeout`` after `limit`.
    package func waitForHeldResourceRequests(_ count: Int = 1, within limit: Duration = .seconds(60)) async throws {
        try await state.resourceHold.waitUntilWaiting(count, within: limit)
    }

    /// Fewer requests than expected were held when the wait's limit ran out.
    package struct HoldTimeout: Error, CustomStringConvertible {
        package let expected: Int
        package let held: Int
        package let limit: Duration
        package var description: String {
            "\(held) of the \(expected) expected requests were held after \(limit)"
        }
    }
}

/// Where held requests wait: open (requests pass) or closed (they wait until it opens).
final class AnswerHold: Sendable {
    private struct State {
        var isOpen = true
        var nextID = 0
        var held: [Int: CheckedContinuation<Void, Never>] = [:]
        var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]

        /// The watchers whose count of held requests is reached, removed from the list.
        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, any Error>] {
            let satisfied = watchers.filter { $0.value.count <= held.count }
            for id in satisfied.keys { watchers[id] = nil }
            return satisfied.values.map(\.continuation)
        }
    }

    private let state = Mutex(State())

    var waiting: Int { state.withLock { $0.held.count } }

    func close() {
        state.withLock { $0.isOpen = false }
    }

    func open() {
        let held = state.withLock { state in
            state.isOpen = true
            defer { state.held = [:] }
            return Array(state.held.values)
        }
        for request in held { request.resume() }
    }

    /// Waits while the hold is closed. A cancelled request (the server shutting down) passes at once.
    func pass() async {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (passes, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, any Error>]) in
                    if state.isOpen || Task.isCancelled { return (true, []) }
                    state.held[id] = continuation
                    return (false, state.takeSatisfiedWatchers())
                }
                for watcher in watchers { watcher.resume() }
                if passes { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.held.removeValue(forKey: id) }?.resume()
        }
    }

    /// Returns once `count` requests are held at the same time; throws ``OAuthTestServer/HoldTimeout`` after
    /// `limit`.
    func waitUntilWaiting(_ count: Int, within limit: Duration) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await self.waitUntilWaiting(count) }
            group.addTask {
                try await Task.sleep(for: limit)
                throw OAuthTestServer.HoldTimeout(expected: count, held: self.waiting, limit: limit)
            }
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// Returns once `count` requests are held at the same time.
    private func waitUntilWaiting(_ count: Int) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.held.count >= count { return .success(()) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.watchers[id] = (count, continuation)
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }
}
