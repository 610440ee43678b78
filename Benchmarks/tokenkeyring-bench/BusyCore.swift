import Foundation
import Synchronization

/// A thread that keeps one core busy until stopped: the "busy machine" variant of figure 4 runs beside it, so that
/// the benchmark itself supplies the competing load instead of hoping for some.
final class BusyCore: Sendable {
    private let stopped = Atomic(false)

    /// Starts the spinning thread.
    init() {
        Thread.detachNewThread { [self] in
            var value: UInt64 = 0x9E37_79B9_7F4A_7C15
            while !stopped.load(ordering: .relaxed) {
                for _ in 0..<10_000 { value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
            }
            // Keeps the loop from being optimised away.
            if value == 42 { print("") }
        }
    }

    /// Stops the thread; it ends within microseconds.
    func stop() {
        stopped.store(true, ordering: .relaxed)
    }
}
