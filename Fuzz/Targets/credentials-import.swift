// libFuzzer target: `tokenctl import`'s standard input — the stored format, a token response or a bare token.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/credentials-import, findings in Fuzz/Crashes/credentials-import.
// fuzz-dictionary: json-tokens
import Foundation
@testable import TokenAuthKeyring

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    // Typed throws: every failure is a CredentialsImport.Failure by construction; crashes are what this looks for.
    if let credentials = try? CredentialsImport.parse(text, receivedAt: Date(timeIntervalSince1970: 1_800_000_000)) {
        precondition(!credentials.auth.accessToken.isEmpty, "imported credentials without an access token")
    }
    return 0
}
