#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging

/// How both executables set up logging.
package enum TokenctlLogging {
    /// Library logs on stderr, quiet unless TOKENCTL_LOG_LEVEL asks for them (e.g. `debug`): errors are reported as
    /// one sentence each, and the logs of the refresher would repeat them. Logs never contain tokens.
    package static func bootstrap() {
        // getenv, not ProcessInfo's environment: that copies every variable into a dictionary on each start.
        let level = getenv("TOKENCTL_LOG_LEVEL").flatMap { Logger.Level(rawValue: String(cString: $0)) }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level ?? .critical
            return handler
        }
    }
}
