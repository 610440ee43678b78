#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fixes of ``Keyring/diagnose()`` that fit the machine it runs on.
///
/// On a desktop, a locked keyring is unlocked at the prompt an app shows, or in Seahorse. On a machine without a display
/// — over SSH, on a server, in CI — neither can appear: gnome-keyring's own `--unlock` reads the password on standard
/// input instead. Run with `--replace`, it takes over the bus name from a daemon already running (which `--unlock`
/// alone does not reach) and unlocks the login keyring, creating it — as the default — where there is none. Where
/// gnome-keyring is not installed at all, the advice names the package.
struct KeyringSetupAdvice: Sendable {
    /// Whether a graphical session is there for a prompt or Seahorse: `DISPLAY` or `WAYLAND_DISPLAY` is set.
    let graphical: Bool
    /// Whether `gnome-keyring-daemon` is on `PATH`, or is the provider.
    let gnomeKeyringInstalled: Bool
    /// The provider owning the Secret Service's name, when one does.
    let provider: KeyringProvider?

    /// The command that unlocks (or creates) the login keyring without a display.
    static let headlessUnlock =
        "printf '%s' \"$PASSWORD\" | gnome-keyring-daemon --replace --unlock --components=secrets"

    /// What to install for a Secret Service where there is none.
    static let install =
        "install gnome-keyring (Debian/Ubuntu: `apt-get install gnome-keyring`; Fedora: `dnf install gnome-keyring`)"

    init(graphical: Bool, gnomeKeyringInstalled: Bool, provider: KeyringProvider?) {
        self.graphical = graphical
        self.gnomeKeyringInstalled = gnomeKeyringInstalled || provider?.name == "gnome-keyring"
        self.provider = provider
    }

    /// Reads `DISPLAY`, `WAYLAND_DISPLAY` and `PATH` from `environment`.
    init(environment: [String: String], provider: KeyringProvider?) {
        let graphical = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let installed = path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/gnome-keyring-daemon")
        }
        self.init(graphical: graphical, gnomeKeyringInstalled: installed, provider: provider)
    }

    /// Whether the headless advice is gnome-keyring's: no display, and gnome-keyring is the provider or, with none
    /// identified, installed. KeePassXC and KWallet unlock in their own windows, which need a display anyway.
    private var headlessGnomeKeyring: Bool {
        !graphical && gnomeKeyringInstalled && (provider == nil || provider?.name == "gnome-keyring")
    }

    /// The fix for a locked default collection at `path`.
    func unlock(collectionPath path: String) -> String {
        let effect = "reads and writes fail with `locked` until then."
        guard headlessGnomeKeyring else { return "Unlock it (Seahorse, or the prompt an app shows); \(effect)" }
        guard path.hasSuffix("/collection/login") else {
            return "There is no display here for an unlock prompt, and `gnome-keyring-daemon --unlock` opens only the "
                + "login keyring: unlock this one from a desktop session, or make the login keyring the default; "
                + effect
        }
        return "There is no display here for an unlock prompt or Seahorse: unlock it with its password on standard "
            + "input, `\(Self.headlessUnlock)` (gnome-keyring restarts on this bus, unlocked); \(effect)"
    }

    /// The fix for a Secret Service without a default collection.
    var createDefault: String {
        guard headlessGnomeKeyring else {
            return "Create a default keyring (for example with Seahorse) or pass an explicit collection."
        }
        return "There is no display here for Seahorse: create the login keyring, which becomes the default, with a "
            + "password on standard input: `\(Self.headlessUnlock)`; or pass an explicit collection."
    }

    /// The fix for a session bus on which no Secret Service runs or can be started.
    var startService: String {
        guard gnomeKeyringInstalled else {
            return graphical
                ? "No Secret Service is installed: \(Self.install), or run KeePassXC with its Secret Service "
                    + "integration on; then log in to the desktop session again."
                : "No Secret Service is installed: \(Self.install); then start it on this bus, unlocked: "
                    + "`\(Self.headlessUnlock)`."
        }
        return graphical
            ? "Log in to a desktop session that starts a keyring (gnome-keyring, KeePassXC, KWallet), or start one: "
                + "`\(Self.headlessUnlock)`."
            : "Start gnome-keyring on this bus, unlocked, with the password on standard input: "
                + "`\(Self.headlessUnlock)`; check that DBUS_SESSION_BUS_ADDRESS points at a live bus."
    }
}
