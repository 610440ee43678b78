// libFuzzer target: the keyring item's secret (the stored bundle format, Sources/TokenAuth/TokenAuth.docc/
// TheKeyringItem.md), which any program with access to the user's keyring can write.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/stored-bundle, findings in Fuzz/Crashes/stored-bundle.
// fuzz-dictionary: json-tokens
import TokenAuth
@testable import TokenAuth

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let secret = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    let credentials: StoredCredentials
    do {
        credentials = try StoredBundleFormat.decode(secret, entry: "fuzz")
    } catch is TokenAuthError {
        return 0
    } catch {
        preconditionFailure("decode threw \(type(of: error)), not TokenAuthError")
    }
    // Whatever is read can be saved and read back: a load followed by a save never leaves an unreadable item.
    do {
        let written = try StoredBundleFormat.encode(credentials)
        let rewritten = try StoredBundleFormat.encode(try StoredBundleFormat.decode(written, entry: "fuzz"))
        precondition(written == rewritten, "a saved bundle reads back differently")
    } catch {
        preconditionFailure("a decoded bundle does not survive a save: \(error)")
    }
    return 0
}
