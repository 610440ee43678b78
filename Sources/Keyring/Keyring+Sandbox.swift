#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where ``Keyring`` keeps items in a sandbox: see ``SandboxBackend``.
extension Keyring {
    /// Whether calls go to the app's own keyring file through the Secret portal, as in a Flatpak or Snap sandbox,
    /// rather than to the Secret Service: the process's choice, made once, by the first keyring it makes.
    public static var usesSandboxKeyring: Bool {
        if case .sandbox = BackendChoice.ofThisProcess { return true }
        return false
    }

    /// The app's keyring file in the sandbox: `$SECRET_FILE_TEST_PATH`, else `$XDG_DATA_HOME/keyrings/default.keyring`
    /// (Flatpak sets `XDG_DATA_HOME` to `~/.var/app/APP_ID/data`).
    public static var sandboxKeyringFile: String {
        let environment = ProcessInfo.processInfo.environment
        if let test = environment["SECRET_FILE_TEST_PATH"], !test.isEmpty { return test }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? URL(filePath: environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path)
                .appending(path: ".local/share").path
        return URL(filePath: data).appending(path: "keyrings/default.keyring").path
    }
}
