import Foundation
import Testing
@testable import TokenAuthSignIn

/// What the sign-in fuzz targets found, each as a specification (the inputs are in `Fuzz/Crashes/<target>/`).
@Suite("Fuzz findings: sign-in")
struct FuzzFindingTests {
    @Test("a request-target whose path starts with // is not the redirect path, though URLComponents reads a host there")
    func doubleSlashTarget() {
        // Fuzz/Crashes/loopback-redirect/double-slash-path.txt
        #expect(LoopbackRedirectListener.Request(target: "//evil.example/callback?code=c&state=s", path: "/callback") == nil)
        #expect(LoopbackRedirectListener.Request(target: "/callback?code=c&state=s", path: "/callback")?.single("code") == "c")
        let absolute = LoopbackRedirectListener.Request(target: "http://127.0.0.1:8400/callback?code=c", path: "/callback")
        #expect(absolute?.single("code") == "c", "the absolute form, which HTTP/1.1 servers must accept, still is")
    }

    @Test("the redirect page escapes a < or a quote that a combining mark follows")
    func escapingBeforeCombiningMark() {
        // Fuzz/Crashes/loopback-redirect/less-than-then-combining-mark.txt: `<` + U+0301 is one Character.
        #expect(RedirectPage.escape("<\u{301}script>\"\u{301}&\u{301}") == "&lt;\u{301}script&gt;&quot;\u{301}&amp;\u{301}")
        let page = RedirectPage.failed("The provider said <\u{301}b>.", advice: "Retry.")
        #expect(!page.html.contains("<\u{301}b"))
    }

    @Test("a device answer whose expires_in is positive but under an attosecond is unusable, not a code that lives 0 s")
    func attosecondLifetime() {
        // Fuzz/Crashes/device-authorization/expires-in-under-an-attosecond.json
        let body = #"{"device_code":"d","user_code":"u","verification_uri":"https://example.com/device","expires_in":1e-95}"#
        let error = #expect(throws: SignInError.self) { try DeviceAuthorization.interpret(Data(body.utf8), status: 200) }
        #expect(error?.code == .unusableDeviceAnswer)
        #expect(error?.reason.contains("no positive expires_in") == true)
    }

    @Test("a device answer whose verification_uri has an empty host is unusable")
    func emptyVerificationHost() {
        // Fuzz/Crashes/device-authorization/verification-uri-empty-host.json: `https://e@/device`.
        let body = #"{"device_code":"d","user_code":"u","verification_uri":"https://e@/device","expires_in":100}"#
        let error = #expect(throws: SignInError.self) { try DeviceAuthorization.interpret(Data(body.utf8), status: 200) }
        #expect(error?.code == .unusableDeviceAnswer)
    }
}
