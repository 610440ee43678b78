// snippet.app
import Foundation
import MyAppCore
import TokenKeyring

// The executable wires the real parts — the session in the keyring, the network — and hands the logic its client.
let session = AuthSession(issuer: URL(string: "https://auth.example.com")!, clientID: "my-desktop-app")
if case .signedOut = await session.state() {
    try await session.signIn { prompt in print("Open \(prompt.verificationURI) and enter \(prompt.userCode)") }
}
let loader = ProfileLoader(api: try await session.client(), url: URL(string: "https://api.example.com/me")!)
print(try await loader.load())
// snippet.end
