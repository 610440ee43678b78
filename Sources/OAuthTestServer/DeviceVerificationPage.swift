import Foundation
import HTTPTypes
import Hummingbird

/// `/device`: the verification page of the device flow (RFC 8628 §3.3), where a person — or a test posting the
/// form as a browser would — approves or denies a user code.
///
/// - `GET /device[?user_code=CODE][&login_hint=NAME]`: a form with the code (from `verification_uri_complete`'s
///   query) and the user to sign in as, prefilled, and an "Approve" and a "Deny" button. No script.
/// - `POST /device` (`application/x-www-form-urlencoded`: `user_code`, `action` = `approve` or `deny`, `subject`):
///   decides the code and answers with a page saying what happened: `200` when decided, `404` for a code no live
///   device code has (wrong, or already answered), `410` for an expired one, `409` for one decided before, `400`
///   for a form without a code or an action.
///
/// The code is compared as RFC 8628 §6.1 suggests: without dashes and spaces, case-insensitively. The user
/// approving is the form's `subject`, or when it is empty the one the authorization endpoint approves as
/// (``OAuthTestServer/BrowserFlowSettings/outcome``), so that both flows sign in the same user.
struct DeviceVerificationPage: Sendable {
    static let path = "/device"
    let state: ServerState

    func respond(to request: Request) async throws -> Response {
        switch request.method {
        case .get, .head:
            let query = FormDecoding.pairs(request.uri.query ?? "") ?? []
            func value(_ name: String) -> String { query.first { $0.name == name }?.value ?? "" }
            let hint = value("login_hint")
            return form(userCode: value("user_code"), subject: hint.isEmpty ? state.withLock(\.flows.defaultSubject) : hint)
        case .post:
            return try await decide(request)
        default:
            var page = HTMLPage(
                status: .methodNotAllowed, title: "Not allowed",
                body: "<p>This page answers GET (the form) and POST (a decision) only.</p>"
            ).response
            page.headers[.allow] = "GET, HEAD, POST"
            return page
        }
    }

    /// The form, with `userCode` and `subject` filled in.
    private func form(userCode: String, subject: String, status: HTTPResponse.Status = .ok, note: String? = nil)
        -> Response
    {
        let body = """
            \(note.map { "<p id=\"message\">\(HTMLPage.escape($0))</p>\n" } ?? "")<p>Enter the code the device shows, \
            then approve or deny its sign-in.</p>
            <form method="post" action="\(Self.path)">
            <p><label>Code <input name="user_code" value="\(HTMLPage.escape(userCode))" autocomplete="off" \
            spellcheck="false" autofocus></label></p>
            <p><label>Sign in as <input name="subject" value="\(HTMLPage.escape(subject))" autocomplete="off"></label></p>
            <p><button type="submit" name="action" value="approve">Approve</button>
            <button type="submit" name="action" value="deny">Deny</button></p>
            </form>
            """
        return HTMLPage(status: status, title: "Sign in a device", body: body).response
    }

    private func decide(_ request: Request) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: FormPost.maximumSize)
        guard (request.headers[.contentType]?.lowercased() ?? "").hasPrefix("application/x-www-form-urlencoded") else {
            return answer(.unsupportedMediaType, "Not a form", "Send the form as application/x-www-form-urlencoded.")
        }
        guard let pairs = FormDecoding.pairs(String(buffer: body)) else {
            return answer(.badRequest, "Not a form", "The form is not validly encoded.")
        }
        func value(_ name: String) -> String {
            (pairs.first { $0.name == name }?.value ?? "").trimmingCharacters(in: .whitespaces)
        }
        let typed = value("user_code")
        let defaultSubject = state.withLock(\.flows.defaultSubject)
        let subject = value("subject").isEmpty ? defaultSubject : value("subject")
        guard !FlowState.comparable(userCode: typed).isEmpty else {
            return form(userCode: typed, subject: subject, status: .badRequest, note: "Enter the code the device shows.")
        }
        let decision: OAuthTestServer.DeviceDecision
        switch value("action") {
        case "approve": decision = .approve(subject: subject)
        case "deny": decision = .deny
        default:
            return form(userCode: typed, subject: subject, status: .badRequest, note: "Choose Approve or Deny.")
        }
        let now = state.configuration.clock()
        switch state.withLock({ $0.flows.decide(typedUserCode: typed, decision, now: now) }) {
        case .decided(let userCode):
            if case .approve = decision {
                return answer(.ok, "Approved", "The device with the code \(userCode) is signed in as \(subject).")
            }
            return answer(.ok, "Denied", "The device with the code \(userCode) is told that the sign-in was declined.")
        case .unknown:
            return answer(
                .notFound, "Unknown code",
                "No sign-in is waiting for the code \(typed). Check the code the device shows; it may have been used already.")
        case .expired:
            return answer(.gone, "Code expired", "The code \(typed) has expired. Start the sign-in on the device again.")
        case .alreadyDecided(let earlier):
            let how = if case .deny = earlier { "denied" } else { "approved" }
            return answer(.conflict, "Already decided", "The code \(typed) was already \(how); that decision stands.")
        }
    }

    /// A page saying `message`, with a way back to the form.
    private func answer(_ status: HTTPResponse.Status, _ title: String, _ message: String) -> Response {
        HTMLPage(
            status: status, title: title,
            body: "<p id=\"message\">\(HTMLPage.escape(message))</p>\n<p><a href=\"\(Self.path)\">Enter another code</a></p>"
        ).response
    }
}
