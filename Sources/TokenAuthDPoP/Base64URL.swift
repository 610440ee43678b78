import Foundation

/// Base64url without padding (RFC 4648 §5), as JOSE writes every binary member: Foundation's base64 with the URL
/// alphabet's two letters swapped in byte by byte. A proof has four such members; `String.replacingOccurrences` went
/// through NSString on Linux, and took a third of a proof's time.
enum Base64URL {
    static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let base64 = Array(Data(bytes).base64EncodedData())
        var count = base64.count
        while count > 0, base64[count - 1] == UInt8(ascii: "=") { count -= 1 }
        return String(unsafeUninitializedCapacity: count) { buffer in
            for index in 0..<count {
                let byte = base64[index]
                buffer[index] = byte == UInt8(ascii: "+") ? UInt8(ascii: "-") : byte == UInt8(ascii: "/") ? UInt8(ascii: "_") : byte
            }
            return count
        }
    }

    /// The bytes of `text`, or `nil` when it is not base64url (standard base64's `+`, `/` and `=` included).
    static func decode(_ text: String) -> Data? {
        var base64 = [UInt8]()
        base64.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "-"): base64.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): base64.append(UInt8(ascii: "/"))
            case UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="): return nil
            default: base64.append(byte)
            }
        }
        base64.append(contentsOf: repeatElement(UInt8(ascii: "="), count: (4 - base64.count % 4) % 4))
        return Data(base64Encoded: Data(base64))
    }
}
