import Foundation

/// Waits until `condition` holds, looking again every 5 ms, for something another task or process updates (a
/// counter, an event stream, a child's output) that offers nothing to await. The one polling wait of the tests:
/// where there is something to await (a `Gate`, a `ManualClock`'s sleepers, a held answer), await it instead.
///
/// - Parameter what: what the test waits for, as a failure names it; evaluated only when the wait runs out, so it
///   may describe the state at that moment (e.g. what a child process printed so far).
/// - Throws: ``WaitTimedOut`` when `condition` still does not hold after `limit`: the test fails, naming `what`
///   it waited for, instead of going on as if it had happened. Never returns without `condition` holding.
package func waitUntil(
    _ what: @autoclosure () -> String,
    within limit: Duration = .seconds(30),
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while try await !condition() {
        guard clock.now < deadline else { throw WaitTimedOut(what: what(), limit: limit) }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A bounded wait ran out: what it waited for did not happen.
package struct WaitTimedOut: Error, CustomStringConvertible {
    package let what: String
    package let limit: Duration
    package var description: String { "waited \(limit) for \(what), in vain" }
}
