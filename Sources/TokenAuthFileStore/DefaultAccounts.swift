#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TokenAuth

/// Which account of a service is the default — the one `tokenctl` uses when `--account` is left out, and an app's
/// `AuthSession` signs in to unless told otherwise — as `tokenctl switch` or `AuthSession.switchAccount(to:)` chose it: a JSON
/// object of service to account in `$XDG_CONFIG_HOME/tokenctl/default-accounts.json` (`$HOME/.config/…` without it).
/// No secret is in it, but it decides whose tokens a command uses, so it is kept as the file store keeps tokens
/// (`StoreDirectory`): written whole through a locked temporary file with a name no one can guess, `0600`, synced and
/// renamed over the old one, in a `0700` directory reached without following links it cannot trust. A file or
/// directory that others can write to, a link, or anything but a regular file is refused.
package enum DefaultAccounts {
    /// The file's name in ``directory``.
    package static let fileName = "default-accounts.json"

    /// The directory of the file.
    package static var directory: StoreDirectory {
        StoreDirectory(
            path: UserDirectories.process.configHome + "/tokenctl", contents: .choices,
            owner: "The record of default accounts")
    }

    /// The default account of `service`, or `nil` when none was chosen or the file cannot be used (`switch` says why).
    package static func account(for service: String) -> String? {
        (try? chosenAccount(for: service)) ?? nil
    }

    /// The default account of `service`, or `nil` when none was chosen.
    /// - Throws: `TokenAuthError` with code `storageFailed` when the file cannot be used, as ``set(_:for:)`` would:
    ///   a command that needs the default says why it has none, instead of asking for a choice `switch` cannot record.
    package static func chosenAccount(for service: String) throws -> String? {
        try directory.withDirectory(creating: false) { try read(in: $0) }?[service]
    }

    /// Makes `account` the default of `service`, keeping the other services' choices.
    /// - Throws: `TokenAuthError` with code `storageFailed` when the file cannot be read or written; then nothing
    ///   changed.
    package static func set(_ account: String, for service: String) throws {
        try directory.withDirectory(creating: true) { folder in
            var choices = try read(in: folder)
            choices[service] = account
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try folder.write(Array(try encoder.encode(choices)), to: fileName)
        }
    }

    /// The choices in the file; none when there is no file.
    private static func read(in folder: OpenStoreDirectory) throws -> [String: String] {
        guard let bytes = try folder.read(fileName) else { return [:] }
        guard let choices = try? JSONDecoder().decode([String: String].self, from: Data(bytes)) else {
            let path = folder.directory.path(of: fileName)
            throw TokenAuthError(
                .storageFailed, "The file of default accounts \(path) could not be used: it is not a JSON "
                    + "object of service to account, so it was not replaced.",
                fix: "Correct it, or remove it: it holds only which account of each service is the default.")
        }
        return choices
    }
}
