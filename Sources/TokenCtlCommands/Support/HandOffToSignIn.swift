import Foundation
import TokenAuth

/// `tokenctl`'s ``SignInFeatures``: it runs the call again as `tokenctl-signin`, the executable installed beside it
/// that links the sign-in library — the same arguments, environment, standard input and output, in the same process
/// (`execv`), so the caller sees one command and one exit status.
///
/// A call is handed over before it reads standard input or changes anything: `login` and `request` at once; `token`
/// and `refresh` only when a refresh must check an `id_token` (the item records who signed in), which stops before the
/// refresh token is sent, or when the stored identity check is pending.
package struct HandOffToSignIn: SignInFeatures {
    /// The executable that links the sign-in library, beside this one.
    package static let executableName = "tokenctl-signin"

    package init() {}

    package func takeOver() throws {
        try handOff()
    }

    package func login(_ login: TokenCtl.Login) async throws {
        try handOff()
    }

    package var identityChecks: IdentityCheckFactory {
        { client, _, _ in client.issuer != nil && client.jwksURI != nil ? DeferredIdentityCheck() : nil }
    }

    package func willServe(_ auth: Auth) throws {
        if auth.unverifiedIDToken != nil { try handOff() }
    }

    package func failure(for error: any Error) -> Failure? { nil }

    /// Replaces this process with `tokenctl-signin`; returns only by throwing when it cannot be run.
    func handOff() throws -> Never {
        let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent(Self.executableName).path
        fflush(nil)  // every stream: nothing written so far may be lost by execv
        let arguments = [path] + CommandLine.arguments.dropFirst()
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv(path, &argv)
        let reason = String(cString: strerror(errno))
        argv.forEach { free($0) }
        throw Failure(
            message: "Signing in and checking who signed in is done by \(Self.executableName), which should be "
                + "installed beside tokenctl but cannot be run (\(path): \(reason)). Install both executables from "
                + "the same build.",
            exitCode: Exit.usage)
    }
}

/// Asked for by ``DeferredIdentityCheck``: this call needs the sign-in library.
package struct HandOffRequest: Error, Sendable {}

/// The identity check of `tokenctl`, which cannot check an `id_token`: it stops a refresh before the refresh token is
/// sent (so nothing is spent), and ``reportingFailures(_:)`` hands the call to `tokenctl-signin`. A pending check it
/// is asked to try again stays pending (``TokenAuthError/Code/identityUnavailable``), never fails the session.
struct DeferredIdentityCheck: IdentityCheck {
    func prepareCheck() async throws {
        throw HandOffRequest()
    }

    func checkRefresh(_ response: TokenResponse, keeping previous: Identity) async throws -> Identity {
        throw TokenAuthError.identityCheck(
            .identityUnavailable, reason: "This executable cannot check id_tokens.",
            fix: "Run the call through \(HandOffToSignIn.executableName).", underlying: HandOffRequest())
    }
}

extension Error {
    /// Whether this error, or one it was caused by, is a ``HandOffRequest``.
    var asksForHandOff: Bool {
        var error: (any Error)? = self
        while let current = error {
            if current is HandOffRequest { return true }
            error = (current as? TokenAuthError)?.underlying
        }
        return false
    }
}
