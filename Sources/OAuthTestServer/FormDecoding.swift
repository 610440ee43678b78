/// Decoding of `application/x-www-form-urlencoded` bodies and of the form-encoded parts of HTTP Basic credentials.
///
/// The server decodes forms itself, independently of any client code, so that tests of a client's encoding
/// meet an independent implementation.
enum FormDecoding {
    /// Splits a form body into its name-value pairs, in order, with `+` and percent-escapes decoded.
    ///
    /// Returns `nil` when an escape is malformed or a decoded value is not UTF-8.
    static func pairs(_ body: String) -> [(name: String, value: String)]? {
        var result: [(name: String, value: String)] = []
        for field in body.split(separator: "&", omittingEmptySubsequences: true) {
            let name: Substring
            let value: Substring
            if let equals = field.firstIndex(of: "=") {
                name = field[..<equals]
                value = field[field.index(after: equals)...]
            } else {
                name = field
                value = ""
            }
            guard let decodedName = decode(name), let decodedValue = decode(value) else { return nil }
            result.append((decodedName, decodedValue))
        }
        return result
    }

    /// Decodes one form-encoded component: `+` is a space, `%XX` a byte.
    static func decode(_ component: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(component.utf8.count)
        var iterator = component.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
