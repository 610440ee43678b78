import ArgumentParser
import Keyring
import TokenCtlBase

extension TokenCtl {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check the session bus, the Secret Service and the default keyring, with a fix for each problem.",
            discussion: """
                Exit code 0 when the keyring is usable, 4 when it is not. A locked default keyring is a warning, \
                since commands show its unlock prompt; with --no-prompt, which they then fail on, it is exit code 4.
                """)

        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            let diagnosis = await keyringOptions.keyring.diagnose()
            // A collection's label and the provider's process name are the desktop's text, shown as such.
            print(Terminal.printable(diagnosis.description))
            guard diagnosis.isUsable else { throw ExitCode(.storageFailure) }
            // `tokenctl doctor --no-prompt && …` asks whether commands run with --no-prompt will work: on a locked
            // keyring every read and write of theirs fails with `locked`, as the warning above says.
            if keyringOptions.noPrompt, diagnosis.isDefaultCollectionLocked { throw ExitCode(.storageFailure) }
        }
    }
}
