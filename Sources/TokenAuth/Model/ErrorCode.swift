/// The kind of an error of type `Domain`, as its `code`: compare it with the static members the error type declares
/// (`error.code == .redirected`), or switch over it with a `default` — kinds may be added without breaking callers.
public struct ErrorCode<Domain>: Sendable, Hashable, CustomStringConvertible {
    /// The kind's name.
    public let description: String

    package init(_ name: String) {
        description = name
    }
}
