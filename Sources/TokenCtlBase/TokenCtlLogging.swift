#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging

/// How both executables set up logging.
package enum TokenCtlLogging {
    /// Library logs on stderr, quiet unless TOKENCTL_LOG_LEVEL asks for them (e.g. `debug`): errors are reported as
    /// one sentence each, and the logs of the refresher would repeat them. Logs never contain tokens.
    package static func bootstrap() {
        let level = requestedLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level ?? .critical
            return handler
        }
    }

    /// Whether errors are followed by the codes they came from (a URLError's number, GLib's domain and code): with
    /// TOKENCTL_LOG_LEVEL at `debug` or `trace`, for someone debugging. The sentences name causes in words.
    package static var showsCodes: Bool {
        requestedLevel.map { $0 <= .debug } ?? false
    }

    /// TOKENCTL_LOG_LEVEL as a level; `nil` when it is not set or names none.
    private static var requestedLevel: Logger.Level? {
        // getenv, not ProcessInfo's environment: that copies every variable into a dictionary on each start.
        getenv("TOKENCTL_LOG_LEVEL").flatMap { Logger.Level(rawValue: String(cString: $0)) }
    }
}
