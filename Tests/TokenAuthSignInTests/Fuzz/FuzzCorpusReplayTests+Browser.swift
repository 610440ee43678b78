import Foundation
import OAuthTestSupport
import Testing
@testable import TokenAuthSignIn

extension FuzzCorpusReplayTests {
    static let redirectPath = "/callback"
    static let state = "fuzz-state-Qx7"

    @Test("every redirect request-target is another path, another sign-in, a code or a refusal, never a code and an error")
    func loopbackRedirects() throws {
        var codes = 0, refusals = 0, otherPaths = 0
        for input in try FuzzInputs.all(of: "loopback-redirect") {
            let target = input.text
            Self.expectEscaped(target, input.name)
            guard let request = LoopbackRedirectListener.Request(target: target, path: Self.redirectPath) else {
                otherPaths += 1
                continue
            }
            let targetPath = target.utf8.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
            if target.utf8.first == UInt8(ascii: "/") {
                #expect(targetPath.elementsEqual(Self.redirectPath.utf8), "\(input.name)")
            } else {
                let url = URLComponents(string: target)
                #expect(url?.scheme != nil && url?.percentEncodedPath == Self.redirectPath, "\(input.name)")
            }
            for (issuer, required) in [(nil, false), (Self.issuer, false), (Self.issuer, true)] as [(String?, Bool)] {
                let response = AuthorizationResponse(
                    request, state: Self.state, issuer: issuer, requiresIssuerParameter: required)
                switch response {
                case .otherState:
                    #expect(request.single("state") != Self.state, "\(input.name)")
                case .code(let code):
                    codes += 1
                    #expect(request.single("state") == Self.state, "\(input.name)")
                    #expect(!code.isEmpty && request.single("code") == code, "\(input.name)")
                    #expect(request.count(of: "error") == 0, "\(input.name): a code and an error")
                    if let issuer {
                        #expect(request.count(of: "iss") <= 1 && (request.single("iss") ?? issuer) == issuer, "\(input.name)")
                        #expect(!required || request.single("iss") == issuer, "\(input.name)")
                    }
                case .refused(let error):
                    refusals += 1
                    #expect(request.single("state") == Self.state, "\(input.name)")
                    let expected: [SignInError.Code] = [.denied, .unavailable, .rejected, .responseIssuerMismatch, .malformedResponse]
                    #expect(expected.contains(error.code), "\(input.name): \(error.code)")
                    // The code's value never reaches the texts; the state reaches them only through another parameter.
                    var recoded = request
                    recoded.parameters = request.parameters.map {
                        ($0.name, $0.name == "code" && !$0.value.isEmpty ? "\u{1}" : $0.value)
                    }
                    let same = AuthorizationResponse(recoded, state: Self.state, issuer: issuer, requiresIssuerParameter: required)
                    if case .refused(let other) = same {
                        #expect(other.description == error.description && other.fix == error.fix, "\(input.name)")
                    } else {
                        Issue.record("\(input.name): a refusal that depends on the code's value")
                    }
                    let shown = request.parameters.filter { $0.name != "state" }.map { SignInError.clean($0.value, limit: .max) }
                    if !shown.contains(where: { $0.contains(Self.state) }) {
                        #expect(!error.description.contains(Self.state), "\(input.name)")
                    }
                    Self.expectEscaped(error.reason + " " + error.fix, input.name)
                }
            }
        }
        #expect(codes > 0 && refusals > 0 && otherPaths > 0, "the corpus covers codes, refusals and other paths")
    }

    /// Once escaped for the redirect page, no markup character is left and every `&` starts a character reference.
    static func expectEscaped(_ text: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let scalars = Array(RedirectPage.escape(text).unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            #expect(!"<>\"'".unicodeScalars.contains(scalar), "\(name): \(scalar)", sourceLocation: sourceLocation)
            if scalar == "&" {
                let references = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]
                #expect(
                    references.contains { scalars[index...].starts(with: $0.unicodeScalars) }, "\(name): a bare &",
                    sourceLocation: sourceLocation)
            }
        }
    }
}
