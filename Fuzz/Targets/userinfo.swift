// libFuzzer target: UserInfo answers (OpenID Connect Core §5.3.2), as the UserInfo endpoint sends them to
// IDTokenVerifier.displayName(fromUserinfo:accessToken:subject:), through a transport that answers without a socket.
// Built and run by scripts/fuzz; seeds in Fuzz/Corpus/userinfo, findings in Fuzz/Crashes/userinfo.
// fuzz-dictionary: openid
import Foundation
import HTTPTypes
import TokenAuth
@testable import TokenAuthSignIn

private let subject = "248289761001"
private let accessToken = "fuzz-access-token-Zq81"
private let endpoint = URL(string: "https://issuer.example/userinfo")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let body = Data(UnsafeBufferPointer(start: bytes, count: count))
    let verifier = IDTokenVerifier(
        issuer: URL(string: "https://issuer.example")!, clientID: "fuzz-client",
        jwksURI: URL(string: "https://issuer.example/jwks")!, transport: Answer(body: body))
    runToEnd {
        do {
            let name = try await verifier.displayName(fromUserinfo: endpoint, accessToken: accessToken, subject: subject)
            precondition(name.map { !$0.isEmpty } ?? true, "an empty display name")
            // Only a JSON object names anyone: its first character, after white space and a byte order mark
            // (RFC 8259 §8.1), is `{`.
            let text = String(decoding: body, as: UTF8.self).drop(while: { $0 == "\u{FEFF}" || $0.isWhitespace })
            precondition(text.unicodeScalars.first == "{", "a UserInfo answer that is no JSON object was used")
            // And only one about this subject: the same answer is refused for any other.
            do {
                _ = try await verifier.displayName(fromUserinfo: endpoint, accessToken: accessToken, subject: subject + "0")
                preconditionFailure("a UserInfo answer accepted for two subjects")
            } catch let error as SignInError {
                precondition(error.code == .userinfoSubjectMismatch, "another subject refused with \(error.code)")
            }
        } catch let error as SignInError {
            let expected: [SignInError.Code] = [.userinfoInvalid, .userinfoSubjectMismatch]
            precondition(expected.contains(error.code), "displayName threw \(error.code)")
            precondition(!"\(error) \(error.fix)".contains(accessToken), "an error shows the access token")
        } catch {
            preconditionFailure("displayName threw \(type(of: error)), not SignInError")
        }
    }
    return 0
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
