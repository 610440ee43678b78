import Hummingbird

/// The parameters of a POST to an endpoint that takes an `application/x-www-form-urlencoded` form: the token,
/// revocation and device authorization endpoints (RFC 6749 §3.2, RFC 7009 §2.1, RFC 8628 §3.1).
enum FormPost {
    /// The largest request body accepted.
    static let maximumSize = 64 * 1024

    /// The parameters of `request`, by name.
    ///
    /// - Throws: ``Refused`` with `405` for a method other than POST, and with `400 invalid_request` for another
    ///   content type, a body that is not validly encoded, or a parameter given more than once (RFC 6749 §3.2).
    static func parameters(of request: Request) async throws -> [String: String] {
        guard request.method == .post else { throw Refused(reply: Reply.methodNotAllowed(.post)) }
        var request = request
        let body = try await request.collectBody(upTo: maximumSize)
        guard (request.headers[.contentType]?.lowercased() ?? "").hasPrefix("application/x-www-form-urlencoded") else {
            throw invalid("The body must be application/x-www-form-urlencoded.")
        }
        guard let pairs = FormDecoding.pairs(String(buffer: body)) else {
            throw invalid("The form body is not validly encoded.")
        }
        var form: [String: String] = [:]
        for (name, value) in pairs where form.updateValue(value, forKey: name) != nil {
            throw invalid("The parameter \(name) appears more than once.")
        }
        return form
    }

    private static func invalid(_ description: String) -> Refused {
        Refused(reply: Reply.oauthError("invalid_request", description))
    }
}
