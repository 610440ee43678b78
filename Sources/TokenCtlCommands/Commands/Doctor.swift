import ArgumentParser
import Keyring
import TokenCtlBase

extension TokenCtl {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check the session bus, the Secret Service and the default keyring, with a fix for each problem.",
            discussion: "Exit code 0 when the keyring is usable, 4 when it is not.")

        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            let diagnosis = await keyringOptions.keyring.diagnose()
            // A collection's label and the provider's process name are the desktop's text, shown as such.
            print(Terminal.printable(diagnosis.description))
            guard diagnosis.isUsable else { throw ExitCode(.storageFailure) }
        }
    }
}
