import ArgumentParser
import TokenAuth

/// What tokenctl does with the sign-in library (TokenAuthSignIn): signing in and checking the `id_token` of a
/// refresh. Only the `tokenctl-signin` executable links that library, with swift-nio, swift-crypto and jwt-kit;
/// `tokenctl` itself hands each call that needs them to `tokenctl-signin` (``HandOffToSignIn``), so that the call
/// scripts make most often, `tokenctl token` on a valid item, starts without loading them.
package protocol SignInFeatures: Sendable {
    /// Hands the whole call to `tokenctl-signin` before anything is read, unless this is it.
    func takeOver() throws

    /// Signs in as `login` asks and stores the result.
    func login(_ login: TokenCtl.Login) async throws

    /// Checks the `id_token` of refreshes of items that record who signed in.
    var identityChecks: IdentityCheckFactory { get }

    /// Called before `auth`'s access token is printed: a bundle whose identity check is pending is checked again
    /// by the executable that can.
    func willServe(_ auth: Auth) throws

    /// The sentence and exit status for an error of the sign-in library, or `nil` for any other error.
    func failure(for error: any Error) -> Failure?
}

extension TokenCtl {
    /// The sign-in features of the running executable: ``HandOffToSignIn`` in `tokenctl`, the library's own in
    /// `tokenctl-signin`.
    @TaskLocal package static var signIn: any SignInFeatures = HandOffToSignIn()
}
