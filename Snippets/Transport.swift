// The core's HTTP over URLSession: one transport for the app, shared by the token endpoint and the API.

// snippet.transport
import Foundation
import TokenAuth
import TokenAuthURLSession

let transport = URLSessionHTTPTransport()  // one for the app: its requests share one session
let client = OAuthClient(tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "my-desktop-app")
let manager = AuthManager(
    store: InMemoryAuthStore(), refresher: TokenEndpointClient(client: client, transport: transport))
let api = AuthorizedClient(manager: manager, transport: transport)
// snippet.end

print(try await api.load([String: String].self, from: URL(string: "https://api.example.com/me")!))
