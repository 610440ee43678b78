import ArgumentParser
import TokenAuth

/// What tokenctl does with the sign-in library (TokenAuthSignIn): signing in and checking the `id_token` of a
/// refresh. `tokenctl-full` links that library, with swift-nio, swift-crypto and jwt-kit, and gives these commands
/// its features (``Main/run(signIn:)``); the commands themselves depend only on the core and the keyring.
package protocol SignInFeatures: Sendable {
    /// Signs in as `login` asks and stores the result.
    func login(_ login: TokenCtl.Login) async throws

    /// Checks the `id_token` of refreshes of items that record who signed in.
    var identityChecks: IdentityCheckFactory { get }

    /// The sentence and exit status for an error of the sign-in library, or `nil` for any other error.
    func failure(for error: any Error) -> Failure?
}

extension TokenCtl {
    /// The sign-in features of the running executable: the library's own in `tokenctl-full`;
    /// ``SignInUnavailable`` where none were given.
    @TaskLocal package static var signIn: any SignInFeatures = SignInUnavailable()
}
