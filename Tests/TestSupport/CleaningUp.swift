/// Runs `body`, then `cleanup`, and waits for both — also when `body` throws. The one scope of the tests: keyring
/// items, collections, servers and fixtures end through it.
///
/// A clean-up left to run on its own (`defer { Task { … } }`) may not have run when the test process exits —
/// `scripts/test` fails when a run leaves a keyring item behind — and may still be running while the next test
/// starts: deleting an item while the next test locks the collection, or stopping a server while the next one binds.
@discardableResult
package func cleaningUp<T>(
    _ cleanup: () async -> Void,
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async throws -> T
) async throws -> T {
    let result: Result<T, any Error>
    do { result = .success(try await body()) } catch { result = .failure(error) }
    await cleanup()
    return try result.get()
}
