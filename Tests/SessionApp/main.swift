// An app of the tests that links TokenKeyring as Getting Started recommends: one AuthSession, one AuthorizedClient,
// a request every 200 ms, until it is stopped. Each outcome is a line on stdout ("ok 200", "error …").
//
//   session-app ISSUER RESOURCE_URL SERVICE ACCOUNT
//
// It calls AuthSession.bootstrap() first, as the docs ask, unless SESSION_APP_SKIPS_BOOTSTRAP is set: the control of
// the tests, an app that does not, whose refresh runs in its own process.
//
// With SESSION_APP_STATES set it makes no requests: it prints each state of `AuthSession.states` as a line ("state
// signedOut", "state unavailable CODE", …), with a keyring timeout of SESSION_APP_KEYRING_TIMEOUT seconds (default 5).
import Foundation
import HTTPTypes
import TokenKeyring

if ProcessInfo.processInfo.environment["SESSION_APP_SKIPS_BOOTSTRAP"] == nil {
    AuthSession.bootstrap()
}
/// A line on stdout, at once (not buffered: the test reads it while the app runs).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count == 5, let issuer = URL(string: arguments[1]), let resource = URL(string: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: session-app ISSUER RESOURCE_URL SERVICE ACCOUNT\n".utf8))
    exit(64)
}
let environment = ProcessInfo.processInfo.environment
let timeout = environment["SESSION_APP_KEYRING_TIMEOUT"].flatMap(Int.init) ?? 5
let session = AuthSession(configuration: .init(
    provider: .issuer(issuer), clientID: "test-client", scope: "openid read", service: arguments[3],
    account: arguments[4], keyring: Keyring(configuration: .init(timeout: .seconds(timeout), prompting: .never))))
say("started")
if environment["SESSION_APP_STATES"] != nil {
    for await state in session.states {
        switch state {
        case .signedOut: say("state signedOut")
        case .signedIn(let account): say("state signedIn \(account.name)")
        case .signInRequired(let account, _): say("state signInRequired \(account.name)")
        case .unavailable(let error): say("state unavailable \(error.code)")
        }
    }
}
while true {
    do {
        let (response, _) = try await session.client().send(HTTPRequest(method: .get, url: resource))
        say("ok \(response.status.code)")
    } catch {
        say("error \(error)")
    }
    try await Task.sleep(for: .milliseconds(200))
}
