import Testing
@testable import TokenAuthSignIn

/// The device flow's timing as a value (RFC 8628 §3.5): the interval, slow_down, backoff and the lifetime,
/// without a server or a clock.
@Suite("DevicePollSchedule: when the device flow polls next")
struct DevicePollScheduleTests {
    @Test("the interval is the server's, or 5 s when it names none or a non-positive one")
    func initialInterval() {
        #expect(DevicePollSchedule(interval: .seconds(7), lifetime: .seconds(600)).interval == .seconds(7))
        #expect(DevicePollSchedule(interval: nil, lifetime: .seconds(600)).interval == .seconds(5))
        #expect(DevicePollSchedule(interval: .zero, lifetime: .seconds(600)).interval == .seconds(5))
        #expect(DevicePollSchedule(interval: .seconds(-3), lifetime: .seconds(600)).interval == .seconds(5))
    }

    @Test("slow_down adds 5 s for good; pending keeps the interval")
    func slowDown() {
        var schedule = DevicePollSchedule(interval: .seconds(5), lifetime: .seconds(600))
        schedule.record(.slowDown(interval: nil))
        schedule.record(.pending)
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(10))
        schedule.record(.slowDown(interval: nil))
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(15))
    }

    @Test("slow_down naming an interval (GitHub's) sets it when longer than 5 s more; never past 60 s")
    func slowDownNamingInterval() {
        var schedule = DevicePollSchedule(interval: .seconds(5), lifetime: .seconds(600))
        schedule.record(.slowDown(interval: .seconds(20)))
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(20))
        schedule.record(.slowDown(interval: .seconds(21)))
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(25), "5 s more is longer than the one named")
        schedule.record(.slowDown(interval: .seconds(86_400)))
        #expect(schedule.interval == .seconds(60))
    }

    @Test("transient failures double the wait, up to 64 times; an answer ends the run")
    func backoff() {
        var schedule = DevicePollSchedule(interval: .seconds(5), lifetime: .seconds(100_000))
        schedule.record(.transientFailure)
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(10))
        schedule.record(.transientFailure)
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(20))
        for _ in 0..<10 { schedule.record(.transientFailure) }
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(320))
        schedule.record(.pending)
        #expect(schedule.nextWait(elapsed: .zero) == .seconds(5))
        #expect(schedule.interval == .seconds(5))
    }

    @Test("no poll is scheduled at or after the lifetime")
    func lifetime() {
        let schedule = DevicePollSchedule(interval: .seconds(5), lifetime: .seconds(12))
        #expect(schedule.nextWait(elapsed: .seconds(6)) == .seconds(5))
        #expect(schedule.nextWait(elapsed: .seconds(7)) == nil)
        #expect(schedule.nextWait(elapsed: .seconds(10)) == nil)
    }
}
