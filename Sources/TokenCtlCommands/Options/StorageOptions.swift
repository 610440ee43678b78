import ArgumentParser

/// Where `login` and `import` store the tokens: the keyring, or — only when asked — a file.
package struct StorageOptions: ParsableArguments {
    package init() {}

    @Flag(
        name: .customLong("insecure-storage"),
        help: ArgumentHelp(
            "Store the tokens unencrypted in a file (0600, in $XDG_STATE_HOME/tokenkeyring) instead of the keyring, "
                + "for machines without a Secret Service. A warning says so each time."))
    package var insecureStorage = false
}
