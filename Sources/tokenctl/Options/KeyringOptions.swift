import ArgumentParser
import Keyring

/// How tokenctl talks to the Secret Service.
struct KeyringOptions: ParsableArguments {
    @Option(help: "Seconds to wait for the Secret Service before giving up.")
    var timeout: Double = 5

    @Flag(help: "Fail with exit code 4 instead of showing an unlock prompt when the keyring is locked.")
    var noPrompt = false

    func validate() throws {
        // At most a day: `inf` or 1e300 would trap when counted as a Duration (NaN fails both comparisons).
        guard timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout must be a positive number of seconds, at most 86400 (a day).")
        }
    }

    var keyring: Keyring {
        Keyring(configuration: .init(timeout: .seconds(timeout), prompting: noPrompt ? .never : .allowed))
    }
}
