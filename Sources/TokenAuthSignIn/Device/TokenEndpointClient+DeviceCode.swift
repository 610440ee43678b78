import TokenAuth
extension TokenEndpointClient {
    /// The grant type of the device authorization grant (RFC 8628 §3.4).
    public static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Asks once whether the user has approved a device code (RFC 8628 §3.4).
    ///
    /// Most apps use ``DeviceAuthorization``, which polls with this at the server's interval. While the user has
    /// not decided, the server answers with an error whose `TokenAuthError.oauthErrorCode` is
    /// `authorization_pending` or `slow_down` (the latter classified `TokenAuthError.Code.rateLimited`).
    ///
    /// - Parameters:
    ///   - deviceCode: The `device_code` from the device authorization response. Never appears in an error.
    ///   - proofKey: The key to bind the tokens to, with a DPoP proof (RFC 9449 §5); `nil` for bearer tokens.
    /// - Throws: `TokenAuthError`, or `CancellationError`.
    public func deviceCode(_ deviceCode: String, proofKey: ProofKey? = nil) async throws -> TokenResponse {
        try await requestToken(
            [(name: "grant_type", value: Self.deviceCodeGrantType), (name: "device_code", value: deviceCode)],
            secrets: [deviceCode], proofKey: proofKey)
    }
}
