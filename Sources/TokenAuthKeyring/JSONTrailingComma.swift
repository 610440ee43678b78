/// Finds the one thing Foundation's JSON decoder takes that RFC 8259 does not: a comma before a closing `}` or `]`
/// (`{"access_token":"a",}`). The decoder takes it by design ("many JSON parsers, including Foundation's, allow for
/// trailing commas", swiftlang/swift-corelibs-foundation#4682) and has no option to refuse it; it refuses what else
/// lies outside RFC 8259 (comments, `NaN`, leading zeros, control characters in strings, lone surrogates).
enum JSONTrailingComma {
    /// Whether `text`, which the decoder has read as JSON, has a comma followed by white space and a closing `}` or
    /// `]` outside a string. Only strings need to be told apart from the structure: since the decoder read the
    /// text, each string starts and ends with an unescaped `"`.
    static func isPresent(in text: String) -> Bool {
        var inString = false, escaped = false, afterComma = false
        for byte in text.utf8 {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: ","): afterComma = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if afterComma { return true }
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): break
            case UInt8(ascii: "\""):
                inString = true
                afterComma = false
            default: afterComma = false
            }
        }
        return false
    }
}
