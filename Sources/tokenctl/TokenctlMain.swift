import TokenCtlCommands

/// `tokenctl`: every command, without the sign-in library; `login`, `request` and refreshes that check an
/// `id_token` run as `tokenctl-signin` (see `HandOffToSignIn`).
@main
enum TokenctlMain {
    static func main() async {
        await Main.run(signIn: HandOffToSignIn())
    }
}
