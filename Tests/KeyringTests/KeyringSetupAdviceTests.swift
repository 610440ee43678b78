@testable import Keyring
import Testing

/// The fixes of a diagnosis fit the machine: Seahorse and the prompt on a desktop, gnome-keyring's `--unlock` on a
/// machine without a display, the package where gnome-keyring is not installed.
@Suite("Keyring set-up advice that fits the machine")
struct KeyringSetupAdviceTests {
    static let login = "/org/freedesktop/secrets/collection/login"

    @Test("a desktop: Seahorse and the prompt; without a display: the password on standard input, no Seahorse")
    func displayOrNone() {
        let desktop = KeyringSetupAdvice(environment: ["DISPLAY": ":0", "PATH": "/nowhere"], provider: nil)
        #expect(desktop.unlock(collectionPath: Self.login).contains("Seahorse"))
        #expect(desktop.createDefault.contains("Seahorse"))
        let wayland = KeyringSetupAdvice(environment: ["WAYLAND_DISPLAY": "wayland-0"], provider: nil)
        #expect(wayland.graphical)

        let headless = KeyringSetupAdvice(graphical: false, gnomeKeyringInstalled: true, provider: nil)
        for fix in [headless.unlock(collectionPath: Self.login), headless.createDefault, headless.startService] {
            #expect(fix.contains(KeyringSetupAdvice.headlessUnlock), "\(fix)")
            #expect(!fix.contains("Seahorse (") && !fix.contains("in Seahorse"), "\(fix)")
        }
        let other = headless.unlock(collectionPath: "/org/freedesktop/secrets/collection/work")
        #expect(other.contains("opens only the login keyring") && !other.contains(KeyringSetupAdvice.headlessUnlock))
    }

    @Test("gnome-keyring not installed: what to install, with the command that starts it afterwards")
    func notInstalled() {
        let headless = KeyringSetupAdvice(graphical: false, gnomeKeyringInstalled: false, provider: nil)
        #expect(headless.startService.contains("apt-get install gnome-keyring"), "\(headless.startService)")
        #expect(headless.startService.contains(KeyringSetupAdvice.headlessUnlock))
        let desktop = KeyringSetupAdvice(graphical: true, gnomeKeyringInstalled: false, provider: nil)
        #expect(desktop.startService.contains("apt-get install gnome-keyring") && desktop.startService.contains("KeePassXC"))
        let onPath = KeyringSetupAdvice(environment: ["PATH": "/nowhere"], provider: nil)
        #expect(!onPath.gnomeKeyringInstalled, "no gnome-keyring-daemon on that PATH")
    }
}
