// libFuzzer target: the `Retry-After` header value (RFC 9110 §10.2.3), as a token endpoint sends it.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/retry-after, findings in Fuzz/Crashes/retry-after.
// fuzz-dictionary: retry-after
import Foundation
@testable import TokenAuth

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let value = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    // A wait is never negative (a date in the past means "now", a bad value means no wait was asked for) and
    // never longer than the bound, however far the date or large the number.
    if let wait = RetryAfter.parse(value, now: now) {
        precondition(wait >= .zero, "Retry-After gave a negative wait")
        precondition(wait <= TokenAuthError.maximumRetryAfter, "Retry-After gave a wait beyond the bound")
    }
    return 0
}
