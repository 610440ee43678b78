// TokenAuthGLib: a GTK app's code on GTK's thread, the library's work elsewhere. The labels stand in for the app's
// GTK widgets, so that this compiles without GTK; Examples/DesktopApp is a whole window with real ones.

import Foundation
import HTTPTypes
import TokenAuthGLib
import TokenKeyring

/// Stands in for a GTK label: what it shows.
@GLibMainActor final class Label {
    var text = ""
}

/// The window's labels, which only GTK's thread touches.
@GLibMainActor enum Window {
    static let status = Label()
    static let detail = Label()
}

let url = URL(string: "https://api.example.com/me")!

// snippet.callAPI
@GLibMainActor func callAPI(_ api: AuthorizedClient) async throws {
    Window.status.text = "Calling…"  // GTK's thread
    let (response, _) = try await api.send(HTTPRequest(method: .get, url: url))  // the network, elsewhere
    Window.status.text = "The API answered \(response.status.code)"  // GTK's thread again
}
// snippet.end

// snippet.deviceCode
@GLibMainActor func signInWithCode(_ device: DeviceAuthorization) async throws -> StoredCredentials {
    try await device.signIn(scope: "openid") { @GLibMainActor prompt in
        Window.detail.text = "Open \(prompt.verificationURI) and enter \(prompt.userCode)"  // GTK's thread
    }
}
// snippet.end
