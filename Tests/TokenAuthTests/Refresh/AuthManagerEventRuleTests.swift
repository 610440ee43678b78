import Foundation
import Testing
import TokenAuth
import TokenAuthTesting

/// The stream of events: one of its own for every consumer.
@Suite("AuthManager rules, with the testing doubles: events", .timeLimit(.minutes(1)))
struct AuthManagerEventRuleTests: AuthManagerRules {
    let clock = ManualWallClock()

    @Test("events: every consumer has a stream of its own, and each sees every event")
    func eventsHaveManyConsumers() async throws {
        let (_, _, manager) = parts()
        let (first, second) = (manager.events, manager.events)
        #expect(try await manager.validToken() == "access-1")
        for stream in [first, second] {
            var seen: [AuthEvent] = []
            for await event in stream {
                seen.append(event)
                if event == .saved { break }
            }
            #expect(seen.contains(.refreshStarted) && seen.contains(.refreshSucceeded), "\(seen)")
        }
    }
}
