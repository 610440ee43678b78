import Foundation

/// Waits until `condition` holds, looking again every 5 ms, for something another task updates (a counter, an
/// event stream) that offers nothing to await.
///
/// - Throws: ``WaitTimedOut`` when `condition` still does not hold after `limit`: the test fails, naming `what`
///   it waited for, instead of going on as if it had happened.
package func waitUntil(
    _ what: String,
    within limit: Duration = .seconds(30),
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () async -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while await !condition() {
        guard clock.now < deadline else { throw WaitTimedOut(what: what, limit: limit) }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// A bounded wait ran out: what it waited for did not happen.
package struct WaitTimedOut: Error, CustomStringConvertible {
    package let what: String
    package let limit: Duration
    package var description: String { "waited \(limit) for \(what), in vain" }
}
