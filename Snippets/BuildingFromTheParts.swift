// A desktop app that signs in through the system browser (or, without a display, with a code the user enters on any
// device), keeps its tokens in the keyring, calls an API with them, and signs out.

import Foundation
import TokenAuth
import TokenAuthSignIn
import TokenAuthKeyring
import TokenAuthURLSession

// snippet.settings
// What the app is registered as at its OAuth provider, and the keyring item its tokens live in.
let issuer = URL(string: "https://auth.example.com")!
let clientID = "my-desktop-app"
let service = "api.example.com"  // one keyring item per (service, account)
let account = "default"  // an app with one user at a time can use one fixed name
let transport = URLSessionHTTPTransport()  // how the app's requests are sent: one for the app, its requests share it
// snippet.end

// snippet.browserSignIn
/// Signs in through the system browser: finds the provider's endpoints, opens its sign-in page, and waits for the
/// browser to come back to a listener on 127.0.0.1. With `openid` in the scope, the tokens say who signed in.
func signInWithBrowser(issuer: URL, clientID: String) async throws -> StoredCredentials {
    let metadata = try await Discovery(transport: transport).metadata(forIssuer: issuer)
    let browser = try BrowserSignIn(metadata: metadata, clientID: clientID, transport: transport)
    let credentials = try await browser.signIn(scope: "openid profile read") { url in
        print("Sign in at \(url)")  // show the URL as well, in case the browser does not come to the front
        try await SystemBrowser().open(url)
    }
    if let identity = credentials.auth.identity {
        print("Signed in as \(identity)")
    }
    return credentials
}
// snippet.end

// snippet.signIn
/// Signs in with the device flow: finds the provider's endpoints, shows a code, and waits until the user has
/// entered it in a browser (on this computer or a phone) and approved.
func signInWithCode(issuer: URL, clientID: String) async throws -> StoredCredentials {
    let metadata = try await Discovery(transport: transport).metadata(forIssuer: issuer)
    let device = try DeviceAuthorization(metadata: metadata, clientID: clientID, transport: transport)
    return try await device.signIn(scope: "read") { prompt in
        // Show this in the app's window: "Open https://auth.example.com/device and enter WDJB-MJHT."
        print(prompt)
    }
}
// snippet.end

// snippet.chooseSignIn
/// The browser where there is one; a code to enter on another device where there is none (SSH, a console).
func signIn() async throws -> StoredCredentials {
    do {
        return try await signInWithBrowser(issuer: issuer, clientID: clientID)
    } catch let error as SignInError where error.code == .noGraphicalSession {
        return try await signInWithCode(issuer: issuer, clientID: clientID)
    }
}
// snippet.end

// snippet.launch
/// The manager of the stored item; signs in first when nothing is stored.
func signedInManager() async throws -> AuthManager {
    do {
        return try await AuthManager.forKeyringItem(
            service: service, account: account, transport: transport,
            identityChecks: IDTokenVerifier.forStoredClient)
    } catch let error as TokenAuthError where error.isLoginRequired {
        // Nothing stored yet: sign in, and store the tokens with the client that refreshes them — under the item's
        // lock, so that a refresh in another process never overwrites them.
        let credentials = try await signIn()
        try await KeyringAuthStore(service: service, account: account).signIn(credentials)
        return try await AuthManager.forKeyringItem(
            service: service, account: account, transport: transport,
            identityChecks: IDTokenVerifier.forStoredClient)
    }
}

let manager = try await signedInManager()
// snippet.end

// snippet.request
let api = AuthorizedClient(manager: manager, transport: transport)

struct Profile: Decodable {
    let name: String
}

/// Loads the user's profile; when the provider no longer accepts the stored tokens, signs in again and retries.
func loadProfile(with api: AuthorizedClient) async throws -> Profile {
    let url = URL(string: "https://api.example.com/me")!
    do {
        return try await api.load(Profile.self, from: url)
    } catch let error as TokenAuthError where error.isLoginRequired {
        let credentials = try await signIn()
        try await api.manager.signIn(credentials.auth)  // stored in the item, served from now on
        return try await api.load(Profile.self, from: url)
    }
}

print("Signed in as \(try await loadProfile(with: api).name)")
// snippet.end

// snippet.signOut
// Revoke the tokens at the provider and delete the item, under the lock other processes refresh it with…
let outcome = try await SignOut.perform(service: service, account: account, transport: transport)
if case .failed(let error) = outcome.revocation {
    print("Signed out on this computer, but the provider did not revoke the tokens: \(error)")  // its reason, and why
}
// …then forget the tokens the manager holds in memory. Requests from now on throw `loginRequired`.
try await manager.signOut()
// snippet.end
