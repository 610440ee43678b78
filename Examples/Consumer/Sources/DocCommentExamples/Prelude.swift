// The names the `///` examples in Sources/ use without declaring them: what an app has in scope where it would write
// such code. scripts/lib/doc-examples.py writes each example as a function beside this file; they are compiled, never
// run. Keep it small: a name belongs here when examples share it, with the one type they all mean by it.
import Foundation
import HTTPTypes
import TokenAuthGLib
import TokenAuthTesting
import TokenKeyring

func placeholder<T>() -> T { fatalError("the documentation's examples are compiled, never run") }

// The app's settings.
var issuer: URL { placeholder() }
var tokenURL: URL { placeholder() }
var url: URL { placeholder() }
var service: String { placeholder() }
var account: String { placeholder() }
var password: String { placeholder() }
var nonce: String? { placeholder() }

// The parts an app makes once and shares.
var keyring: Keyring { placeholder() }
var attributes: [String: String] { placeholder() }
var transport: any HTTPTransport { placeholder() }
var oauthClient: OAuthClient { placeholder() }
var store: any AuthStore { placeholder() }
var refresher: any TokenRefresher { placeholder() }
var lock: any RefreshLock { placeholder() }
var myJournal: any RefreshJournal { placeholder() }
var manager: AuthManager { placeholder() }
var api: AuthorizedClient { placeholder() }
var client: AuthorizedClient { placeholder() }

// What a sign-in has at hand.
var metadata: AuthorizationServerMetadata { placeholder() }
var response: TokenResponse { placeholder() }
var browserSignIn: BrowserSignIn { placeholder() }
var device: DeviceAuthorization { placeholder() }

// A test's doubles.
var expired: Auth { placeholder() }
var endpoint: ScriptedTokenEndpoint { placeholder() }
struct LockedKeyring: Error {}

// The app's own types and screens.
struct Profile: Decodable, Sendable {
    let name: String
}

func show(_ items: Any...) {}
func showSignIn() {}
func showSignIn(because reason: String) {}
func showRetry(_ message: String) {}
func retry(after delay: Duration?) {}
func storeTheAnswer() async throws {}

// A GTK app's window, touched from GTK's thread (TokenAuthGLib): the app wraps its widgets as it likes.
@GLibMainActor final class Label {
    var text = ""
}
@GLibMainActor final class AppWindow {
    func signInClicked() {}
}
@GLibMainActor let status = Label()
@GLibMainActor let window = AppWindow()
