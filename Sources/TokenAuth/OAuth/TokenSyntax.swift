/// What a token may look like. Tokens end up in `Authorization` header fields, where a space, a control character
/// or a line break would change the header's meaning or let a value inject another field.
package enum TokenSyntax {
    /// Whether `text` is an RFC 6750 §2.1 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
    package static func isB64Token(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars
        while scalars.last == "=" { scalars.removeLast() }
        return !scalars.isEmpty && scalars.allSatisfy { scalar in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "-._~+/".unicodeScalars.contains(scalar)
        }
    }

    /// Whether `text` can be sent in a header field as a token: at least one character, all of them visible ASCII
    /// (RFC 6749 Appendix A's `VSCHAR` without the space).
    package static func isHeaderSafe(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { (0x21...0x7E).contains($0.value) }
    }
}
