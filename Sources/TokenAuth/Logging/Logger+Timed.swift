import Logging

extension Logger {
    /// Runs `body` and logs it: `OPERATION started` at trace level, then `OPERATION finished` or `OPERATION failed`
    /// at debug level with its duration and its outcome (`outcome` of the value, or the error's type and code).
    ///
    /// - Parameters:
    ///   - operation: What is called, e.g. `token request`.
    ///   - metadata: On which item or URL; it must hold no secret (see ``LogRedaction``).
    ///   - outcome: Metadata describing a success; it must hold no secret.
    package func timed<T>(
        _ operation: String,
        _ metadata: Metadata,
        outcome: (T) -> Metadata = { _ in [:] },
        _ body: () async throws -> T
    ) async throws -> T {
        trace("\(operation) started", metadata: metadata)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let value = try await body()
            var finished = metadata.merging(outcome(value)) { $1 }
            finished["duration"] = "\(clock.now - start)"
            debug("\(operation) finished", metadata: finished)
            return value
        } catch {
            var failed = metadata
            failed["error"] = "\(LogRedaction.error(error))"
            failed["duration"] = "\(clock.now - start)"
            debug("\(operation) failed", metadata: failed)
            throw error
        }
    }
}
