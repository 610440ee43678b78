import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A one-shot timer that whoever finishes first cancels, so that timers do not pile up.
///
/// Every timer is kept by one watchdog thread (``Deadlines``), never Swift's cooperative pool. Starting a timer
/// wakes that thread only when the new deadline is the earliest, and cancelling one never wakes it: a keyring
/// call, which starts and cancels one each time, costs no thread wake-up for its timer. (A dispatch timer, used
/// before, armed the dispatch manager thread on each start and still fired, emptily, after each cancellation.)
struct Timeout: Sendable {
    private let id: UInt64

    /// Starts a timer that runs `block` after `duration` unless it is cancelled first.
    init(after duration: Duration, _ block: @escaping @Sendable () -> Void) {
        id = Deadlines.shared.add(after: duration, block)
    }

    func cancel() { Deadlines.shared.cancel(id) }
}

/// The deadlines of every ``Timeout``, and the thread that runs each block when its deadline passes.
final class Deadlines: Sendable {
    static let shared = Deadlines()

    private struct Entry {
        let deadline: UInt64
        let block: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var lastID: UInt64 = 0
        /// When the watchdog wakes up by itself next (`UInt64.max`: only when signalled); `nil` before it starts.
        var wakeAt: UInt64?
    }

    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)

    private init() {}

    func add(after duration: Duration, _ block: @escaping @Sendable () -> Void) -> UInt64 {
        let (sum, overflow) = DispatchTime.now().uptimeNanoseconds.addingReportingOverflow(duration.clampedNanoseconds)
        let deadline = overflow ? UInt64.max - 1 : sum
        let (id, start, wake): (UInt64, Bool, Bool) = state.withLock { state in
            state.lastID += 1
            state.entries[state.lastID] = Entry(deadline: deadline, block: block)
            guard let wakeAt = state.wakeAt else {
                state.wakeAt = deadline
                return (state.lastID, true, false)
            }
            return (state.lastID, false, deadline < wakeAt)
        }
        if start {
            // A serial queue of its own: Dispatch gives it a thread however busy its other queues are.
            DispatchQueue(label: "TokenKeyring.timeouts").async { [self] in watch() }
        } else if wake {
            signal.signal()
        }
        return id
    }

    func cancel(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    private func watch() {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let (due, wakeAt): ([Entry], UInt64) = state.withLock { state in
                var due: [Entry] = []
                var earliest = UInt64.max
                for (id, entry) in state.entries {
                    if entry.deadline <= now {
                        due.append(entry)
                        state.entries[id] = nil
                    } else {
                        earliest = min(earliest, entry.deadline)
                    }
                }
                state.wakeAt = due.isEmpty ? earliest : now
                return (due, earliest)
            }
            if !due.isEmpty {
                // In the order of their deadlines, also when this thread woke up late for several.
                for entry in due.sorted(by: { $0.deadline < $1.deadline }) { entry.block() }
                continue
            }
            if wakeAt == .max {
                signal.wait()
            } else {
                _ = signal.wait(timeout: DispatchTime(uptimeNanoseconds: wakeAt))
            }
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds: 0 when negative, at most `Int64.max`.
    var clampedNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
        return nanoseconds <= 0 ? 0 : nanoseconds >= 9.2e18 ? UInt64(Int64.max) : UInt64(nanoseconds)
    }
}
