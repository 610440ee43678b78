import ArgumentParser
import Foundation
import Keyring
import TokenAuthTPM
import TokenCtlBase

extension TokenCtl {
    struct Doctor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check the session bus, the Secret Service and the default keyring, with a fix for each problem.",
            discussion: """
                Exit code 0 when the keyring is usable, 4 when it is not. A locked default keyring is a warning, \
                since commands show its unlock prompt; with --no-prompt, which they then fail on, it is exit code 4.

                The last line says whether a TPM 2.0 can hold DPoP keys (`login --dpop-key auto` makes them there): \
                the one TPM2TOOLS_TCTI names, else /dev/tpmrm0. Where none can, it says why (no device, no \
                permission: the tss group) and how to fix it; keys are then made in software. It never changes the \
                exit code.
                """)

        @OptionGroup var keyringOptions: KeyringOptions

        func run() async throws {
            // Before any thread of libsecret's starts: setenv races with getenv on other threads.
            setenv("TSS2_LOG", "all+none", 0)
            let diagnosis = await keyringOptions.keyring.diagnose()
            // A collection's label and the provider's process name are the desktop's text, shown as such.
            print(Terminal.printable(diagnosis.description))
            print(await Self.tpmLine(environment: ProcessInfo.processInfo.environment))
            guard diagnosis.isUsable else { throw ExitCode(.storageFailure) }
            // `tokenctl doctor --no-prompt && …` asks whether commands run with --no-prompt will work: on a locked
            // keyring every read and write of theirs fails with `locked`, as the warning above says.
            if keyringOptions.noPrompt, diagnosis.isDefaultCollectionLocked { throw ExitCode(.storageFailure) }
        }

        /// Whether DPoP keys can be made in a TPM here, and if not, why and what to do. The probe opens the TPM and
        /// blocks, so it runs on a queue, off Swift's cooperative pool. (`run()` keeps tpm2-tss's own messages about a
        /// TPM that is not there off the output unless `TSS2_LOG` asks for them.)
        static func tpmLine(environment: [String: String]) async -> String {
            let result = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: TPMAvailability.probe(environment: environment)) }
            }
            switch result {
            case .success(let tcti):
                return "TPM: usable (\(tcti)): DPoP keys made with --dpop-key auto or tpm never leave it."
            case .failure(let error):
                return "TPM: none usable: \(error.reason) \(error.fix) DPoP keys are made in software, stored in the item."
            }
        }
    }
}
