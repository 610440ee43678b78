// One session shared by several processes: the store, the lock and the revoker every process uses for it.

import Foundation
import TokenAuth
import TokenAuthKeyring
import TokenAuthURLSession

// snippet.manager
let service = "api.example.com", account = "ada@example.com"
let transport = URLSessionHTTPTransport()  // one for the process: its requests share one session

// Simplest: everything from the keyring item — its client, its lock, its revocation endpoint.
let shared = try await AuthManager.forKeyringItem(service: service, account: account, transport: transport)

// By hand: the same store and lock as every other process (tokenctl included), and a revoker for the tokens of a
// refresh that loses to a sign-in or sign-out elsewhere.
let client = OAuthClient(
    tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "my-desktop-app",
    revocationEndpoint: URL(string: "https://auth.example.com/revoke")!)
let store = KeyringAuthStore(service: service, account: account, client: client, wallClock: systemWallClock)
let lock = store.itemLock()
let manager = AuthManager(
    store: store,
    refresher: TokenEndpointClient(client: client, transport: transport),
    lock: lock,
    revoker: TokenRevocationClient(client: client, transport: transport),
    storeChanges: lock.releases())  // another process's refresh, sign-in or sign-out is seen on the next use
// snippet.end

_ = (shared, manager)
