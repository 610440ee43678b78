import Logging
import Synchronization

/// Keeps every line logged through the loggers it makes, at trace level, for tests of what the library logs.
///
/// Inject ``logger(_:)`` into each component instead of bootstrapping swift-log: `LoggingSystem.bootstrap` is
/// process-wide and works once, and tests run in parallel.
package final class LogCapture: Sendable {
    /// One logged line.
    package struct Line: Sendable, CustomStringConvertible {
        package let label: String
        package let level: Logger.Level
        package let message: String
        package let metadata: [String: String]
        /// The error attached to the line, as text.
        package let error: String?

        /// The label, level, message, every metadata key and value, and the error.
        package var description: String {
            ([label, "\(level)", message] + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                + [error].compactMap { $0 }).joined(separator: " ")
        }
    }

    private let captured = Mutex<[Line]>([])

    package init() {}

    /// The lines so far, oldest first.
    package var lines: [Line] { captured.withLock { $0 } }

    /// A logger at trace level whose lines this capture keeps.
    package func logger(_ label: String) -> Logger {
        var logger = Logger(label: label) { label in Handler(label: label, capture: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ line: Line) {
        captured.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        let label: String
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append(Line(
                label: label, level: event.level, message: "\(event.message)", metadata: all.mapValues { "\($0)" },
                error: event.error.map { String(reflecting: $0) }))
        }
    }
}
