import Logging

extension OAuthTestServer {
    /// The least severe server log message written, so callers need not import swift-log.
    package enum LogLevel: String, Sendable, CaseIterable {
        /// Everything, including per-request tracing.
        case trace
        /// Debugging detail.
        case debug
        /// Informational messages, such as the address the server listens on.
        case info
        /// Notable events.
        case notice
        /// Problems the server recovered from; the default.
        case warning
        /// Failures of single requests or connections.
        case error
        /// Only failures of the whole server.
        case critical

        var loggerLevel: Logger.Level {
            switch self {
            case .trace: .trace
            case .debug: .debug
            case .info: .info
            case .notice: .notice
            case .warning: .warning
            case .error: .error
            case .critical: .critical
            }
        }
    }
}
