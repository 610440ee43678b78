// libFuzzer target: the request-target of a request to the loopback redirect listener (RFC 8252 §7.3), such as
// `/callback?code=…&state=…`, which any local program or web page can make a browser send; read into a request on
// the redirect path, then into a code or a refusal for a sign-in in progress, and the page the browser is shown.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/loopback-redirect, findings in Fuzz/Crashes/loopback-redirect.
// fuzz-dictionary: loopback-redirect
import Foundation
@testable import TokenAuthSignIn

private let path = "/callback"
private let state = "fuzz-state-Qx7"
private let issuer = "https://issuer.example"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let target = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    checkEscaping(target)
    guard let request = LoopbackRedirectListener.Request(target: target, path: path) else { return 0 }
    // Only the redirect path: origin-form (`/callback`, `/callback?…`) or absolute-form with that path.
    // (Byte by byte: `?` and a combining mark after it are one Character.)
    let targetPath = target.utf8.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }
    if target.utf8.first == UInt8(ascii: "/") {
        precondition(targetPath.elementsEqual(path.utf8), "a request for another path taken as the redirect")
    } else {
        let url = URLComponents(string: target)
        precondition(url?.scheme != nil && url?.percentEncodedPath == path, "a request-target that is no URL taken")
    }
    for (issuer, required) in [(nil, false), (issuer, false), (issuer, true)] as [(String?, Bool)] {
        check(AuthorizationResponse(request, state: state, issuer: issuer, requiresIssuerParameter: required),
              of: request, issuer: issuer, required: required)
    }
    return 0
}

private func check(_ response: AuthorizationResponse, of request: LoopbackRedirectListener.Request, issuer: String?, required: Bool) {
    switch response {
    case .otherState:
        precondition(request.single("state") != state, "the sign-in's state taken for another")
    case .code(let code):
        precondition(request.single("state") == state, "a code without the sign-in's state")
        precondition(!code.isEmpty && request.single("code") == code, "a code that is not the one code sent")
        precondition(request.count(of: "error") == 0, "a code from a response that carries an error")
        if let issuer {
            precondition(request.count(of: "iss") <= 1 && (request.single("iss") ?? issuer) == issuer, "a code from another issuer")
            precondition(!required || request.single("iss") == issuer, "a code without the promised iss")
        }
    case .refused(let error):
        precondition(request.single("state") == state, "a refusal ends a sign-in the request does not belong to")
        let expected: [SignInError.Code] = [.denied, .unavailable, .rejected, .responseIssuerMismatch, .malformedResponse]
        precondition(expected.contains(error.code), "refused with \(error.code)")
        // The texts never contain the code: the same request with another code is refused in the same words.
        var recoded = request
        recoded.parameters = request.parameters.map { ($0.name, $0.name == "code" && !$0.value.isEmpty ? "\u{1}" : $0.value) }
        guard case .refused(let same) = AuthorizationResponse(recoded, state: state, issuer: issuer, requiresIssuerParameter: required)
        else { preconditionFailure("a refusal that depends on the code's value") }
        precondition(same.description == error.description && same.fix == error.fix, "a refusal's text shows the code")
        // Nor the state, unless another parameter carries it too.
        let shown = request.parameters.filter { $0.name != "state" }.map { SignInError.clean($0.value, limit: .max) }
        if !shown.contains(where: { $0.contains(state) }) {
            precondition(!error.description.contains(state), "a refusal's text shows the state")
        }
        checkEscaping(error.reason + " " + error.fix)
    }
}

/// The page's texts come from the query: once escaped, no markup character is left and every `&` starts an entity.
private func checkEscaping(_ text: String) {
    let escaped = RedirectPage.escape(text)
    let scalars = Array(escaped.unicodeScalars)
    for (index, scalar) in scalars.enumerated() {
        precondition(!"<>\"'".unicodeScalars.contains(scalar), "an unescaped \(scalar) in the redirect page")
        if scalar == "&" {
            let rest = scalars[index...]
            precondition(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"].contains { rest.starts(with: $0.unicodeScalars) },
                "a bare & in the page")
        }
    }
}
