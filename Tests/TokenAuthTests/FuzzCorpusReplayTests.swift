import Foundation
import HTTPTypes
import OAuthTestSupport
import Testing
@testable import TokenAuth

/// Replays every seed and every input that ever crashed a fuzz target (`Fuzz/`, run by `scripts/fuzz`) through
/// the parser it was found with, and checks what the fuzz target checks: the parser returns or throws its own
/// error, never traps, and its result keeps the target's invariants.
@Suite("Fuzz corpus replay: TokenAuth parsers")
struct FuzzCorpusReplayTests {
    static let sentAt = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("every token-response input parses or throws a TokenAuthError, and parsed ones are usable")
    func tokenResponses() throws {
        var parsed = 0, rejected = 0
        for input in try FuzzInputs.all(of: "token-response") {
            let response: TokenResponse
            do {
                response = try TokenResponse.parse(data: input.bytes, sentAt: Self.sentAt)
            } catch {
                // Typed throws: a TokenAuthError is the only thing that can arrive here.
                rejected += 1
                continue
            }
            parsed += 1
            #expect(!response.accessToken.isEmpty, "\(input.name)")
            #expect(response.refreshToken.map { !$0.isEmpty } ?? true, "\(input.name)")
            #expect(response.scope.map { !$0.isEmpty } ?? true, "\(input.name)")
            #expect((response.expiresAt ?? Self.sentAt) >= Self.sentAt, "\(input.name)")
            let lifetime = (response.expiresAt ?? Self.sentAt).timeIntervalSince(Self.sentAt)
            #expect(lifetime <= TokenResponse.maximumLifetime.timeInterval, "\(input.name)")
            // What every process reading the stored tokens computes: it must not trap, whatever expires_in was.
            _ = response.auth(updating: nil).isFresh(at: Self.sentAt, leeway: .seconds(60))
        }
        #expect(parsed > 0 && rejected > 0, "the corpus covers both accepted and refused bodies")
    }

    @Test("every WWW-Authenticate input parses, and each challenge survives its own description")
    func authenticationChallenges() throws {
        var challengesRead = 0
        for input in try FuzzInputs.all(of: "www-authenticate") {
            let challenges = AuthenticationChallenge.parse(input.text)
            challengesRead += challenges.count
            for challenge in challenges {
                #expect(!challenge.scheme.isEmpty, "\(input.name)")
                #expect(challenge.parameters.keys.allSatisfy { $0 == $0.lowercased() }, "\(input.name)")
                #expect(AuthenticationChallenge.parse(challenge.description) == [challenge], "\(input.name)")
            }
            var response = HTTPResponse(status: .unauthorized)
            response.headerFields[.wwwAuthenticate] = input.text
            _ = AuthenticationChallenge.challenges(in: response)
        }
        #expect(challengesRead > 0, "the corpus holds readable challenges")
    }

    @Test("every Retry-After input gives no wait, or a wait within 0…TokenAuthError.maximumRetryAfter")
    func retryAfter() throws {
        var understood = 0, ignored = 0
        for input in try FuzzInputs.all(of: "retry-after") {
            if let wait = RetryAfter.parse(input.text, now: Self.sentAt) {
                #expect(wait >= .zero, "\(input.name)")
                #expect(wait <= TokenAuthError.maximumRetryAfter, "\(input.name)")
                understood += 1
            } else {
                ignored += 1
            }
        }
        #expect(understood > 0 && ignored > 0, "the corpus covers both understood and ignored values")
    }
}

/// What the fuzz targets found, each as a specification.
@Suite("Fuzz findings")
struct FuzzFindingTests {
    @Test("a quote in a parameter value is escaped in the description even when a combining mark follows it")
    func quoteBeforeCombiningMark() throws {
        // Fuzz/Crashes/www-authenticate/escaped-quote-then-combining-mark.txt: `"` + U+08E3 is one Character.
        let challenge = AuthenticationChallenge(scheme: "Bearer", parameters: ["realm": "\"\u{08E3}\\\u{0301}"])
        #expect(challenge.description == "Bearer realm=\"\\\"\u{08E3}\\\\\u{0301}\"")
        #expect(AuthenticationChallenge.parse(challenge.description) == [challenge])
    }
}

extension FuzzFindingTests {
    @Test("a Retry-After value that is not ASCII is ignored, never handed to DateFormatter")
    func nonASCIIRetryAfter() {
        // Fuzz/Crashes/retry-after/letter-then-combining-mark.txt: DateFormatter traps on `S` + U+05B1.
        #expect(RetryAfter.parse("S\u{05B1}", now: FuzzCorpusReplayTests.sentAt) == nil)
        #expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT\u{0301}", now: FuzzCorpusReplayTests.sentAt) == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: Date(timeIntervalSince1970: 0)) != nil)
    }
}
