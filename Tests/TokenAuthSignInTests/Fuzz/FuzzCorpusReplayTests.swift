import Foundation
import OAuthTestSupport
import Testing
@testable import TokenAuth
import TokenAuthTesting
@testable import TokenAuthSignIn

/// Replays every seed and every input that ever crashed a sign-in fuzz target (`Fuzz/`, run by `scripts/fuzz`)
/// through the parser it was found with, and checks what the target checks: the parser returns or throws its own
/// error, never traps, and its result keeps the target's invariants. Each test fails when its target has no seeds.
@Suite("Fuzz corpus replay: sign-in parsers")
struct FuzzCorpusReplayTests {
    static let documentURL = URL(string: "https://issuer.example/.well-known/openid-configuration")!
    static let issuer = "https://issuer.example"

    @Test("every discovery document is refused for its own reasons, or gives endpoints that keep credentials safe")
    func discoveryDocuments() throws {
        var parsed = 0, refused = 0
        for input in try FuzzInputs.all(of: "discovery-document") {
            // As Discovery asks: for a fixed issuer, and for the issuer the document names, as a URL's absoluteString.
            var issuers = [Self.issuer]
            let object = try? JSONSerialization.jsonObject(with: input.bytes, options: [.fragmentsAllowed]) as? [String: Any]
            if let named = object?["issuer"] as? String, let asked = URL(string: named)?.absoluteString, asked != Self.issuer {
                issuers.append(asked)
            }
            for issuer in issuers {
                let metadata: AuthorizationServerMetadata
                do {
                    metadata = try AuthorizationServerMetadata.decode(input.bytes, from: Self.documentURL, expectedIssuer: issuer)
                } catch {
                    let expected: [SignInError.Code] = [
                        .responseTooLarge, .metadataNotJSON, .issuerMismatch, .missingEndpoint, .insecureEndpoint,
                    ]
                    #expect(expected.contains(error.code), "\(input.name): \(error.code)")
                    #expect(!error.isTransient, "\(input.name)")
                    refused += 1
                    continue
                }
                parsed += 1
                #expect(metadata.issuer == issuer && !issuer.isEmpty, "\(input.name)")
                let endpoints = [
                    metadata.tokenEndpoint, metadata.authorizationEndpoint, metadata.revocationEndpoint,
                    metadata.deviceAuthorizationEndpoint, metadata.userinfoEndpoint, metadata.jwksURI,
                ]
                for case let endpoint? in endpoints {
                    #expect(Self.keepsCredentialsOffTheNetwork(endpoint), "\(input.name): \(endpoint)")
                }
                let client = metadata.client(id: "fuzz-client")
                #expect(client.tokenEndpoint == metadata.tokenEndpoint, "\(input.name)")
                #expect(client.issuer?.absoluteString == metadata.issuer, "\(input.name)")
                if metadata.jwksURI != nil {
                    let verifier = try IDTokenVerifier(metadata: metadata, clientID: "fuzz-client")
                    #expect(verifier.issuer.absoluteString == metadata.issuer, "\(input.name)")
                }
                if let endpoint = try? BrowserSignIn.authorizationEndpoint(of: metadata) {
                    #expect(endpoint == metadata.authorizationEndpoint, "\(input.name)")
                    let methods = metadata.codeChallengeMethodsSupported
                    #expect(methods.isEmpty || methods.contains("S256"), "\(input.name)")
                }
                let device = try? DeviceAuthorization(
                    metadata: metadata, clientID: "fuzz-client", transport: CannedTransport(json: "{}"))
                #expect((device != nil) == (metadata.deviceAuthorizationEndpoint != nil), "\(input.name)")
            }
        }
        #expect(parsed > 0 && refused > 0, "the corpus covers both usable and refused documents")
    }

