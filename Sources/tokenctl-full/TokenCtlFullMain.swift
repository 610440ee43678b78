import TokenCtlCommands

/// `tokenctl-full`: every command of `tokenctl`, with the sign-in library, which `tokenctl` runs for every call but a
/// plain `token` on a fresh item. It is not meant to be run by hand, but behaves as `tokenctl` would.
@main
enum TokenctlFullMain {
    static func main() async {
        await Main.run(signIn: SignInLibrary())
    }
}
