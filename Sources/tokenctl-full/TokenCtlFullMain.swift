import TokenCtlCommands

/// `tokenctl-full`: every command of `tokenctl`, sign-in included, which `tokenctl` runs for every call but a plain
/// `token` on a fresh item. It is not meant to be run by hand, but behaves as `tokenctl` would.
@main
enum TokenCtlFullMain {
    static func main() async {
        await Main.run()
    }
}
