import Foundation
import TokenAuth
import TokenCtlBase

/// Where output goes: data on stdout, messages on stderr.
///
/// Every message on stderr passes ``printable(_:)``, and so does every name on stdout (JSON aside, whose encoder
/// escapes control characters): a service, an account, a label or a reason comes from the command line, the
/// keyring or a server, and any of them may hold an escape sequence that would retitle, clear or rewrite the
/// terminal (`x\u{1B}]0;PWNED\u{07}\u{1B}[2J`).
package enum Terminal {
    /// A progress or state message: on stderr, and only when stderr is a terminal.
    package static func status(_ message: String) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        // One line: a name in the message cannot add another.
        FileHandle.standardError.write(Data("\(ServerText.oneLine(message))\n".utf8))
    }

    /// An instruction the user needs (a URL to open, a code to enter): on stderr, always.
    package static func say(_ message: String) {
        FileHandle.standardError.write(Data("\(printable(message))\n".utf8))
    }

    /// An error: on stderr, always, on one line (``ServerText/oneLine(_:)``): a name in it cannot forge another line.
    package static func error(_ message: String) {
        FileHandle.standardError.write(Data("tokenctl: \(ServerText.oneLine(message))\n".utf8))
    }

    /// `text` as the terminal may show it: each line through `ServerText.printable` — no escape sequence, no
    /// control or format character, no bidirectional override — with the line breaks between lines kept. What
    /// `status` has always done with the account names it lists; every command's names pass here.
    package static func printable(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { ServerText.printable(String($0)) }
            .joined(separator: "\n")
    }

    /// An account's name as `list` and `status` print it: on one line (``ServerText/oneLine(_:)``: a line break in
    /// a name is shown as `\n`, never as a line of its own), and for the empty name of an item whose attributes
    /// gnome-keyring hides until its collection is unlocked, a sentence that says so.
    package static func accountName(_ account: String) -> String {
        account.isEmpty ? "(name hidden until the keyring is unlocked)" : ServerText.oneLine(account)
    }

    /// Reads all of standard input, refusing more than `limit` bytes: it reads at most `limit` + 1, so an endless
    /// input (`</dev/zero`, a pipe that never closes its end after the limit) is refused as soon as the byte over
    /// the limit arrives, instead of filling memory.
    package static func readStandardInput(limit: Int = 64 * 1024) throws -> String {
        guard StandardStreams.isStandardInputReadable else {
            throw Failure.badInput("Standard input is closed, so there is nothing to read. Give the input on it: a pipe, or `<file`.")
        }
        let bytes: [UInt8]?
        do throws(SystemCallError) {
            bytes = try readToEnd(STDIN_FILENO, limit: limit)
        } catch {
            throw Failure.badInput("Standard input cannot be read (\(error.sentence)).")
        }
        guard let bytes else {
            throw Failure.badInput("Standard input is larger than \(limit) bytes; give the tokens alone.")
        }
        let data = Data(bytes)
        guard let text = String(data: data, encoding: .utf8) else { throw Failure.badInput("Standard input is not UTF-8 text.") }
        return text
    }

    /// Reads secrets from standard input, one per line, in the order given by `names`.
    ///
    /// From a terminal each is prompted for on stderr with echo turned off; from a pipe or file, line `i` is the
    /// secret `names[i]`, and `remainder` asks for everything after those lines as well (for tokens after a
    /// client secret). A secret is never echoed or printed.
    package static func readSecrets(_ names: [String], remainder: Bool = false) throws -> (secrets: [String], rest: String) {
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

    package static func printJSON<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}
