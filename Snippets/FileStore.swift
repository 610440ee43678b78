// The file store, TokenAuthFileStore: tokens in a plain file where no Secret Service can run — by the user's explicit
// choice only, never as a fallback for a missing keyring.

import Foundation
import TokenAuth
import TokenAuthFileStore
import TokenAuthURLSession

// snippet.explicit
// The user chose it (as with gh's --insecure-storage): say where the tokens are, unencrypted.
let store = FileAuthStore(service: "api.example.com", account: "ada")
let credentials = StoredCredentials(
    auth: Auth(accessToken: "access-token", refreshToken: "refresh-token"),
    client: OAuthClient(tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "my-cli"))
if let unreadable = try await store.signIn(credentials) {
    print("Replaced tokens that could not be read: \(unreadable.reason)")
}
print("Stored unencrypted in \(store.path)")
// snippet.end

// snippet.manager
// Refreshes through the client the file records, under the lock every process using the item takes.
let manager = try await AuthManager.forFileItem(
    service: "api.example.com", account: "ada", transport: URLSessionHTTPTransport())
print(try await manager.validToken())
// snippet.end
