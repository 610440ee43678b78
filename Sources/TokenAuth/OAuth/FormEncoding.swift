#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `application/x-www-form-urlencoded` encoding for token requests (RFC 6749 Appendix B) and the encoding of
/// client credentials for HTTP Basic authentication (RFC 6749 §2.3.1).
package enum FormEncoding {
    /// Encodes name-value pairs as a form body, in order.
    package static func body(_ pairs: [(name: String, value: String)]) -> Data {
        Data(pairs.map { "\(escape($0.name))=\(escape($0.value))" }.joined(separator: "&").utf8)
    }

    /// The fields of a form-encoded body (`a=1&b=x+y`), decoded — `+` is a space, `%XX` a byte, by
    /// `percentDecoded` — the first of repeated names winning. `nil` when it is not a form: a pair without
    /// `=`, invalid percent-encoding, white space, or text that is not UTF-8. (`URLComponents` is not used: its query
    /// setter traps on invalid percent-encoding, which any server could send.)
    package static func fields(of body: Data) -> [String: String]? {
        guard let text = String(validating: body, as: UTF8.self)?.trimmingWhitespace,
            text.contains("="), !text.contains(where: { $0.isWhitespace })
        else { return nil }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "="),
                let name = decoded(pair[..<equals]), let value = decoded(pair[pair.index(after: equals)...])
            else { return nil }
            if fields[name] == nil { fields[name] = value }
        }
        return fields
    }

    /// One form-encoded name or value, decoded — `+` is a space, `%XX` a byte; `nil` when its percent-encoding is
    /// invalid or the bytes are not UTF-8. Also for a redirect's query, which RFC 6749 §4.1.2 encodes so.
    package static func decoded(_ text: Substring) -> String? {
        text.replacing("+", with: " ").percentDecoded
    }

    /// Escapes one name or value: the RFC 3986 unreserved characters stay, a space becomes `+`, and every other
    /// UTF-8 byte becomes `%XX` with uppercase hex digits.
    package static func escape(_ string: String) -> String {
        var result = ""
        result.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                result.append("+")
            default:
                result.append("%")
                result.append(hexDigits[Int(byte >> 4)])
                result.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return result
    }

    /// The `Authorization` header value for `client_secret_basic`: the client id and secret are each
    /// form-encoded, joined with `:`, and the result base64-encoded (RFC 6749 §2.3.1).
    ///
    /// Encoding first matters: an id or secret containing `:` or non-ASCII characters would otherwise be split or
    /// decoded differently by the server.
    package static func basicAuthorization(clientID: String, clientSecret: String) -> String {
        "Basic " + Data("\(escape(clientID)):\(escape(clientSecret))".utf8).base64EncodedString()
    }

    private static let hexDigits: [Character] = Array("0123456789ABCDEF")
}

extension UInt8 {
    /// Space, tab, line feed or carriage return: JSON's white space.
    var isASCIIWhitespace: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
