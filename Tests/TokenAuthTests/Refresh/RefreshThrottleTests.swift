import Foundation
import Testing
@testable import TokenAuth

@Suite("RefreshThrottle, on plain dates")
struct RefreshThrottleTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func throttle(limit: Int = 3, window: Duration = .seconds(30), jitter: Bool = false) -> RefreshThrottle {
        RefreshThrottle(limit: limit, window: window, backoff: Backoff(initial: .seconds(1), maximum: .seconds(8), jitter: jitter))
    }

    func fail(_ throttle: inout RefreshThrottle, at date: Date, retryAfter: Duration? = nil, random: Double = 1) -> TokenAuthError {
        throttle.recordFailure(at: date, retryAfter: retryAfter, random: { _ in random }) { delay in
            TokenAuthError.serverError.retrying(after: delay)
        }
    }

    @Test("admits `limit` refreshes within the window, refuses the next, and admits again once the oldest left it")
    func window() {
        var throttle = throttle()
        let admitted = [0, 10, 20, 29, 30].map { throttle.admit(at: start.addingTimeInterval($0)) }
        // The fourth is refused and not recorded; at 30 s the first is exactly 30 s old and out of the window.
        #expect(admitted == [true, true, true, false, true])
        #expect(throttle.recentStarts.count == 3)
    }

    @Test("backoff doubles per consecutive failure up to the maximum, and a success resets it")
    func exponential() {
        var throttle = throttle()
        var delays: [Duration?] = []
        var now = start
        for _ in 0..<5 {
            let error = fail(&throttle, at: now)
            delays.append(error.retryAfter)
            now = now.addingTimeInterval(100)
        }
        #expect(delays == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8)])
        throttle.reset()
        #expect(throttle.consecutiveFailures == 0 && throttle.notBefore == nil && throttle.lastFailure == nil)
        #expect(fail(&throttle, at: now).retryAfter == .seconds(1))
    }

    @Test("jitter draws each wait from [d/2, d]")
    func jitter() {
        var throttle = throttle(jitter: true)
        #expect(fail(&throttle, at: start, random: 0.5).retryAfter == .milliseconds(500))
        #expect(fail(&throttle, at: start, random: 0.75).retryAfter == .milliseconds(1500))
    }

    @Test("Retry-After wins when longer than the backoff, not when shorter")
    func retryAfter() {
        var throttle = throttle()
        #expect(fail(&throttle, at: start, retryAfter: .seconds(120)).retryAfter == .seconds(120))
        #expect(fail(&throttle, at: start, retryAfter: .milliseconds(10)).retryAfter == .seconds(2))
    }

    @Test("while backing off it answers with the last failure and the time left; after notBefore, nothing")
    func backingOff() throws {
        var throttle = throttle()
        #expect(throttle.backingOff(at: start) == nil)
        _ = fail(&throttle, at: start, retryAfter: .seconds(10))
        let blocked = try #require(throttle.backingOff(at: start.addingTimeInterval(4)))
        #expect(blocked.isTransient)
        #expect(blocked.retryAfter == .seconds(6))
        #expect(blocked.code == .backingOff)
        #expect((blocked.underlying as? TokenAuthError)?.code == .serverError)
        #expect(blocked.reason.contains("server problem"))
        #expect(throttle.backingOff(at: start.addingTimeInterval(10)) == nil)
    }
}
