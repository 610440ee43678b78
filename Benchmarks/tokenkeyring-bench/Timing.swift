#if canImport(Glibc)
import Glibc
#endif

/// Wall and CPU time, the two clocks the figures read.
enum Timing {
    /// Runs `body` and returns its result with the wall time it took, in seconds.
    static func measure<T>(_ body: () async throws -> T) async rethrows -> (T, seconds: Double) {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try await body()
        return (result, (clock.now - start).seconds)
    }

    /// CPU time used by this process so far, all threads together, in seconds.
    static func processCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}

extension Duration {
    /// The duration in (fractional) seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in (fractional) milliseconds.
    var milliseconds: Double { seconds * 1000 }
}
