import Crypto
import Foundation
import JWTKit
import OAuthTestSupport
import Testing
import TokenAuthTesting
@testable import TokenAuthSignIn

extension FuzzCorpusReplayTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("every key set is refused as misconfigured, or verifies a fuzz key's token only when it publishes that key")
    func keySets() async throws {
        let probes = FuzzKeys.probes()
        var usable = 0, refused = 0, verified = 0
        for input in try FuzzInputs.all(of: "jwks") {
            let verifier = IDTokenVerifier(
                issuer: URL(string: Self.issuer)!, clientID: "fuzz-client", jwksURI: URL(string: "https://issuer.example/jwks")!,
                transport: CannedTransport(body: input.bytes), wallClock: { Self.now })
            do {
                try await verifier.prepare()
            } catch let error as SignInError {
                #expect(error.code == .jwksMisconfigured && !error.isTransient, "\(input.name): \(error.code)")
                refused += 1
                continue
            }
            usable += 1
            let keys = try await verifier.currentKeys()
            #expect(!keys.keys.isEmpty, "\(input.name)")
            for (kid, jwk) in keys.keys {
                #expect(jwk.keyIdentifier?.string == kid && jwk.privateExponent == nil, "\(input.name)")
                #expect([.rsa, .ecdsa, .octetKeyPair].contains(jwk.keyType), "\(input.name)")
            }
            for probe in probes {
                guard (try? await verifier.verify(probe.token, nonce: nil)) != nil else { continue }
                verified += 1
                if let kid = probe.kid {
                    #expect(keys.keys[kid].map(probe.publishes) == true, "\(input.name): \(kid)")
                } else {
                    #expect(keys.keys.values.contains(where: probe.publishes), "\(input.name)")
                }
            }
        }
        #expect(usable > 0 && refused > 0 && verified > 0, "the corpus covers usable, refused and verifying key sets")
    }

    @Test("every id_token, as sent and signed again by each fuzz key, is refused for a reason about it or keeps the checks")
    func idTokens() async throws {
        let verifier = IDTokenVerifier(
            issuer: URL(string: Self.issuer)!, clientID: "fuzz-client", jwksURI: URL(string: "https://issuer.example/jwks")!,
            transport: CannedTransport(json: FuzzKeys.keySet), wallClock: { Self.now })
        var accepted = 0, refused = 0
        for input in try FuzzInputs.all(of: "id-token") {
            let token = input.text
            if let claims = await Self.verified(token, by: verifier, input.name) {
                accepted += 1
                Self.expectAccepted(claims, input.name)
                #expect(FuzzKeys.signedByAFuzzKey(token), "\(input.name): accepted without a fuzz key's signature for its alg")
            } else {
                refused += 1
            }
            let segments = token.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
            guard segments.count >= 2 else { continue }
            let signingInput = String(segments[0] + "." + segments[1])
            for (alg, signature) in [
                ("ES256", try FuzzKeys.es256.signature(for: Data(signingInput.utf8)).rawRepresentation),
                ("EdDSA", try FuzzKeys.eddsa.signature(for: Data(signingInput.utf8))),
            ] {
                let resigned = signingInput + "." + FuzzKeys.base64URL(signature)
                guard let claims = await Self.verified(resigned, by: verifier, input.name) else { continue }
                Self.expectAccepted(claims, input.name)
                #expect(FuzzKeys.header(of: signingInput)?["alg"] as? String == alg, "\(input.name): \(alg) for another alg")
            }
        }
        #expect(accepted > 0 && refused > 0, "the corpus covers both accepted and refused tokens")
    }

    private static func verified(_ token: String, by verifier: IDTokenVerifier, _ name: String) async -> IDTokenClaims? {
        do {
            return try await verifier.verify(token, nonce: "fuzz-nonce")
        } catch let error as SignInError {
            #expect(error.concernsIdentity, "\(name): \(error.code)")
            #expect(error.code != .jwksUnavailable && error.code != .jwksMisconfigured, "\(name): \(error.code)")
            #expect(token.count < 20 || !"\(error) \(error.fix)".contains(token), "\(name): the error shows the token")
            return nil
        } catch {
            Issue.record("\(name): verify threw \(type(of: error))")
            return nil
        }
    }

    /// What OpenID Connect Core §3.1.3.7 requires of an accepted token.
    private static func expectAccepted(_ claims: IDTokenClaims, _ name: String) {
        #expect(claims.issuer == issuer && !claims.subject.isEmpty, "\(name)")
        #expect(claims.audiences.contains("fuzz-client"), "\(name)")
        if let azp = claims.authorizedParty {
            #expect(azp == "fuzz-client", "\(name)")
        } else {
            #expect(claims.audiences.count == 1, "\(name): several audiences and no azp")
        }
        #expect(claims.expiresAt.timeIntervalSince(now) > -120 && claims.issuedAt.timeIntervalSince(now) <= 120, "\(name)")
        #expect(claims.nonce == "fuzz-nonce", "\(name)")
    }
}
