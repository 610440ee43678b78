import ArgumentParser

/// The keyring item a command works on.
package struct ItemOptions: ParsableArguments {
    package init() {}

    @Option(help: "The service the tokens are for (the item's `service` attribute).")
    package var service: String

    @Option(help: "The account the tokens belong to (the item's `account` attribute).")
    package var account: String
}
