/// A transport's own error, named briefly: in words in the library's sentences (`the connection was refused`), with
/// its type and code in logs (`URLError -1004`) — never its description, which may hold a URL with its query.
package protocol NamedTransportFailure: Error {
    /// The error's type and code, for logs and for someone debugging: `URLError -1004`.
    var failureName: String { get }
    /// What went wrong, in words, for a sentence: `the connection was refused`.
    var failureCause: String { get }
}

extension TokenAuthError {
    /// What the transport said went wrong, in words (``NamedTransportFailure/failureCause``), however deep its error
    /// is wrapped; `nil` when no transport error is underneath.
    package var transportCause: String? {
        var cause = underlying
        while let wrapped = cause as? TokenAuthError { cause = wrapped.underlying }
        return (cause as? any NamedTransportFailure)?.failureCause
    }
}
