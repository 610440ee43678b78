// A desktop app's session with its OAuth provider, through TokenKeyring's AuthSession: sign in with the system
// browser (or, where none can open, a code entered on another device), show where the session stands — a locked
// keyring included —, call an API, follow sign-ins and sign-outs of other processes, and sign out.

import Foundation
import TokenKeyring

// snippet.session
// First in `main`: refreshes then run in a process of their own, which survives the app's death in a refresh.
AuthSession.bootstrap()

// What the app is registered as at its provider. The issuer's published metadata names every endpoint.
let session = AuthSession(
    issuer: URL(string: "https://auth.example.com")!,
    clientID: "my-desktop-app",  // a public client: a desktop app keeps no secret
    scope: "openid profile read")  // with `openid`, the provider says who signed in
// snippet.end

// snippet.state
/// What the window says for each state of the session.
func describe(_ state: AuthSession.State) -> String {
    switch state {
    case .signedOut:
        return "Not signed in."
    case .signedIn(let account):
        return "Signed in as \(account.displayName)."
    case .signInRequired(let account, let reason):
        return "\(account.displayName) must sign in again: \(reason)"
    case .unavailable(let error) where error.code == .locked:
        // Nothing is lost: once the keyring is unlocked, the session is back as it was.
        return "Your keyring is locked. \(error.fix)"
    case .unavailable(let error):
        return "The keyring cannot be used now. \(error.reason) \(error.fix)"
    }
}

let state = await session.state()
print(describe(state))
// snippet.end

// snippet.signIn
/// Signs in: the system browser where one can open, else a code to enter on any device.
func signIn() async throws {
    let account = try await session.signIn { prompt in
        // Called only for the device flow: show the code and where to enter it (a link, or a QR code).
        print("Open \(prompt.verificationURIComplete ?? prompt.verificationURI) and enter \(prompt.userCode)")
    }
    print("Signed in as \(account.displayName).")
}

switch state {
case .signedOut, .signInRequired:
    do {
        try await signIn()
    } catch is CancellationError {
        exit(1)
    } catch {
        // SignInError (declined, timed out, a code that expired), TokenAuthError (an endpoint failed) and KeyringError
        // (the tokens could not be stored) each say what happened and what to do.
        FileHandle.standardError.write(Data("Could not sign in: \(error)\n".utf8))
        exit(1)
    }
case .signedIn:
    break
case .unavailable:
    exit(1)  // a window would keep showing the state, and offer to try again
}
// snippet.end

// snippet.viewModel
/// In a window, the hooks run on the caller's actor: a main-actor model sets what the window shows in them.
@MainActor final class SignInModel {
    let session: AuthSession
    var code = ""
    var status = ""

    init(session: AuthSession) {
        self.session = session
    }

    func signIn() async {
        do {
            try await session.signIn { prompt in self.code = prompt.userCode }
        } catch is CancellationError {
            // The user closed the sign-in: nothing changed.
        } catch {
            status = "\(error)"  // SignInError and TokenAuthError say what happened and what to do
        }
        code = ""
    }
}
// snippet.end

// snippet.request
struct Profile: Decodable {
    let name: String
}

let api = try await session.client()
do {
    let profile = try await api.load(Profile.self, from: URL(string: "https://api.example.com/me")!)
    print("Hello, \(profile.name).")
} catch let error as TokenAuthError where error.isLoginRequired {
    // The provider no longer accepts the session: the state is now `signInRequired`, with the reason.
    print(describe(await session.state()))
}
// snippet.end

// snippet.follow
// The state after every change: sign-ins and sign-outs here, and in other processes (another instance, tokenctl).
let follower = Task {
    for await state in session.states {
        print(describe(state))
    }
}
// snippet.end

// snippet.signOut
if CommandLine.arguments.contains("--sign-out") {
    // Revokes the tokens at the provider, then deletes the keyring item, under the item's lock.
    let outcome = try await session.signOut()
    if case .failed(let error) = outcome.revocation {
        // What the provider answered, and what that means: "… refused the request with invalid_client (HTTP 401).
        // The server said: … The tokens were deleted here all the same; they stay valid … until they expire."
        print("Signed out on this computer; the provider did not revoke the tokens: \(error)")
    }
}
follower.cancel()
// snippet.end
