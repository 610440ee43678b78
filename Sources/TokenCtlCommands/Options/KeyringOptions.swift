import ArgumentParser
import Keyring

/// How tokenctl talks to the Secret Service.
package struct KeyringOptions: ParsableArguments {
    package init() {}

    @Option(help: "Seconds to wait for the Secret Service before giving up.")
    package var timeout: Double = 5

    @Flag(help: "Fail with exit code 4 instead of showing an unlock prompt when the keyring is locked.")
    package var noPrompt = false

    package func validate() throws {
        // At most a day: `inf` or 1e300 would trap when counted as a Duration (NaN fails both comparisons).
        guard timeout > 0, timeout <= 86_400 else {
            throw ValidationError("--timeout must be a positive number of seconds, at most 86400 (a day).")
        }
    }

    package var keyring: Keyring {
        Keyring(configuration: .init(timeout: .seconds(timeout), prompting: noPrompt ? .never : .allowed))
    }
}
