#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth

/// The call scripts make once per request — `tokenctl token --service S --account A`, with `--no-prompt` or
/// `--timeout N` — read without the argument parser, and answered from the stored item when its token is fresh as
/// stored: on the calling thread, before any task, with no refresh lock and nothing of the full command line.
///
/// The parser's reflection over the command types was the largest item of a start-up profile; this reading keeps
/// the parser's help, errors and exit codes by declining everything it does not handle exactly as the parser would.
/// Its spellings, default and bound are ``CommandLineOptions``', which the parser's options are declared with.
package struct PlainTokenCall: Sendable {
    /// The keyring as `--timeout` and `--no-prompt` set it up.
    package let keyring: Keyring
    /// Where the item is looked for.
    package let lookup: StoreLookup

    package var service: String { lookup.keyringStore.service }
    package var account: String { lookup.keyringStore.account }

    /// `token`'s own arguments (after the program's name); `nil` for anything else — another spelling
    /// (`--service=S`), a repeated or unknown option, a value that looks like an option, a timeout the parser would
    /// refuse, `--help` — which the parser then reads.
    package init?(_ arguments: ArraySlice<String>) {
        typealias Name = CommandLineOptions.Name
        var remaining = arguments
        guard remaining.popFirst() == CommandLineOptions.tokenCommand else { return nil }
        var service: String?, account: String?, timeout: Double?, noPrompt = false
        while let flag = remaining.popFirst() {
            if flag == "--" + Name.noPrompt {
                guard !noPrompt else { return nil }
                noPrompt = true
                continue
            }
            guard let value = remaining.popFirst(), !value.hasPrefix("-") else { return nil }
            switch flag {
            case "--" + Name.service where service == nil: service = value
            case "--" + Name.account where account == nil: account = value
            case "--" + Name.timeout where timeout == nil:
                guard let seconds = Double(value), CommandLineOptions.isValidTimeout(seconds) else { return nil }
                timeout = seconds
            default: return nil
            }
        }
        guard let service, let account else { return nil }
        keyring = CommandLineOptions.keyring(timeout: timeout ?? CommandLineOptions.defaultTimeout, noPrompt: noPrompt)
        lookup = StoreLookup(service: service, account: account, keyring: keyring)
    }

    /// What the read found.
    package enum Outcome: Sendable {
        /// The stored access token, fresh as stored: print it.
        case fresh(String)
        /// Anything that needs more than a read — a refresh, a prompt, a check, no item, an item that cannot be
        /// read — for the full command, which decides the same way and reports what it meets.
        case needsFullCommand
        /// The keyring cannot be read (locked with prompting disabled, timed out, misconfigured), or no keyring can
        /// be reached and the file store has no such item either: report it.
        case failed(KeyringError)
    }

    /// Reads the item on this thread, where ``StoreLookup`` looks — the keyring, then the file store of
    /// `--insecure-storage` — and says what it found.
    ///
    /// - Important: It blocks its thread for up to the keyring's timeout. Call it before any task starts.
    package func read(at now: Date) -> Outcome {
        do {
            let found = try lookup.firstBlocking(
                inKeyring: { try Self.outcome(of: $0.freshTokenLookupBlocking(at: now)) },
                inFile: { try Self.outcome(of: $0.freshTokenLookupBlocking(at: now)) })
            return found ?? .needsFullCommand
        } catch let error as KeyringError {
            return .failed(error)
        } catch {
            // A file that cannot be used: the full command reports it.
            return .needsFullCommand
        }
    }

    /// What a store's read means here; `nil` when the store has no such item (look further).
    private static func outcome(of lookup: BlockingTokenLookup) -> Outcome? {
        switch lookup {
        case .fresh(let token): .fresh(token)
        case .needsManager: .needsFullCommand
        case .absent: nil
        }
    }
}
