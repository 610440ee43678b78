/// Token types are case-insensitive (RFC 6749 §5.1); this library spells the common ones `Bearer` and
/// `DPoP` (RFC 9449).
package enum TokenType {
    package static func normalize(_ type: String) -> String {
        switch type.lowercased() {
        case "bearer": "Bearer"
        case "dpop": "DPoP"
        default: type
        }
    }
}
