#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth
import TokenAuthKeyring

/// The call scripts make once per request — `tokenctl token --service S --account A`, with `--no-prompt` or
/// `--timeout N` — read without the argument parser, and answered from the stored item when its token is fresh as
/// stored: on the calling thread, before any task, with no refresh lock and nothing of the full command line.
///
/// The parser's reflection over the command types was the largest item of a start-up profile; this reading keeps
/// the parser's help, errors and exit codes by declining everything it does not handle exactly as the parser would.
package struct PlainTokenCall: Sendable {
    package let service: String
    package let account: String
    /// As `KeyringOptions.keyring` makes it, with that option's default timeout of 5 s.
    package let keyring: Keyring

    /// `token`'s own arguments (after the program's name); `nil` for anything else — another spelling
    /// (`--service=S`), a repeated or unknown option, a value that looks like an option, a timeout the parser would
    /// refuse, `--help` — which the parser then reads.
    package init?(_ arguments: ArraySlice<String>) {
        var remaining = arguments
        guard remaining.popFirst() == "token" else { return nil }
        var service: String?, account: String?, timeout: Double?, noPrompt = false
        while let flag = remaining.popFirst() {
            if flag == "--no-prompt" {
                guard !noPrompt else { return nil }
                noPrompt = true
                continue
            }
            guard let value = remaining.popFirst(), !value.hasPrefix("-") else { return nil }
            switch flag {
            case "--service" where service == nil: service = value
            case "--account" where account == nil: account = value
            case "--timeout" where timeout == nil:
                guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else { return nil }
                timeout = seconds
            default: return nil
            }
        }
        guard let service, let account else { return nil }
        self.service = service
        self.account = account
        keyring = Keyring(configuration: Keyring.Configuration(
            timeout: .seconds(timeout ?? 5), prompting: noPrompt ? .never : .allowed))
    }

    /// What the read found.
    package enum Outcome: Sendable {
        /// The stored access token, fresh as stored: print it.
        case fresh(String)
        /// Anything that needs more than a read — a refresh, a prompt, a check, no item, an item that cannot be
        /// read — for the full command, which decides the same way and reports what it meets.
        case needsFullCommand
        /// The keyring cannot be read (locked with prompting disabled, timed out, misconfigured): report it.
        case failed(KeyringError)
    }

    /// Reads the item on this thread — the keyring, or where no Secret Service is reachable or the keyring has no
    /// such item, the file store of `--insecure-storage` — and says what it found.
    ///
    /// - Important: It blocks its thread for up to the keyring's timeout. Call it before any task starts.
    package func read(at now: Date) -> Outcome {
        let store = KeyringAuthStore(service: service, account: account, keyring: keyring)
        do {
            switch try store.freshTokenLookupBlocking(at: now) {
            case .fresh(let token): return .fresh(token)
            case .needsManager: return .needsFullCommand
            case .absent: return fileToken(at: now)
            }
        } catch let error as KeyringError where error.meansNoKeyring {
            return fileToken(at: now)
        } catch let error as KeyringError {
            return .failed(error)
        } catch {
            return .needsFullCommand
        }
    }

    /// The file store's token when it is fresh as stored; anything else is the full command's to report.
    private func fileToken(at now: Date) -> Outcome {
        let token = (try? FileAuthStore(service: service, account: account).freshTokenBlocking(at: now)) ?? nil
        return token.map(Outcome.fresh) ?? .needsFullCommand
    }
}
