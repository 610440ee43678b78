import Foundation
import HTTPTypes
import OAuthTestServer
import OAuthTestSupport
import Synchronization
import Testing
import TokenAuth
import TokenAuthTesting
import TokenAuthSignIn
import TokenAuthURLSession

/// The test server's device flow decided from outside its process: a person on the verification page, a script
/// through the admin call. The client is the library's ``DeviceAuthorization``; the page is driven as a browser
/// drives it, with GET and a form POST.
@Suite("The test server's device verification page and admin call", .timeLimit(.minutes(2)))
struct DeviceVerificationPageTests {
    static let transport = URLSessionHTTPTransport(timeout: .seconds(60))

    /// A device sign-in at `server` that never waits in real time.
    static func device(_ server: OAuthTestServer) -> DeviceAuthorization {
        DeviceAuthorization(
            client: server.client(), deviceAuthorizationEndpoint: server.deviceAuthorizationEndpoint,
            transport: transport, clock: ManualClock(advancingOnSleep: true))
    }

    /// What a browser gets for a page: the status and the HTML.
    struct Page {
        var status: Int
        var headers: HTTPFields
        var html: String
        /// The text of the element with `id="message"`, as a person reads it (character references left as they are).
        var message: String? {
            guard let start = html.range(of: #"<p id="message">"#), let end = html[start.upperBound...].range(of: "</p>")
            else { return nil }
            return String(html[start.upperBound..<end.lowerBound])
        }
    }

    /// Loads `url` as a browser would.
    static func get(_ url: URL) async throws -> Page {
        let (response, data) = try await transport.send(HTTPRequest(method: .get, url: url), body: nil)
        return Page(status: response.status.code, headers: response.headerFields, html: String(decoding: data, as: UTF8.self))
    }

    /// Submits the verification page's form as a browser does: `application/x-www-form-urlencoded`, spaces as `+`.
    static func submit(_ server: OAuthTestServer, _ fields: KeyValuePairs<String, String>) async throws -> Page {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~ ")
        let body = fields.map { name, value in
            let escaped = value.addingPercentEncoding(withAllowedCharacters: allowed)!.replacingOccurrences(of: " ", with: "+")
            return "\(name)=\(escaped)"
        }.joined(separator: "&")
        let request = HTTPRequest(
            method: .post, url: server.deviceVerificationPage,
            headerFields: [.contentType: "application/x-www-form-urlencoded"])
        let (response, data) = try await transport.send(request, body: Data(body.utf8))
        return Page(status: response.status.code, headers: response.headerFields, html: String(decoding: data, as: UTF8.self))
    }

    /// `POST /_admin/device/decide` with `json`.
    static func adminDecide(_ server: OAuthTestServer, _ json: String) async throws -> (status: Int, json: [String: Any]) {
        let reply = try await call(
            .post, server.url("/_admin/device/decide"), headers: [.contentType: "application/json"], body: Data(json.utf8))
        return (reply.status, reply.json)
    }

    /// A device code issued by a plain request, as a device would ask: its `user_code`.
    static func issueUserCode(_ server: OAuthTestServer) async throws -> String {
        let reply = try await call(
            .post, server.deviceAuthorizationEndpoint, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: Data("client_id=test-client".utf8))
        return try #require(reply.json["user_code"] as? String)
    }

