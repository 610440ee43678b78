// libFuzzer target: JWK Sets (RFC 7517 §5), as an issuer's jwks_uri answers them to IDTokenVerifier, through a
// transport that answers without a socket; then id_tokens signed by the fuzz keys (an ES256 and an Ed25519 key
// whose private halves are here) are checked against the keys read.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/jwks (Fuzz/Tools/signed-seeds.py writes fuzz-keys.json),
// findings in Fuzz/Crashes/jwks.
// fuzz-dictionary: openid
import Crypto
import Foundation
import HTTPTypes
import JWTKit
import TokenAuth
@testable import TokenAuthSignIn

private let issuer = "https://issuer.example"
private let now = Date(timeIntervalSince1970: 1_800_000_000)
// The fuzz keys of Fuzz/Tools/signed-seeds.py: SHA-256 of "TokenKeyring fuzz ES256" and "… EdDSA".
private let es256 = try! P256.Signing.PrivateKey(
    rawRepresentation: hex("e82d6b095f294f1d2469da1cafcf540bd1c9a7bba0c60b00ea92a29e9915e55b"))
private let eddsa = try! Curve25519.Signing.PrivateKey(
    rawRepresentation: hex("c0b09c00a52a2f327e79aaefb17707722761ef9a775c1a6cb9903b966566a630"))

/// A valid id_token signed by one fuzz key, and what a key set must hold for it to verify.
private struct Probe: Sendable {
    let token: String
    /// The `kid` the token names, which must then be the key's.
    let kid: String?
    let publishes: @Sendable (JWK) -> Bool
}

private let probes: [Probe] = {
    let claims = #"{"iss":"\#(issuer)","sub":"fuzz-subject","aud":"fuzz-client","iat":1800000000,"exp":1800003600}"#
    func token(_ header: String, sign: (Data) -> Data) -> String {
        let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        return input + "." + base64URL(sign(Data(input.utf8)))
    }
    let ecdsa = { (data: Data) in try! es256.signature(for: data).rawRepresentation }
    let ed = { (data: Data) in try! eddsa.signature(for: data) }
    let ecPoint = es256.publicKey.rawRepresentation
    let isES256 = { @Sendable (jwk: JWK) in
        jwk.keyType == .ecdsa && jwk.curve?.rawValue == "P-256"
            && unsignedInteger(jwk.x) == unsignedInteger(ecPoint.prefix(32))
            && unsignedInteger(jwk.y) == unsignedInteger(ecPoint.suffix(32))
    }
    let isEdDSA = { @Sendable (jwk: JWK) in
        jwk.keyType == .octetKeyPair && jwk.curve?.rawValue == "Ed25519"
            && jwk.x.flatMap(bytes(base64URL:)) == eddsa.publicKey.rawRepresentation
    }
    return [
        Probe(token: token(#"{"alg":"ES256","kid":"fuzz-es256"}"#, sign: ecdsa), kid: "fuzz-es256", publishes: isES256),
        Probe(token: token(#"{"alg":"ES256"}"#, sign: ecdsa), kid: nil, publishes: isES256),
        Probe(token: token(#"{"alg":"EdDSA","kid":"fuzz-eddsa"}"#, sign: ed), kid: "fuzz-eddsa", publishes: isEdDSA),
    ]
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let body = Data(UnsafeBufferPointer(start: bytes, count: count))
    let verifier = IDTokenVerifier(
        issuer: URL(string: issuer)!, clientID: "fuzz-client", jwksURI: URL(string: "https://issuer.example/jwks")!,
        transport: Answer(body: body), wallClock: { now })
    runToEnd {
        do {
            try await verifier.prepare()
        } catch let error as SignInError {
            precondition(error.code == .jwksMisconfigured, "a key set answered 200 failed with \(error.code)")
            precondition(!error.isTransient, "an unusable key set told as transient")
            return
        } catch {
            preconditionFailure("prepare threw \(type(of: error)), not SignInError")
        }
        let keys = try! await verifier.currentKeys()
        precondition(!keys.keys.isEmpty, "a key set without a usable key accepted")
        for (kid, jwk) in keys.keys {
            precondition(jwk.keyIdentifier?.string == kid, "a key filed under another kid")
            precondition([.rsa, .ecdsa, .octetKeyPair].contains(jwk.keyType), "a key of type \(jwk.keyType.rawValue)")
        }
        // A key set verifies a fuzz key's token only when it publishes that key (under the token's kid, if any).
        for probe in probes {
            guard (try? await verifier.verify(probe.token, nonce: nil)) != nil else { continue }
            if let kid = probe.kid {
                precondition(keys.keys[kid].map(probe.publishes) == true, "a token verified by a key not published as its kid")
            } else {
                precondition(keys.keys.values.contains(where: probe.publishes), "a token verified by a key not published")
            }
        }
    }
    return 0
}

/// A big-endian unsigned integer's bytes without leading zeros: the same number however it is padded.
private func unsignedInteger(_ data: some DataProtocol) -> [UInt8] {
    Array(data.drop(while: { $0 == 0 }))
}

private func unsignedInteger(_ base64URL: String?) -> [UInt8]? {
    base64URL.flatMap(bytes(base64URL:)).map { unsignedInteger($0) }
}

private func base64URL(_ data: some DataProtocol) -> String {
    Data(data).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// base64url with or without padding; `nil` for anything else.
private func bytes(base64URL text: String) -> Data? {
    var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while base64.hasSuffix("=") { base64.removeLast() }
    guard !base64.contains("=") else { return nil }
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    return Data(base64Encoded: base64)
}

private func hex(_ text: String) -> Data {
    Data(stride(from: 0, to: text.count, by: 2).map {
        UInt8(text.dropFirst($0).prefix(2), radix: 16)!
    })
}

/// Answers every request with 200 and `body`.
private struct Answer: HTTPTransport {
    let body: Data
    func send(_ request: HTTPRequest, body _: Data?) async throws -> (HTTPResponse, Data) {
        (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), body)
    }
}

/// Runs `body` on the concurrency pool and waits for its end: libFuzzer calls the target synchronously.
private func runToEnd(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task {
        await body()
        done.signal()
    }
    done.wait()
}
