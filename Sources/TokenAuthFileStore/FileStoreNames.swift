/// The file names of ``FileAuthStore``'s items: `SERVICE+ACCOUNT.json`, each part percent-encoded so that a name is
/// one path component whatever the service and account hold — no `/`, no `..`, no NUL, no leading `.` — and is read
/// back into the same service and account.
///
/// Letters, digits, `-`, `_` and `.` stand as they are (but a `.` that begins a part); every other byte of the UTF-8
/// text is `%XX` with upper-case hex digits, `+` and `%` included, so the one `+` separates the parts and every
/// service and account has exactly one name. Files that are not such names (temporary files, which begin with `.`,
/// and files kept aside, which do not end in `.json`) are not items.
enum FileStoreNames {
    /// The suffix of every item's name.
    static let suffix = ".json"
    /// The longest name: room is left for a temporary file's and a kept-aside file's additions within the
    /// 255 bytes of a file name.
    static let maximumLength = 200

    /// The file name of the item of `account` on `service`, or `nil` when it would be longer than ``maximumLength``.
    static func fileName(service: String, account: String) -> String? {
        let name = encode(service) + "+" + encode(account) + suffix
        return name.utf8.count <= maximumLength ? name : nil
    }

    /// The service and account of an item's file name; `nil` for any other name.
    static func item(fromFileName name: String) -> (service: String, account: String)? {
        guard name.hasSuffix(suffix), !name.hasPrefix(".") else { return nil }
        let parts = name.dropLast(suffix.count).split(separator: "+", omittingEmptySubsequences: false)
        guard parts.count == 2, let service = decode(parts[0]), let account = decode(parts[1]),
            fileName(service: service, account: account) == name
        else { return nil }
        return (service, account)
    }

    private static func encode(_ text: String) -> String {
        var encoded = ""
        for (index, byte) in text.utf8.enumerated() {
            let plain = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x2D || byte == 0x5F || (byte == 0x2E && index > 0)
            if plain {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// The text of an encoded part; `nil` when it is not valid percent-encoding of UTF-8.
    private static func decode(_ part: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = part.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == 0x25 else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next(), let low = utf8.next(),
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
