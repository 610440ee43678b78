extension OAuthTestServer {
    /// A request as the server received it, kept so tests can check what a client sent — for example that an
    /// `Authorization` header did not follow a redirect to another origin.
    package struct RecordedRequest: Sendable, Equatable, Codable {
        /// The HTTP method.
        package var method: String
        /// The path and query, as sent.
        package var uri: String
        /// The header fields, with lowercased names; repeated fields are joined with `", "`.
        package var headers: [String: String]

        /// Creates a record.
        package init(method: String, uri: String, headers: [String: String]) {
            self.method = method
            self.uri = uri
            self.headers = headers
        }

        /// The value of a header field, by case-insensitive name.
        package func header(_ name: String) -> String? {
            headers[name.lowercased()]
        }
    }
}
