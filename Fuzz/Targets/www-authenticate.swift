// libFuzzer target: `WWW-Authenticate` field values (RFC 9110 §11.6.1, RFC 6750 §3), as a resource server sends them.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/www-authenticate, findings in Fuzz/Crashes/www-authenticate.
// fuzz-dictionary: www-authenticate
import HTTPTypes
@testable import TokenAuth

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let value = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let challenges = AuthenticationChallenge.parse(value)
    for challenge in challenges {
        precondition(!challenge.scheme.isEmpty, "a challenge without a scheme")
        precondition(challenge.parameters.keys.allSatisfy { $0 == $0.lowercased() }, "a parameter name not lowercased")
        // What the parser read, written back in header syntax, reads back the same.
        let reparsed = AuthenticationChallenge.parse(challenge.description)
        precondition(reparsed == [challenge], "a challenge does not survive its own description")
    }
    // The same value reached through a response, as AuthorizedClient reads it.
    var response = HTTPResponse(status: .unauthorized)
    response.headerFields[.wwwAuthenticate] = value
    _ = AuthenticationChallenge.challenges(in: response)
    _ = AuthenticationChallenge.bearerChallenge(in: response)
    return 0
}
