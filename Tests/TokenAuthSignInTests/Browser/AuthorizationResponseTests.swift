import Testing
@testable import TokenAuthSignIn

/// The redirect's query as RFC 6749 §4.1.2 sends it: `application/x-www-form-urlencoded` (Appendix B).
@Suite("The authorization response on the redirect")
struct AuthorizationResponseTests {
    static let state = "st-4Qx"

    static func response(_ query: String) -> AuthorizationResponse? {
        LoopbackRedirectListener.Request(target: "/callback?" + query, path: "/callback").map {
            AuthorizationResponse($0, state: state, issuer: nil, requiresIssuerParameter: false)
        }
    }

    @Test("an error's description is form-decoded: `+` is a space, `%2B` a plus sign, `%20` a space")
    func formDecodedError() throws {
        let answer = Self.response(
            "error=access_denied&error_description=The+user+declined%2C+1%2B1%20times&state=\(Self.state)")
        guard case .refused(let error)? = answer else {
            Issue.record("not a refusal: \(String(describing: answer))")
            return
        }
        #expect(error.code == .denied)
        #expect(error.oauthError?.errorDescription == "The user declined, 1+1 times")
    }

    @Test("a code and the state are form-decoded too")
    func formDecodedCode() {
        guard case .code(let code)? = Self.response("code=a%2Bb+c&state=\(Self.state.replacing("-", with: "%2D"))") else {
            Issue.record("no code")
            return
        }
        #expect(code == "a+b c")
    }
}