    @Test("every device answer is refused as unusable, or has codes, a URI with a host and bounded numbers")
    func deviceAuthorizations() throws {
        var parsed = 0, refused = 0
        for input in try FuzzInputs.all(of: "device-authorization") {
            let code: DeviceAuthorization.DeviceCode
            do {
                code = try DeviceAuthorization.interpret(input.bytes, status: 200)
            } catch {
                #expect(error.code == .unusableDeviceAnswer && !error.isTransient, "\(input.name): \(error.code)")
                refused += 1
                continue
            }
            parsed += 1
            let prompt = code.prompt
            #expect(!code.deviceCode.isEmpty && !prompt.userCode.isEmpty, "\(input.name)")
            #expect(!(prompt.verificationURI.host ?? "").isEmpty, "\(input.name)")
            #expect(prompt.expiresIn > .zero && prompt.expiresIn <= DeviceAuthorization.maximumCodeLifetime, "\(input.name)")
            if let interval = code.interval {
                #expect(interval >= DeviceAuthorization.minimumInterval, "\(input.name)")
                #expect(interval <= DeviceAuthorization.maximumInterval, "\(input.name)")
            }
            var schedule = DevicePollSchedule(interval: code.interval, lifetime: prompt.expiresIn)
            var elapsed = Duration.zero
            for step in 0..<40 {
                guard let wait = schedule.nextWait(elapsed: elapsed) else { break }
                #expect(wait > .zero && wait <= DeviceAuthorization.maximumInterval * 64, "\(input.name)")
                elapsed += wait
                #expect(elapsed < prompt.expiresIn, "\(input.name)")
                let outcomes: [DevicePollSchedule.Outcome] = [
                    .pending, .slowDown(interval: code.interval), .transientFailure, .slowDown(interval: nil),
                ]
                schedule.record(outcomes[step % 4])
                #expect(schedule.interval <= DeviceAuthorization.maximumInterval, "\(input.name)")
            }
        }
        #expect(parsed > 0 && refused > 0, "the corpus covers both usable and unusable answers")
    }

    @Test("every UserInfo answer gives a name only for its own subject, and no error shows the access token")
    func userinfoAnswers() async throws {
        let subject = "248289761001", accessToken = "fuzz-access-token-Zq81"
        let endpoint = URL(string: "https://issuer.example/userinfo")!
        var named = 0, refused = 0
        for input in try FuzzInputs.all(of: "userinfo") {
            let verifier = IDTokenVerifier(
                issuer: URL(string: Self.issuer)!, clientID: "fuzz-client",
                jwksURI: URL(string: "https://issuer.example/jwks")!, transport: CannedTransport(body: input.bytes))
            do {
                let name = try await verifier.displayName(fromUserinfo: endpoint, accessToken: accessToken, subject: subject)
                if name != nil { named += 1 }
                #expect(name.map { !$0.isEmpty } ?? true, "\(input.name)")
                let text = input.text.drop(while: { $0 == "\u{FEFF}" || $0.isWhitespace })
                #expect(text.unicodeScalars.first == "{", "\(input.name)")
                let other = await #expect(throws: SignInError.self, "\(input.name)") {
                    try await verifier.displayName(fromUserinfo: endpoint, accessToken: accessToken, subject: subject + "0")
                }
                #expect(other?.code == .userinfoSubjectMismatch, "\(input.name)")
            } catch let error as SignInError {
                refused += 1
                #expect([.userinfoInvalid, .userinfoSubjectMismatch].contains(error.code), "\(input.name): \(error.code)")
                #expect(!"\(error) \(error.fix)".contains(accessToken), "\(input.name)")
            }
        }
        #expect(named > 0 && refused > 0, "the corpus covers both answers that name someone and refused ones")
    }

    /// `https` with a host, or `http` to a loopback host, read from the URL's text (as the fuzz target does).
    static func keepsCredentialsOffTheNetwork(_ url: URL) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let host = components.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return false }
        switch components.scheme?.lowercased() {
        case "https":
            return true
        case "http":
            if host.contains("%") { return false }
            if host == "localhost" || host == "localhost." { return true }
            let octets = host.split(separator: ".", omittingEmptySubsequences: false)
            if octets.count == 4, octets.allSatisfy({ $0.count <= 3 && UInt8($0) != nil }), octets[0] == "127" {
                return true
            }
            return host.contains(":") && LoopbackHost.contains(host)
        default:
            return false
        }
    }
}
