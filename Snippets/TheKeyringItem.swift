// The keyring item of TokenAuthKeyring: reading what is stored, listing accounts, and choosing the keyring and the
// collection.

import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

// snippet.read
let store = KeyringAuthStore(service: "api.example.com", account: "default")
if let credentials = try await store.loadCredentials() {
    // Descriptions of tokens and clients never show a token or a secret.
    print(credentials.auth, credentials.client.map { "\($0)" } ?? "no client recorded")
    if let refreshedAt = credentials.refreshedAt { print("last refreshed \(refreshedAt)") }
} else {
    print("nothing stored: sign in")
}
// snippet.end

// snippet.accounts
// The accounts of a service: items with exactly `service` and `account`, with their metadata, not their tokens.
for item in try await KeyringAuthStore.accounts(of: "api.example.com") {
    print(item.attributes["account"] ?? "?", "changed", item.modified, item.isLocked ? "(locked)" : "")
}
// snippet.end

// snippet.options
// A background job that must never show an unlock prompt, with tokens kept only until the user logs out.
let unattended = KeyringAuthStore(
    service: "api.example.com", account: "sync-job",
    keyring: Keyring(configuration: .init(timeout: .seconds(2), prompting: .never)),
    collection: .session)
_ = try await unattended.load()
// snippet.end
