// libFuzzer target: token endpoint response bodies (RFC 6749 §5.1 and §5.2), as an authorization server sends them.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/token-response, findings in Fuzz/Crashes/token-response.
// fuzz-dictionary: json-tokens
import Foundation
import TokenAuth

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let body = Data(UnsafeBufferPointer(start: bytes, count: count))
    let sentAt = Date(timeIntervalSince1970: 1_800_000_000)
    // Typed throws: every failure is a TokenAuthError by construction; crashes are what this looks for.
    guard let response = try? TokenResponse.parse(data: body, sentAt: sentAt) else { return 0 }
    precondition(!response.accessToken.isEmpty, "a token response without an access token")
    precondition(response.refreshToken.map { !$0.isEmpty } ?? true, "an empty refresh token kept")
    precondition(response.scope.map { !$0.isEmpty } ?? true, "an empty scope kept")
    if let expiresAt = response.expiresAt {
        precondition(expiresAt >= sentAt, "an expiry before the request was sent")
        precondition(
            expiresAt.timeIntervalSince(sentAt) <= Double(TokenResponse.maximumLifetime.components.seconds),
            "an expiry beyond TokenResponse.maximumLifetime")
    }
    // What every process reading the stored tokens computes: it must not trap, whatever expires_in was.
    let auth = response.auth(updating: nil)
    _ = auth.isFresh(at: sentAt, leeway: .seconds(60))
    _ = response.description
    return 0
}
