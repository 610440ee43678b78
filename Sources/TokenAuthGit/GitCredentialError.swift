/// What is wrong with a message of git's credential protocol. Never holds a password.
public struct GitCredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable, Equatable {
        case lineWithoutEquals
        case notAURL
        case unsafeValue(String)
    }

    private let code: Code

    /// A line of the input has no `=`: it is not an attribute. (The line is not kept: it may be a secret.)
    static let lineWithoutEquals = GitCredentialError(code: .lineWithoutEquals)
    /// A `url=` attribute git sent is not a URL with a scheme.
    static let notAURL = GitCredentialError(code: .notAURL)
    /// A value of the answer holds a newline, a carriage return or NUL, which would end its line early.
    static func unsafeValue(_ key: String) -> GitCredentialError { .init(code: .unsafeValue(key)) }

    public var description: String {
        switch code {
        case .lineWithoutEquals:
            "git's credential input has a line without '=': this helper reads only key=value lines (git-credential(1))."
        case .notAURL:
            "git's credential input has a url= attribute that is not a URL with a scheme."
        case .unsafeValue(let key):
            "The answer's \(key) holds a line break or NUL; it was not written (git would read extra attributes from it)."
        }
    }
}
