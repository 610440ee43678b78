import ArgumentParser
import Keyring

/// How tokenctl talks to the Secret Service.
struct KeyringOptions: ParsableArguments {
    @Option(help: "Seconds to wait for the Secret Service before giving up.")
    var timeout: Double = 5

    @Flag(help: "Fail with exit code 4 instead of showing an unlock prompt when the keyring is locked.")
    var noPrompt = false

    func validate() throws {
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds.") }
    }

    var keyring: Keyring {
        Keyring(configuration: .init(timeout: .milliseconds(Int(timeout * 1000)), prompting: noPrompt ? .never : .allowed))
    }
}
