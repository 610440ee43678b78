import ArgumentParser
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring
import TokenCtlBase

/// The keyring item a command works on: `--service` and `--account`, or the service's default account
/// (`tokenctl switch`) when `--account` is left out. Spelled as ``CommandLineOptions`` says, which `tokenctl`'s own
/// reading of the plain `token` call uses too.
package struct ItemOptions: ParsableArguments {
    package init() {}

    /// The item of `service` and `account`, for a command that takes them otherwise.
    init(service: String, account: String) {
        self.service = service
        self.accountOption = account
    }

    @Option(
        name: .customLong(CommandLineOptions.Name.service),
        help: "The service the tokens are for (the item's `service` attribute).")
    package var service: String

    @Option(
        name: .customLong(CommandLineOptions.Name.account),
        help: ArgumentHelp(
            "The account the tokens belong to (the item's `account` attribute); the service's default, chosen with "
                + "`tokenctl switch`, when left out."))
    package var accountOption: String?

    /// The account given, or the service's default.
    package var account: String {
        accountOption ?? DefaultAccounts.account(for: service) ?? ""
    }

    package func validate() throws {
        guard accountOption == nil else { return }
        let chosen: String?
        do {
            chosen = try DefaultAccounts.chosenAccount(for: service)
        } catch {
            // The file's own sentence and fix (exit 4, as `switch` on it): "choose a default" would send the user to
            // `switch`, which cannot record a choice in a file it cannot use.
            throw reported(error)
        }
        guard chosen != nil else {
            let service = ServerText.oneLine(service)
            throw ValidationError(
                "Give --account, or choose a default account for \"\(service)\" with `tokenctl switch --service "
                    + "\(service) --account NAME`.")
        }
    }
}
