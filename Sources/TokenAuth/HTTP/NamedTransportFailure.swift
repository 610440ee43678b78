/// A transport's own error, named briefly in the library's sentences (`URLError -1004`): never its description, which
/// may hold a URL with its query.
package protocol NamedTransportFailure: Error {
    /// The error's type and code.
    var failureName: String { get }
}
