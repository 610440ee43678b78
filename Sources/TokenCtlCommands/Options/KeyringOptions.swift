import ArgumentParser
import Keyring
import TokenCtlBase

/// How tokenctl talks to the Secret Service: spelled, defaulted and bounded as ``CommandLineOptions`` says, which
/// `tokenctl`'s own reading of the plain `token` call uses too.
package struct KeyringOptions: ParsableArguments {
    package init() {}

    @Option(
        name: .customLong(CommandLineOptions.Name.timeout),
        help: "Seconds to wait for the Secret Service before giving up.")
    package var timeout: Double = CommandLineOptions.defaultTimeout

    @Flag(
        name: .customLong(CommandLineOptions.Name.noPrompt),
        help: "Fail with exit code 4 instead of showing an unlock prompt when the keyring is locked.")
    package var noPrompt = false

    package func validate() throws {
        guard CommandLineOptions.isValidTimeout(timeout) else { throw ValidationError(CommandLineOptions.timeoutRefusal) }
    }

    package var keyring: Keyring {
        CommandLineOptions.keyring(timeout: timeout, noPrompt: noPrompt)
    }
}
