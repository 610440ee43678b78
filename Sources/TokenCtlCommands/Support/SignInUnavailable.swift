import TokenAuth
import TokenCtlFastPath

/// The ``SignInFeatures`` of commands run without the sign-in library (``TokenCtl/signIn``'s default): `login` is a
/// usage error, and a refresh of an item that records who signed in stops before its refresh token is sent, so that
/// nothing is spent and no unchecked identity is stored. `tokenctl-full` always runs with the library.
package struct SignInUnavailable: SignInFeatures {
    package init() {}

    package func login(_ login: TokenCtl.Login) async throws {
        throw Failure.usage("Signing in needs the sign-in library, which this executable does not link: run `tokenctl login`.")
    }

    package var identityChecks: IdentityCheckFactory {
        { client, _, _ in client.issuer != nil && client.jwksURI != nil ? UncheckedIdentity() : nil }
    }

    package func failure(for error: any Error) -> Failure? { nil }
}

/// The identity check of an executable that cannot check an `id_token`: it refuses before the refresh token is sent.
/// A pending check it is asked to try again stays pending (``TokenAuthError/Code/identityUnavailable``), never fails
/// the session.
struct UncheckedIdentity: IdentityCheck {
    func prepareCheck() async throws {
        throw Self.unavailable
    }

    func checkRefresh(_ response: TokenResponse, keeping previous: Identity) async throws -> Identity {
        throw Self.unavailable
    }

    private static let unavailable = TokenAuthError.identityCheck(
        .identityUnavailable, reason: "This executable cannot check id_tokens.",
        fix: "Run the call as `tokenctl`, which checks them with the sign-in library.")
}
