/// Token types are case-insensitive (RFC 6749 §5.1); this library spells the common one `Bearer`.
package enum TokenType {
    package static func normalize(_ type: String) -> String {
        type.lowercased() == "bearer" ? "Bearer" : type
    }
}
