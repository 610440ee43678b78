import Dispatch
import Synchronization

/// A global actor whose jobs wait until the test lets them run: the stand-in for an app's main actor that is busy,
/// or that — as under GLib's loop on Linux — nothing runs at all. Deterministic: nothing sleeps, and a test knows
/// when a job is waiting (``HeldExecutor/waitUntilHeld(_:)``).
@globalActor
actor HeldActor {
    static let shared = HeldActor()
    static let executor = HeldExecutor()

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }

    /// Returns once every job enqueued on the actor before it has run: the executor runs jobs in order.
    @HeldActor static func drain() {}
}

/// A serial executor that runs its jobs in order on a queue of its own, except while held: then it keeps them until
/// ``release()``.
final class HeldExecutor: SerialExecutor {
    private struct State {
        var isHeld = false
        var held: [UnownedJob] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "HeldExecutor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let reached = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.isHeld else {
                run(job)
                return []
            }
            state.held.append(job)
            let count = state.held.count
            defer { state.watchers.removeAll { $0.count <= count } }
            return state.watchers.filter { $0.count <= count }.map(\.continuation)
        }
        for watcher in reached { watcher.resume() }
    }

    /// Keeps jobs from now on until ``release()``.
    func hold() {
        state.withLock { $0.isHeld = true }
    }

    /// Runs the kept jobs, in order, and later ones as they come.
    func release() {
        state.withLock { state in
            state.isHeld = false
            for job in state.held { run(job) }
            state.held = []
        }
    }

    /// Returns once `count` jobs are kept.
    func waitUntilHeld(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state -> Bool in
                if state.held.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }

    /// Hands `job` to the queue; called under the lock, so jobs reach the queue in the order they came.
    private func run(_ job: UnownedJob) {
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
