import ArgumentParser
import Foundation
import Keyring
import TokenAuth
import TokenAuthSignIn
import TokenCtlBase

extension ExitCode {
    /// One of tokenctl's documented statuses, as the argument parser ends with it.
    package init(_ status: ExitStatus) {
        self.init(status.rawValue)
    }
}

/// A failure with its own sentence and exit status.
package struct Failure: Error {
    package let message: String
    package let status: ExitStatus

    package init(message: String, status: ExitStatus) {
        self.message = message
        self.status = status
    }

    /// Nothing is stored for `item`: every command that needs its tokens says this, in the same words, with both ways
    /// to get some — signing in, or storing tokens one has.
    static func noCredentials(_ item: ItemOptions) -> Failure {
        let names = "--service \(ShellWord.quoted(item.service)) --account \(ShellWord.quoted(item.account))"
        return Failure(
            message: "No credentials are stored for account \"\(item.account)\" on service \"\(item.service)\". "
                + "Sign in with `tokenctl login \(names) …`, or store tokens you have with `tokenctl import \(names)` "
                + "(on standard input).",
            status: .loginRequired)
    }

    /// No account at all is stored for `service`: the same fixes as ``noCredentials(_:)``.
    static func noAccounts(of service: String) -> Failure {
        let word = ShellWord.quoted(service)
        return Failure(
            message: "No accounts are stored for service \"\(service)\". Sign in with `tokenctl login --service "
                + "\(word) --account NAME …`, or store tokens you have with `tokenctl import --service \(word) "
                + "--account NAME` (on standard input).",
            status: .loginRequired)
    }

    /// No Secret Service is reachable where `command` (`login`, `import`) would store in the keyring: the keyring's
    /// sentence, with its secure fixes, and the explicit alternative.
    static func noSecretService(_ error: KeyringError, command: String, item: ItemOptions) -> Failure {
        Failure(
            message: error.description + " Nothing was stored. Where no keyring can run, `tokenctl \(command) "
                + "--insecure-storage` stores the tokens unencrypted in a file only you can open "
                + "(\(item.fileStore.path)), readable by any program running as you — knowingly, as `gh auth login "
                + "--insecure-storage` does.",
            status: .storageFailure)
    }

    package static func badInput(_ message: String) -> Failure { Failure(message: message, status: .badInput) }

    package static func usage(_ message: String) -> Failure { Failure(message: message, status: .usage) }
}

/// Runs a command body, turning library errors into one sentence on stderr and a documented exit code.
package func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        throw reported(error)
    }
}

/// Writes `error`'s sentence on stderr and returns the exit code to end with — for a library's error, the status of
/// its category (``ExitStatus/init(_:)``); an error tokenctl does not know is returned as it is.
func reported(_ error: any Error) -> any Error {
    switch error {
    case let failure as Failure:
        Terminal.error(failure.message)
        return ExitCode(failure.status)
    case let error as KeyringError:
        Terminal.error(error.report)
        return ExitCode(ExitStatus(error))
    case let error as TokenAuthError:
        Terminal.error(error.description + advice(for: error) + codes(of: error))
        return ExitCode(ExitStatus(error))
    case let error as SignInError:
        Terminal.error(error.description + codes(of: error))
        return ExitCode(ExitStatus(error))
    default:
        return error
    }
}

/// With ``TokenCtlLogging/showsCodes``, the error's type and code, and the transport's (`URLError -1004`), which its
/// sentence names only in words: ` [TokenAuthError.networkFailure (URLError -1004)]`.
private func codes(of error: any Error) -> String {
    TokenCtlLogging.showsCodes ? " [\(LogRedaction.error(error))]" : ""
}

extension SignInError: CategorizedError {}

/// What tokenctl adds to a library's sentence: the commands that fix it.
private func advice(for error: TokenAuthError) -> String {
    if error.isLoginRequired {
        return " With tokenctl: `tokenctl login` (or `tokenctl import` for tokens you have)."
    }
    if error.isUnreadableEntry {
        return " With tokenctl: replace them with `tokenctl import` (or `tokenctl login`), or remove them with "
            + "`tokenctl delete`."
    }
    return ""
}
