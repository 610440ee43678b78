// An app's AuthManager, set up by hand: its settings, its store and lock, its events and its logs.

import Foundation
import Logging
import TokenAuth
import TokenAuthURLSession
import TokenAuthKeyring

// snippet.logging
// Once, before anything logs: TokenAuth's and Keyring's debug lines (never a token) on standard error.
LoggingSystem.bootstrap { label in
    var handler = StreamLogHandler.standardError(label: label)
    handler.logLevel = label.hasPrefix("TokenAuth.") || label.hasPrefix("TokenKeyring.") ? .debug : .info
    return handler
}
// snippet.end

// snippet.manager
let service = "api.example.com", account = "default"
let client = OAuthClient(tokenEndpoint: URL(string: "https://auth.example.com/token")!, clientID: "my-desktop-app")
let transport = URLSessionHTTPTransport()  // one URLSession for the token endpoint and the API

let manager = AuthManager(
    store: KeyringAuthStore(service: service, account: account, client: client, wallClock: systemWallClock),
    refresher: TokenEndpointClient(client: client, transport: transport),
    configuration: AuthManager.Configuration(
        leeway: .seconds(120),  // refresh when less than two minutes are left (at most half the token's life)…
        minimumValidity: .seconds(10),  // …beside the callers, who wait for it only in the last 10 s
        rejectionPolicy: .eraseStoredCredentials),  // forget tokens the provider rejected for good
    lock: FileRefreshLock(service: service, account: account))  // the lock every process uses for this item
// snippet.end

// snippet.events
// One consumer reads the events, for example to update the window or count failures.
let watcher = Task {
    for await event in manager.events {
        switch event {
        case .refreshFailed(.permanent(let code)):
            print("The provider rejected the session (\(code ?? "no code")): show the sign-in screen.")
        case .saveFailed(let reason):
            print("New tokens are not stored yet (\(reason)); they are written again on the next request.")
        case .adoptedFromStore:
            print("Another process had refreshed already; its tokens were taken.")
        case .loggedOut:
            print("Signed out.")
        default:
            break
        }
    }
}
// snippet.end

// snippet.failures
do {
    let token = try await manager.validToken()
    print("a token of \(token.count) characters, valid for at least 10 s more")
} catch let error as TokenAuthError {
    if error.isLoginRequired {
        print("Sign in again: \(error.reason)")
    } else if error.isTransient {
        print("Try again in \(error.retryAfter ?? .seconds(1)); the stored tokens were kept.")
    } else if error.isMisconfiguration {
        print("The token endpoint cannot be used: \(error.fix)")
    } else {
        print(error)  // error.code says exactly what failed
    }
}
// snippet.end
watcher.cancel()
