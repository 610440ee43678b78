import ArgumentParser

/// The keyring item a command works on.
package struct ItemOptions: ParsableArguments {
    package init() {}

    /// The item of `service` and `account`, for a command that takes them otherwise.
    init(service: String, account: String) {
        self.service = service
        self.account = account
    }

    @Option(help: "The service the tokens are for (the item's `service` attribute).")
    package var service: String

    @Option(help: "The account the tokens belong to (the item's `account` attribute).")
    package var account: String
}