    @Test("approved on the page, the code typed in lower case with a space: tokens for the user named in the form")
    func approvedOnThePage() async throws {
        try await withServer { server in
            let pages = Mutex<[Page]>([])
            let credentials = try await Self.device(server).signIn(scope: "read") { prompt in
                let complete = try #require(prompt.verificationURIComplete)
                let form = try await Self.get(complete)
                let typed = prompt.userCode.lowercased().replacingOccurrences(of: "-", with: " ")
                let answer = try await Self.submit(server, ["user_code": typed, "subject": "grace", "action": "approve"])
                pages.withLock { $0 = [form, answer] }
            }
            let (form, answer) = try pages.withLock { pages in (try #require(pages.first), try #require(pages.last)) }
            #expect(form.status == 200)
            #expect(form.headers[.contentType] == "text/html; charset=utf-8")
            #expect(form.html.contains(#"<form method="post" action="/device">"#))
            #expect(form.html.contains(#"<button type="submit" name="action" value="approve">Approve</button>"#))
            #expect(form.html.contains(#"<button type="submit" name="action" value="deny">Deny</button>"#))
            #expect(!form.html.contains("<script"))
            #expect(answer.status == 200)
            #expect(answer.message?.hasSuffix("is signed in as grace.") == true, "\(answer.html)")
            #expect(server.subject(ofToken: credentials.auth.accessToken) == "grace")
            #expect(server.deviceFlowStats.polls(answered: "tokens") == 1)
            #expect(try await call(.get, server.resourceURL, bearer: credentials.auth.accessToken).status == 200)
        }
    }

    @Test("the form names the code from verification_uri_complete and, by default, the user /authorize approves as")
    func formPrefilled() async throws {
        try await withServer { server in
            server.browserFlow.outcome = .approve(subject: "hopper")
            let credentials = try await Self.device(server).signIn { prompt in
                let form = try await Self.get(try #require(prompt.verificationURIComplete))
                #expect(form.html.contains(#"name="user_code" value="\#(prompt.userCode)""#), "\(form.html)")
                #expect(form.html.contains(#"name="subject" value="hopper""#), "\(form.html)")
                let answer = try await Self.submit(server, ["user_code": prompt.userCode, "subject": "", "action": "approve"])
                #expect(answer.status == 200)
            }
            #expect(server.subject(ofToken: credentials.auth.accessToken) == "hopper")
        }
    }

    @Test("denied on the page: the client's poll gets access_denied, the library's denied error")
    func deniedOnThePage() async throws {
        try await withServer { server in
            let answers = Mutex<[Page]>([])
            let error = await expectSignInError(.denied) {
                try await Self.device(server).signIn { prompt in
                    let answer = try await Self.submit(server, ["user_code": prompt.userCode, "action": "deny"])
                    answers.withLock { $0.append(answer) }
                }
            }
            #expect(error?.oauthErrorCode == "access_denied")
            let answer = try #require(answers.withLock { $0.first })
            #expect(answer.status == 200)
            #expect(answer.message?.hasSuffix("is told that the sign-in was declined.") == true, "\(answer.html)")
            #expect(server.deviceFlowStats.polls(answered: "access_denied") == 1)
            #expect(server.deviceFlowStats.polls(answered: "tokens") == 0)
        }
    }

    @Test("approved through the admin call: the code is listed as pending, then the tokens are the subject's")
    func approvedByTheAdminCall() async throws {
        try await withServer { server in
            let credentials = try await Self.device(server).signIn { prompt in
                let pending = try await call(.get, server.url("/_admin/device/pending"))
                #expect(pending.json["user_codes"] as? [String] == [prompt.userCode])
                let decided = try await Self.adminDecide(
                    server, #"{"user_code": "\#(prompt.userCode)", "approve": true, "subject": "grace"}"#)
                #expect(decided.status == 200)
                #expect(decided.json["decision"] as? String == "approve")
                #expect(decided.json["subject"] as? String == "grace")
                let after = try await call(.get, server.url("/_admin/device/pending"))
                #expect(after.json["user_codes"] as? [String] == [])
            }
            #expect(server.subject(ofToken: credentials.auth.accessToken) == "grace")
        }
    }

    @Test("denied through the admin call: denied")
    func deniedByTheAdminCall() async throws {
        try await withServer { server in
            await expectSignInError(.denied) {
                try await Self.device(server).signIn { prompt in
                    let decided = try await Self.adminDecide(server, #"{"user_code": "\#(prompt.userCode)", "approve": false}"#)
                    #expect(decided.status == 200)
                    #expect(decided.json["decision"] as? String == "deny")
                }
            }
        }
    }

    @Test("expired through the admin call: the next poll gets expired_token, the library's codeExpired; both at once is refused")
    func expiredByTheAdminCall() async throws {
        try await withServer { server in
            await expectSignInError(.codeExpired) {
                try await Self.device(server).signIn { prompt in
                    let both = try await Self.adminDecide(
                        server, #"{"user_code": "\#(prompt.userCode)", "approve": true, "expire": true}"#)
                    #expect(both.status == 400)
                    let decided = try await Self.adminDecide(server, #"{"user_code": "\#(prompt.userCode)", "expire": true}"#)
                    #expect(decided.status == 200)
                    #expect(decided.json["decision"] as? String == "expire")
                }
            }
            #expect(server.deviceFlowStats.polls(answered: "expired_token") == 1)
        }
    }

    @Test("a code never issued: the page answers 404 and says so; the admin call answers 404 not_found")
    func unknownCode() async throws {
        try await withServer { server in
            _ = try await Self.issueUserCode(server)  // a live code, but not this one
            let page = try await Self.submit(server, ["user_code": "BCDF-GHJK", "action": "approve"])
            #expect(page.status == 404)
            #expect(page.message?.hasPrefix("No sign-in is waiting for the code BCDF-GHJK.") == true, "\(page.html)")
            let admin = try await Self.adminDecide(server, #"{"user_code": "BCDF-GHJK", "approve": true}"#)
            #expect(admin.status == 404)
            #expect(admin.json["error"] as? String == "not_found")
            #expect((admin.json["error_description"] as? String)?.contains("BCDF-GHJK") == true)
        }
    }

    @Test("a code decided before answers 409, an expired one 410, one whose tokens were issued 404; nothing changes")
    func decidedExpiredUsed() async throws {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        try await withServer(OAuthTestServer.Configuration(clock: { now.withLock { $0 } })) { server in
            let decided = try await Self.issueUserCode(server)
            #expect(try await Self.submit(server, ["user_code": decided, "action": "deny"]).status == 200)
            let again = try await Self.submit(server, ["user_code": decided, "action": "approve"])
            #expect(again.status == 409)
            #expect(again.message == "The code \(decided) was already denied; that decision stands.", "\(again.html)")
            #expect(try await Self.adminDecide(server, #"{"user_code": "\#(decided)", "approve": true}"#).status == 409)

            let expiring = try await Self.issueUserCode(server)
            now.withLock { $0 += 601 }
            let expired = try await Self.submit(server, ["user_code": expiring, "action": "approve"])
            #expect(expired.status == 410)
            #expect(expired.message?.hasPrefix("The code \(expiring) has expired.") == true, "\(expired.html)")
            #expect(try await Self.adminDecide(server, #"{"user_code": "\#(expiring)", "approve": true}"#).status == 410)
        }
        try await withServer { server in
            let shown = Mutex<String?>(nil)
            let credentials = try await Self.device(server).signIn { prompt in
                shown.withLock { $0 = prompt.userCode }
                let page = try await Self.submit(server, ["user_code": prompt.userCode, "action": "approve"])
                #expect(page.status == 200)
            }
            #expect(server.subject(ofToken: credentials.auth.accessToken) == "ada")
            let used = try #require(shown.withLock { $0 })
            let page = try await Self.submit(server, ["user_code": used, "action": "approve"])
            #expect(page.status == 404)
            #expect(try await Self.adminDecide(server, #"{"user_code": "\#(used)", "approve": true}"#).status == 404)
            #expect(server.deviceFlowStats.polls(answered: "tokens") == 1)
        }
    }

    @Test("a form without a code or an action is answered 400 with the form again; another content type 415")
    func incompleteForm() async throws {
        try await withServer { server in
            let userCode = try await Self.issueUserCode(server)
            let noCode = try await Self.submit(server, ["user_code": " - ", "action": "approve"])
            #expect(noCode.status == 400)
            #expect(noCode.message == "Enter the code the device shows.")
            let noAction = try await Self.submit(server, ["user_code": userCode])
            #expect(noAction.status == 400)
            #expect(noAction.message == "Choose Approve or Deny.")
            #expect(noAction.html.contains(#"name="user_code" value="\#(userCode)""#))
            let json = try await call(
                .post, server.deviceVerificationPage, headers: [.contentType: "application/json"],
                body: Data(#"{"user_code":"\#(userCode)"}"#.utf8))
            #expect(json.status == 415)
            #expect(server.pendingUserCodes == [userCode])
            #expect(try await call(.get, server.url("/_admin/device/pending")).json["user_codes"] as? [String] == [userCode])
        }
    }

    @Test("the page escapes what it echoes: a hostile user_code in the query, the form, and one the server issued")
    func escapesHostileText() async throws {
        try await withServer { server in
            let hostile = #""><script>alert('x')</script>&"#
            var query = URLComponents(url: server.deviceVerificationPage, resolvingAgainstBaseURL: false)!
            query.percentEncodedQuery = "user_code=" + hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                + "&login_hint=%3Cb%3Eboss%3C%2Fb%3E"
            let form = try await Self.get(try #require(query.url))
            #expect(form.status == 200)
            #expect(!form.html.contains("<script"))
            #expect(!form.html.contains("<b>"))
            #expect(form.html.contains(#"value="&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;""#), "\(form.html)")
            #expect(form.html.contains(#"value="&lt;b&gt;boss&lt;/b&gt;""#), "\(form.html)")
            #expect(form.headers[.init("Content-Security-Policy")!]?.hasPrefix("default-src 'none'") == true)

            let posted = try await Self.submit(server, ["user_code": hostile, "action": "approve"])
            #expect(posted.status == 404)
            #expect(!posted.html.contains("<script"))

            // A server whose user codes hold markup, as a hostile server's might: the complete URI carries the code
            // escaped, and the page shows it as text.
            server.deviceFlow.userCode = #"<i>"WDJB"</i> MJHT"#
            let shown = Mutex<DeviceAuthorization.Prompt?>(nil)
            _ = try await Self.device(server).signIn { prompt in
                shown.withLock { $0 = prompt }
                let page = try await Self.get(try #require(prompt.verificationURIComplete))
                #expect(page.html.contains(#"value="&lt;i&gt;&quot;WDJB&quot;&lt;/i&gt; MJHT""#), "\(page.html)")
                let answer = try await Self.submit(server, ["user_code": prompt.userCode, "action": "approve"])
                #expect(answer.status == 200)
            }
            #expect(shown.withLock { $0?.userCode } == #"<i>"WDJB"</i> MJHT"#)
        }
    }
}
