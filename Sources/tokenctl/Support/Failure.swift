import ArgumentParser
import Foundation
import Keyring
import TokenAuth
import TokenAuthSignIn

/// tokenctl's documented exit codes.
enum Exit {
    static let noCredentials = ExitCode(3)
    static let keyring = ExitCode(4)
    static let usage = ExitCode(64)
    static let badInput = ExitCode(65)
    static let transient = ExitCode(5)
    static let httpStatus = ExitCode(6)
}

/// A failure with its own sentence and exit code.
struct Failure: Error {
    let message: String
    let exitCode: ExitCode

    static func noCredentials(_ item: ItemOptions) -> Failure {
        Failure(
            message: "No credentials are stored for account \"\(item.account)\" on service \"\(item.service)\". "
                + "Store some with `tokenctl import --service \(item.service) --account \(item.account)` (tokens on stdin).",
            exitCode: Exit.noCredentials)
    }

    static func badInput(_ message: String) -> Failure { Failure(message: message, exitCode: Exit.badInput) }

    static func usage(_ message: String) -> Failure { Failure(message: message, exitCode: Exit.usage) }
}

/// Runs a command body, turning library errors into one sentence on stderr and a documented exit code.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as Failure {
        Terminal.error(failure.message)
        throw failure.exitCode
    } catch let error as KeyringError {
        let advice = error.code == .timedOut || error.code == .other || error.code == .serviceUnavailable
            ? " Run `tokenctl doctor` to check the keyring set-up step by step." : ""
        Terminal.error(error.description + advice)
        throw Exit.keyring
    } catch let error as TokenAuthError {
        Terminal.error(error.description + advice(for: error))
        throw Exit.status(of: error)
    } catch let error as SignInError {
        Terminal.error(error.description)
        throw Exit.status(of: error)
    }
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
        .invalidResponse: transient, .lockTimedOut: transient, .lockUnavailable: transient,
        // An endpoint, client or URL that cannot be used as configured: signing in again would meet the same.
        .insecureEndpoint: usage, .redirected: usage, .invalidClientConfiguration: usage, .invalidRequest: usage,
        .identityUntrusted: usage, .insecureURL: usage,
        // A stored item that cannot be read.
        .corrupt: badInput, .unsupportedVersion: badInput,
        // An authorized request the server refused.
        .unauthorized: httpStatus, .insufficientScope: httpStatus, .unacceptableStatus: httpStatus,
        .decodingFailed: httpStatus,
    ]

    /// The exit status of each code of `SignInError`, in the same table. A code missing here exits 5 when it is
    /// transient, 64 when it is a misconfiguration, else 3.
    static let bySignInCode: [SignInError.Code: ExitCode] = [
        // Declined, refused, expired, or an answer that cannot be trusted: nothing was stored; sign in again.
        .denied: noCredentials, .rejected: noCredentials, .codeExpired: noCredentials,
        .responseIssuerMismatch: noCredentials, .missingIDToken: noCredentials, .malformedIDToken: noCredentials,
        .unsupportedAlgorithm: noCredentials, .unknownKey: noCredentials, .badSignature: noCredentials,
        .wrongIssuer: noCredentials, .wrongAudience: noCredentials, .wrongAuthorizedParty: noCredentials,
        .idTokenExpired: noCredentials, .issuedInFuture: noCredentials, .nonceMismatch: noCredentials,
        .subjectChanged: noCredentials, .userinfoInvalid: noCredentials, .userinfoSubjectMismatch: noCredentials,
        // Later may work.
        .unavailable: transient, .timedOut: transient, .malformedResponse: transient, .jwksUnavailable: transient,
        .keyNotYetFetched: transient, .userinfoUnavailable: transient,
        // The issuer, client or server cannot be used as configured.
        .insecureIssuer: usage, .invalidIssuer: usage, .metadataNotFound: usage, .redirected: usage,
        .metadataNotJSON: usage, .issuerMismatch: usage, .missingEndpoint: usage, .insecureEndpoint: usage,
        .responseTooLarge: usage, .noAuthorizationEndpoint: usage, .pkceUnsupported: usage, .invalidRedirect: usage,
        .jwksMisconfigured: usage, .noGraphicalSession: usage, .browserNotStarted: usage,
    ]

    static func status(of error: TokenAuthError) -> ExitCode {
        byCode[error.code] ?? (error.isTransient ? transient : usage)
    }

    static func status(of error: SignInError) -> ExitCode {
        // A listener on an ephemeral port may work later; on a fixed port, the port has to change.
        if error.code == .listenerUnavailable { return error.isTransient ? transient : usage }
        return bySignInCode[error.code] ?? (error.isTransient ? transient : error.isMisconfiguration ? usage : noCredentials)
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

/// Where output goes: data on stdout, messages on stderr.
enum Terminal {
    /// A progress or state message: on stderr, and only when stderr is a terminal.
    static func status(_ message: String) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    /// An instruction the user needs (a URL to open, a code to enter): on stderr, always.
    static func say(_ message: String) {
        FileHandle.standardError.write(Data("\(message)\n".utf8))
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data("tokenctl: \(message)\n".utf8))
    }

    /// Reads all of standard input, refusing more than `limit` bytes.
    static func readStandardInput(limit: Int = 64 * 1024) throws -> String {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard data.count <= limit else { throw Failure.badInput("Standard input is larger than \(limit) bytes.") }
        guard let text = String(data: data, encoding: .utf8) else { throw Failure.badInput("Standard input is not UTF-8 text.") }
        return text
    }

    /// Reads secrets from standard input, one per line, in the order given by `names`.
    ///
    /// From a terminal each is prompted for on stderr with echo turned off; from a pipe or file, line `i` is the
    /// secret `names[i]`, and `remainder` asks for everything after those lines as well (for tokens after a
    /// client secret). A secret is never echoed or printed.
    static func readSecrets(_ names: [String], remainder: Bool = false) throws -> (secrets: [String], rest: String) {
        if isatty(STDIN_FILENO) == 1 {
            let secrets = try names.map { try promptHidden($0) }
            return (secrets, remainder ? try readStandardInput() : "")
        }
        let text = try readStandardInput()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var secrets: [String] = []
        for name in names {
            guard !lines.isEmpty else { throw Failure.badInput("Standard input ended before the \(name).") }
            var line = lines.removeFirst()
            if line.hasSuffix("\r") { line.removeLast() }
            guard !line.isEmpty else { throw Failure.badInput("The \(name) on standard input is empty.") }
            secrets.append(line)
        }
        let rest = lines.joined(separator: "\n")
        if !remainder, !rest.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw Failure.badInput(
                "Standard input has more lines than expected: give \(names.joined(separator: ", then ")), one per line.")
        }
        return (secrets, rest)
    }

    /// Prompts on stderr and reads one line from the terminal with echo off.
    private static func promptHidden(_ name: String) throws -> String {
        FileHandle.standardError.write(Data("\(name.prefix(1).uppercased() + name.dropFirst()): ".utf8))
        var saved = termios()
        let canHide = tcgetattr(STDIN_FILENO, &saved) == 0
        if canHide {
            var hidden = saved
            hidden.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSAFLUSH, &hidden)
        }
        defer {
            if canHide { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
            FileHandle.standardError.write(Data("\n".utf8))
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw Failure.badInput("No \(name) was entered.")
        }
        return line
    }

    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
