import Foundation
import HTTPTypes
import TokenAuth
import TokenAuthKeyring
import TokenAuthURLSession

let client = OAuthClient(tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "my-desktop-app")
let service = "api.example.com", account = "ada@example.com"

// One keyring item per (service, account); the client is recorded next to the tokens.
let store = KeyringAuthStore(service: service, account: account, client: client)
let transport = URLSessionTransport()  // one URLSession for the token endpoint and the API
let manager = AuthManager(
    store: store,
    refresher: TokenEndpointClient(client: client, transport: transport),
    lock: FileRefreshLock(service: service, account: account))  // shared with other processes, e.g. tokenctl
let api = AuthorizedClient(manager: manager, transport: transport)

struct Profile: Decodable { let name: String }

do {
    // Refreshes first if the token expires within 60 s; on a 401 refreshes once and retries once.
    let profile = try await api.load(Profile.self, from: URL(string: "https://api.example.com/me")!)
    print("Signed in as \(profile.name)")
} catch let error as TokenAuthError where error.isLoginRequired {
    // Show the sign-in screen; after it, `try await manager.signIn(auth)` stores the new tokens.
}
