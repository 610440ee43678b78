#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The program that owns `org.freedesktop.secrets` on the session bus, and what differs about it.
public struct KeyringProvider: Sendable, Hashable, CustomStringConvertible {
    /// The provider's name for people: "gnome-keyring", "KeePassXC", "KWallet", or the process's command name.
    public let name: String
    /// The owning process's command name (`/proc/PID/comm`), e.g. `gnome-keyring-d`, `keepassxc`, `kwalletd5`.
    public let command: String
    /// The owning process's ID.
    public let processID: Int32
    /// What this provider does differently, and what the user must set; empty for an unknown provider.
    public let quirks: [String]

    /// Recognises the provider by the command name of the process owning the bus name.
    init(command: String, processID: Int32) {
        self.command = command
        self.processID = processID
        switch command {
        case "gnome-keyring-d", "gnome-keyring-daemon":
            name = "gnome-keyring"
            quirks = ["lists locked items in searches; adds `xdg:schema` to items written with a libsecret schema (ignored)"]
        case "keepassxc":
            name = "KeePassXC"
            quirks = [
                "only the group chosen in Database Settings → Secret Service Integration is exposed; "
                    + "set \"Confirm when passwords are retrieved by clients\" off for unattended use",
                "adds Title, UserName, URL, Notes, Uuid, Path (and TOTP) to every item (ignored)",
                "hides every item while the database is locked: an empty search of a locked database is reported as locked",
                "with \"Unlock database before searching\" on, a search of a locked database waits for its unlock dialog",
                "writes the database file on another thread after every change while it goes on answering; a change "
                    + "arriving during that write can crash it (seen with 2.7.4 under back-to-back writes): for heavy "
                    + "unattended use turn off \"Automatically save after every change\" (it still saves on exit)",
            ]
        case "kwalletd5", "kwalletd6", "ksecretd":
            name = "KWallet"
            quirks = [
                "needs libqca's OpenSSL plugin (Debian: libqca-qt5-2-plugins) for its encrypted session",
                "after a PAM login the wallet reports locked until a client calls Unlock, which then needs no dialog: "
                    + "with --no-prompt that is reported as locked",
            ]
        default:
            name = command
            quirks = []
        }
    }

    /// "KeePassXC (keepassxc, pid 1234)".
    public var description: String { "\(name) (\(command), pid \(processID))" }
}
