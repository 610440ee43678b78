import Foundation
@testable import OAuthTestServer
import Testing
@testable import TokenAuth

@Suite("Form encoding of token requests")
struct FormEncodingTests {
    @Test("unreserved characters stay as they are")
    func unreservedCharactersStay() {
        let unreserved = "ABCXYZabcxyz0189-._~"
        #expect(FormEncoding.escape(unreserved) == unreserved)
    }

    @Test("a space becomes a plus sign")
    func spaceBecomesPlus() {
        #expect(FormEncoding.escape("read write") == "read+write")
    }

    @Test("reserved and other characters are percent-encoded with uppercase hex")
    func reservedCharactersArePercentEncoded() {
        #expect(FormEncoding.escape("a+b&c=d/e?f:g%h*i'!") == "a%2Bb%26c%3Dd%2Fe%3Ff%3Ag%25h%2Ai%27%21")
    }

    @Test("non-ASCII characters are encoded as their UTF-8 bytes")
    func nonASCIIIsUTF8() {
        #expect(FormEncoding.escape("é€") == "%C3%A9%E2%82%AC")
    }

    @Test("a body joins the encoded pairs with ampersands, in order")
    func bodyJoinsPairsInOrder() {
        let body = FormEncoding.body([(name: "grant_type", value: "password"), (name: "scope", value: "a b&c")])
        #expect(String(decoding: body, as: UTF8.self) == "grant_type=password&scope=a+b%26c")
    }

    @Test("the server's independent decoder reads back exactly what was encoded")
    func serverDecodesWhatClientEncodes() throws {
        let values = ["plain", "with space", "+plus+", "a&b=c", "100%", "ünïcödé 🙂", "", "~-._", "line\nbreak"]
        let pairs = values.enumerated().map { (name: "k\($0.offset) x", value: $0.element) }
        let decoded = try #require(FormDecoding.pairs(String(decoding: FormEncoding.body(pairs), as: UTF8.self)))
        #expect(decoded.map(\.name) == pairs.map(\.name))
        #expect(decoded.map(\.value) == values)
    }

    @Test("Basic credentials form-encode id and secret before base64 (RFC 6749 §2.3.1)")
    func basicCredentialsEncodeBeforeBase64() throws {
        let header = FormEncoding.basicAuthorization(clientID: "client:1 é", clientSecret: "p@ss:w+rd/=")
        #expect(header.hasPrefix("Basic "))
        let decoded = try #require(Data(base64Encoded: String(header.dropFirst("Basic ".count))))
        #expect(String(decoding: decoded, as: UTF8.self) == "client%3A1+%C3%A9:p%40ss%3Aw%2Brd%2F%3D")
    }

    @Test("Basic credentials of plain ASCII look like ordinary HTTP Basic")
    func basicCredentialsOfPlainASCII() {
        #expect(FormEncoding.basicAuthorization(clientID: "app", clientSecret: "secret") == "Basic YXBwOnNlY3JldA==")
    }
}
