import Foundation
import TokenKeyring

// First in main: each refresh then runs in a process of its own, which survives the app's death mid-refresh.
AuthSession.bootstrap()

// Your app at its OAuth provider: the issuer's published metadata names every endpoint.
let session = AuthSession(issuer: URL(string: "https://auth.example.com")!, clientID: "my-desktop-app")

switch await session.state() {
case .signedIn(let account):
    print("Signed in as \(account)")
case .signedOut, .signInRequired:
    // The system browser where one can open; else a code to enter on any device (over SSH, on a console).
    let account = try await session.signIn { prompt in
        print("Open \(prompt.verificationURI) and enter \(prompt.userCode)")
    }
    print("Signed in as \(account)")
case .unavailable(let error):
    // Locked, no Secret Service, or not answering: nothing was lost or deleted. Say what to do, and try later.
    print("The keyring cannot be used now. \(error.reason) \(error.fix)")
    exit(1)
}

// Each request carries a valid access token: refreshed before it expires, once however many requests need it,
// in this process and in every other that uses the same keyring item.
struct Profile: Decodable { let name: String }
let api = try await session.client()
let profile = try await api.load(Profile.self, from: URL(string: "https://api.example.com/me")!)
print("Hello, \(profile.name)")

if CommandLine.arguments.contains("--sign-out") {
    // Revokes the tokens at the provider, then deletes the keyring item.
    try await session.signOut()
}
