import ArgumentParser

/// The keyring item a command works on.
struct ItemOptions: ParsableArguments {
    @Option(help: "The service the tokens are for (the item's `service` attribute).")
    var service: String

    @Option(help: "The account the tokens belong to (the item's `account` attribute).")
    var account: String
}
