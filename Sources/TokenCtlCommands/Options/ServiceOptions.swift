import ArgumentParser
import TokenCtlBase

/// The accounts of one service, as `list` and `status` show them.
struct ServiceOptions: ParsableArguments {
    @Option(
        name: .customLong(CommandLineOptions.Name.service),
        help: "The service whose accounts to show (the items' `service` attribute).")
    var service: String

    @OptionGroup var keyringOptions: KeyringOptions

    @Flag(help: "Print JSON for scripts.")
    var json = false
}
