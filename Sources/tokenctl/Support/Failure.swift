import ArgumentParser
import Foundation
import Keyring
import TokenAuth

/// tokenctl's documented exit codes.
enum Exit {
    static let noCredentials = ExitCode(3)
    static let keyring = ExitCode(4)
    static let usage = ExitCode(64)
    static let badInput = ExitCode(65)
    static let transient = ExitCode(5)
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
}

/// Runs a command body, turning library errors into one sentence on stderr and a documented exit code.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as Failure {
        Terminal.error(failure.message)
        throw failure.exitCode
    } catch let error as KeyringError {
        Terminal.error(error.description)
        throw Exit.keyring
    } catch let error as AuthStoreError {
        Terminal.error(error.description)
        throw Exit.badInput
    } catch let error as AuthError {
        Terminal.error(error.description)
        throw error.isLoginRequired ? Exit.noCredentials : Exit.transient
    } catch let error as FileRefreshLock.Failure {
        Terminal.error(error.description + " Try again.")
        throw Exit.transient
    }
}

/// Where output goes: data on stdout, messages on stderr.
enum Terminal {
    /// A progress or state message: on stderr, and only when stderr is a terminal.
    static func status(_ message: String) {
        guard isatty(STDERR_FILENO) == 1 else { return }
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

    static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
