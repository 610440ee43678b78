import TokenCtlCommands

/// `tokenctl-signin`: the same commands as `tokenctl`, with the sign-in library, which `tokenctl` runs for the calls
/// that need it. It is not meant to be run by hand, but behaves as `tokenctl` would.
@main
enum TokenctlSignInMain {
    static func main() async {
        await Main.run(signIn: SignInLibrary())
    }
}
