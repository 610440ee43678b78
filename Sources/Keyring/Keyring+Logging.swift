import Logging

extension Keyring {
    /// Runs the public call `operation` on the item with `attributes` and logs it: at trace level when it starts,
    /// at debug level when it ends, with its duration and `outcome` — or the ``KeyringError`` code it threw.
    ///
    /// An item is named by its attribute keys and its `service` and `account` values, never by other values
    /// (another tool's attributes could hold anything) and never by its secret.
    func logged<T>(
        _ operation: String,
        _ attributes: [String: String],
        outcome: (T) -> String,
        _ body: () async throws -> T
    ) async throws -> T {
        // Nothing to describe when neither line would be written: the metadata costs microseconds a call.
        guard logger.logLevel <= .debug else { return try await body() }
        var item: Logger.Metadata = ["attributes": "\(attributes.keys.sorted().joined(separator: ","))"]
        for key in ["service", "account"] {
            if let value = attributes[key] { item[key] = "\(value)" }
        }
        logger.trace("keyring \(operation)", metadata: item)
        let clock = ContinuousClock()
        let start = clock.now
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        item["duration"] = "\(clock.now - start)"
        switch result {
        case .success(let value):
            item["outcome"] = "\(outcome(value))"
        case .failure(let error as KeyringError):
            item["outcome"] = "failed: \(error.code)"
        case .failure(let error):
            item["outcome"] = "failed: \(type(of: error))"
        }
        logger.debug("keyring \(operation) done", metadata: item)
        return try result.get()
    }
}
