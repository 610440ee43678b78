// libFuzzer target: id_tokens (OpenID Connect Core §2, §3.1.3.7), as a token endpoint returns them, checked by
// IDTokenVerifier.verify(_:nonce:) against a fixed key set (an ES256 and an Ed25519 key whose private halves are
// here), a fixed wall clock, issuer, client and nonce.
//
// Each input is verified twice: as it is, and with its first two segments signed again by each fuzz key, so that
// any header and any claims reach the claim checks (a mutated token almost never keeps a valid signature).
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/id-token (Fuzz/Tools/signed-seeds.py signs them), findings
// in Fuzz/Crashes/id-token.
// fuzz-dictionary: openid
import Crypto
import Foundation
import HTTPTypes
import TokenAuth
@testable import TokenAuthSignIn

private let issuer = "https://issuer.example"
private let clientID = "fuzz-client"
private let nonce = "fuzz-nonce"
private let now = Date(timeIntervalSince1970: 1_800_000_000)
// The fuzz keys of Fuzz/Tools/signed-seeds.py: SHA-256 of "TokenKeyring fuzz ES256" and "… EdDSA".
private let es256 = try! P256.Signing.PrivateKey(
    rawRepresentation: hex("e82d6b095f294f1d2469da1cafcf540bd1c9a7bba0c60b00ea92a29e9915e55b"))
private let eddsa = try! Curve25519.Signing.PrivateKey(
    rawRepresentation: hex("c0b09c00a52a2f327e79aaefb17707722761ef9a775c1a6cb9903b966566a630"))
private let keySet = """
    {"keys":[{"kty":"EC","crv":"P-256","kid":"fuzz-es256","alg":"ES256","use":"sig",
    "x":"32wkH69wsMWryu4v5mUP7uVt2vilYU04ljK-nLFvnew","y":"g7a-1DbD0hbwGpGYSHONjlLlc0_41mQatEij_4oI-lQ"},
    {"kty":"OKP","crv":"Ed25519","kid":"fuzz-eddsa","x":"eLfpRCKNMEZhqTQENwgdm67AeTKB8h1OdcIhFd9Gl-c"}]}
    """
// One verifier for every input: its key set is fetched once, and the clock never moves, so an unknown kid is
// answered from the cache (keyNotYetFetched) without fetching again.
private let verifier = IDTokenVerifier(
    issuer: URL(string: issuer)!, clientID: clientID, jwksURI: URL(string: "https://issuer.example/jwks")!,
    transport: Answer(body: Data(keySet.utf8)), wallClock: { now })

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let token = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    runToEnd {
        if let claims = await verified(token) {
            checkAccepted(claims)
            precondition(signedByAFuzzKey(token), "a token accepted whose signature no fuzz key made for its alg")
        }
        let segments = token.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard segments.count >= 2 else { return }
        let signingInput = segments[0] + "." + segments[1]
        for (alg, signature) in [
            ("ES256", try! es256.signature(for: Data(signingInput.utf8)).rawRepresentation),
            ("EdDSA", try! eddsa.signature(for: Data(signingInput.utf8))),
        ] {
            guard let claims = await verified(signingInput + "." + base64URL(signature)) else { continue }
            checkAccepted(claims)
            precondition(header(of: signingInput)?["alg"] as? String == alg, "a \(alg) signature accepted for another alg")
        }
    }
    return 0
}

/// The claims when the verifier accepts `token`; `nil` when it refuses it with an `id_token` error.
private func verified(_ token: String) async -> IDTokenClaims? {
    do {
        return try await verifier.verify(token, nonce: nonce)
    } catch let error as SignInError {
        precondition(error.concernsIdentity, "verify threw \(error.code), which is not about the id_token")
        precondition(error.code != .jwksUnavailable && error.code != .jwksMisconfigured, "the fixed key set failed")
        precondition(token.count < 20 || !"\(error) \(error.fix)".contains(token), "an error shows the token")
        return nil
    } catch {
        preconditionFailure("verify threw \(type(of: error)), not SignInError")
    }
}

/// What OpenID Connect Core §3.1.3.7 requires of an accepted token, checked on the claims it returned.
private func checkAccepted(_ claims: IDTokenClaims) {
    precondition(claims.issuer == issuer, "an id_token of another issuer accepted")
    precondition(!claims.subject.isEmpty, "an id_token without a subject accepted")
    precondition(claims.audiences.contains(clientID), "an id_token for another client accepted")
    if let azp = claims.authorizedParty {
        precondition(azp == clientID, "an id_token authorized to another party accepted")
    } else {
        precondition(claims.audiences.count == 1, "several audiences and no azp accepted")
    }
    precondition(claims.expiresAt.timeIntervalSince(now) > -120, "an expired id_token accepted")
    precondition(claims.issuedAt.timeIntervalSince(now) <= 120, "an id_token issued in the future accepted")
    precondition(claims.nonce == nonce, "an id_token with another nonce accepted")
}

/// Whether `token` is three segments whose signature one fuzz key made over the first two, for the header's alg:
/// checked with swift-crypto directly rather than through jwt-kit.
private func signedByAFuzzKey(_ token: String) -> Bool {
    let segments = token.split(separator: ".", omittingEmptySubsequences: false)
    guard segments.count == 3, let signature = bytes(base64URL: segments[2]) else { return false }
    let signed = Data((segments[0] + "." + segments[1]).utf8)
    switch header(of: String(segments[0]))?["alg"] as? String {
    case "ES256":
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
        return es256.publicKey.isValidSignature(ecdsa, for: signed)
    case "EdDSA":
        return eddsa.publicKey.isValidSignature(signature, for: signed)
    default:
        return false
    }
}

/// The JOSE header of `token` (or of its first segment), read with JSONSerialization.
private func header(of token: some StringProtocol) -> [String: Any]? {
    guard let first = token.split(separator: ".", omittingEmptySubsequences: false).first,
        let data = bytes(base64URL: first)
    else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

private func base64URL(_ data: some DataProtocol) -> String {
    Data(data).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// base64url with or without padding; `nil` for anything else.
private func bytes(base64URL text: some StringProtocol) -> Data? {
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
