import Dispatch

/// A one-shot timer that whoever finishes first cancels, so that timers do not pile up.
///
/// Runs on a serial dispatch queue of its own, never on Swift's cooperative pool.
///
/// `@unchecked Sendable` is safe: `DispatchWorkItem.cancel()` is thread-safe (libdispatch sets the
/// cancellation flag atomically), and `item` is never reassigned.
struct Timeout: @unchecked Sendable {
    private static let queue = DispatchQueue(label: "TokenKeyring.Keyring.timeouts")
    private let item: DispatchWorkItem

    /// Starts a timer that runs `block` after `duration` unless it is cancelled first.
    init(after duration: Duration, _ block: @escaping @Sendable () -> Void) {
        item = DispatchWorkItem(block: block)
        Self.queue.asyncAfter(deadline: .now() + duration.dispatchInterval, execute: item)
    }

    func cancel() { item.cancel() }
}

extension Duration {
    var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        return .nanoseconds(Int(clamping: seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}
