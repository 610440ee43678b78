import ArgumentParser
import Foundation
import Keyring
import TokenAuth
import TokenCtlFastPath

/// tokenctl's documented exit codes (``ExitStatus``), as the argument parser's type.
package enum Exit {
    package static let noCredentials = ExitCode(ExitStatus.noCredentials)
    package static let keyring = ExitCode(ExitStatus.keyring)
    package static let usage = ExitCode(ExitStatus.usage)
    package static let badInput = ExitCode(ExitStatus.badInput)
    package static let transient = ExitCode(ExitStatus.transient)
    package static let httpStatus = ExitCode(ExitStatus.httpStatus)
}

/// A failure with its own sentence and exit code.
package struct Failure: Error {
    package let message: String
    package let exitCode: ExitCode

    package init(message: String, exitCode: ExitCode) {
        self.message = message
        self.exitCode = exitCode
    }

    /// Nothing is stored for `item`: every command that needs its tokens says this, in the same words, with both ways
    /// to get some — signing in, or storing tokens one has.
    static func noCredentials(_ item: ItemOptions) -> Failure {
        let names = "--service \(ShellWord.quoted(item.service)) --account \(ShellWord.quoted(item.account))"
        return Failure(
            message: "No credentials are stored for account \"\(item.account)\" on service \"\(item.service)\". "
                + "Sign in with `tokenctl login \(names) …`, or store tokens you have with `tokenctl import \(names)` "
                + "(on standard input).",
            exitCode: Exit.noCredentials)
    }

    /// No account at all is stored for `service`: the same fixes as ``noCredentials(_:)``.
    static func noAccounts(of service: String) -> Failure {
        let word = ShellWord.quoted(service)
        return Failure(
            message: "No accounts are stored for service \"\(service)\". Sign in with `tokenctl login --service "
                + "\(word) --account NAME …`, or store tokens you have with `tokenctl import --service \(word) "
                + "--account NAME` (on standard input).",
            exitCode: Exit.noCredentials)
    }

    /// No Secret Service is reachable where `command` (`login`, `import`) would store in the keyring: the keyring's
    /// sentence, with its secure fixes, and the explicit alternative.
    static func noSecretService(_ error: KeyringError, command: String, item: ItemOptions) -> Failure {
        Failure(
            message: error.description + " Nothing was stored. Where no keyring can run, `tokenctl \(command) "
                + "--insecure-storage` stores the tokens unencrypted in a file only you can open "
                + "(\(item.fileStore.path)), readable by any program running as you — knowingly, as `gh auth login "
                + "--insecure-storage` does.",
            exitCode: Exit.keyring)
    }

    package static func badInput(_ message: String) -> Failure { Failure(message: message, exitCode: Exit.badInput) }

    package static func usage(_ message: String) -> Failure { Failure(message: message, exitCode: Exit.usage) }
}

/// Runs a command body, turning library errors into one sentence on stderr and a documented exit code.
package func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw reported(error)
    }
}

/// Writes `error`'s sentence on stderr and returns the exit code to end with; an error tokenctl does not know is
/// returned as it is.
func reported(_ error: any Error) -> any Error {
    switch error {
    case let failure as Failure:
        Terminal.error(failure.message)
        return failure.exitCode
    case let error as KeyringError:
        Terminal.error(error.report)
        return Exit.keyring
    case let error as TokenAuthError:
        Terminal.error(error.description + advice(for: error) + codes(of: error))
        return Exit.status(of: error)
    default:
        guard let failure = TokenCtl.signIn.failure(for: error) else { return error }
        Terminal.error(failure.message + codes(of: error))
        return failure.exitCode
    }
}

/// With ``TokenctlLogging/showsCodes``, the error's type and code, and the transport's (`URLError -1004`), which its
/// sentence names only in words: ` [TokenAuthError.networkFailure (URLError -1004)]`.
private func codes(of error: any Error) -> String {
    TokenctlLogging.showsCodes ? " [\(LogRedaction.error(error))]" : ""
}

extension Exit {
    /// The exit status of each code of `TokenAuthError`: tokenctl's one table. A code missing here (added to the
    /// library later) exits 5 when it is transient, else 64.
    static let byCode: [TokenAuthError.Code: ExitCode] = [
        // A sign-in is needed.
        .rejected: noCredentials, .noCredentials: noCredentials, .signedOut: noCredentials,
        .sessionEnded: noCredentials, .identityMismatch: noCredentials, .missing: noCredentials,
        // The tokens were kept; later may work.
        .serverError: transient, .rateLimited: transient, .networkFailure: transient, .timedOut: transient,
        .malformedResponse: transient, .backingOff: transient, .excessiveRefresh: transient,
        .identityUnavailable: transient, .superseded: transient, .responseTooLarge: transient,
        .invalidResponse: transient, .lockTimedOut: transient,
        // The file store (--insecure-storage) cannot be used, like a keyring that cannot; a refresh's answer the store
        // did not take (kept for the next call); a lock that cannot be taken where it must be.
        .storageFailed: keyring, .notStored: keyring, .lockUnavailable: keyring,
        // An endpoint, client or URL that cannot be used as configured: signing in again would meet the same.
        .insecureEndpoint: usage, .redirected: usage, .invalidClientConfiguration: usage, .invalidRequest: usage,
        .identityUntrusted: usage, .insecureURL: usage,
        // A stored item that cannot be read.
        .corrupt: badInput, .unsupportedVersion: badInput,
        // An authorized request the server refused.
        .unauthorized: httpStatus, .insufficientScope: httpStatus, .unacceptableStatus: httpStatus,
        .decodingFailed: httpStatus,
    ]

    static func status(of error: TokenAuthError) -> ExitCode {
        byCode[error.code] ?? (error.isTransient ? transient : usage)
    }
}

/// What tokenctl adds to a library's sentence: the commands that fix it.
private func advice(for error: TokenAuthError) -> String {
    if error.isLoginRequired {
        return " With tokenctl: `tokenctl login` (or `tokenctl import` for tokens you have)."
    }
    if error.code == .corrupt || error.code == .unsupportedVersion {
        return " With tokenctl: replace them with `tokenctl import` (or `tokenctl login`), or remove them with "
            + "`tokenctl delete`."
    }
    return ""
}
