import Foundation

extension OAuthTestServer {
    // MARK: - Discovery

    /// What the well-known metadata URLs serve. Setting it takes effect with the next request.
    package var discovery: DiscoverySettings {
        get { state[\.flows.discovery] }
        set { state[\.flows.discovery] = newValue }
    }

    /// The issuer identifier the metadata document names by default: ``baseURL`` followed by
    /// ``DiscoverySettings/issuerPath``.
    package var issuer: URL {
        URL(string: baseURL.absoluteString + discovery.issuerPath)!
    }

    /// The well-known URL of `form` for the current ``discovery`` settings.
    package func metadataURL(_ form: WellKnownURL) -> URL {
        url(discovery.path(of: form))
    }

    /// How many requests reached the well-known URL of `form`, whether or not it serves the document there.
    package func discoveryRequests(at form: WellKnownURL) -> Int {
        let path = discovery.path(of: form)
        return state.withLock { $0.flows.discoveryRequests[path, default: 0] }
    }

    /// How many requests reached any well-known URL.
    package var totalDiscoveryRequests: Int {
        state.withLock { $0.flows.discoveryRequests.values.reduce(0, +) }
    }

    // MARK: - Browser sign-in

    /// The authorization endpoint, `/authorize` (RFC 6749 §3.1).
    package var authorizationEndpoint: URL { url("/authorize") }

    /// How the authorization endpoint answers. Setting it takes effect with the next request.
    package var browserFlow: BrowserFlowSettings {
        get { state[\.flows.browser] }
        set { state[\.flows.browser] = newValue }
    }

    /// The browser flow's counters so far.
    package var browserFlowStats: BrowserFlowStats { state[\.flows.browserStats] }

    // MARK: - Device authorization

    /// The device authorization endpoint, `/device_authorization` (RFC 8628 §3.1).
    package var deviceAuthorizationEndpoint: URL { url("/device_authorization") }

    /// How new device codes are issued and how many polls answer `slow_down`. Setting it takes effect with the
    /// next request.
    package var deviceFlow: DeviceFlowSettings {
        get { state[\.flows.deviceFlow] }
        set { state[\.flows.deviceFlow] = newValue }
    }

    /// The device flow's counters so far.
    package var deviceFlowStats: DeviceFlowStats { state[\.flows.deviceStats] }

    /// The user codes of the device codes still live, in no particular order.
    package var pendingUserCodes: [String] {
        state.withLock { $0.flows.deviceGrants.values.map(\.userCode) }
    }

    /// The device verification page, `/device`: the `verification_uri` of every device code, where a person (or a
    /// test posting its form) approves or denies a user code. `POST /_admin/device/decide` does the same over HTTP.
    package var deviceVerificationPage: URL { url(DeviceVerificationPage.path) }

    /// Decides, as the user would, what happens to the device code shown as `userCode`, whether or not it was
    /// decided before (unlike the verification page, which decides a code once).
    ///
    /// - Parameters:
    ///   - userCode: The code the client showed, compared as RFC 8628 §6.1 suggests: without dashes and spaces,
    ///     case-insensitively.
    ///   - decision: Approve, deny or expire.
    ///   - afterPolls: How many more polls answer `authorization_pending` first.
    /// - Returns: Whether a live device code has that user code.
    @discardableResult
    package func decide(userCode: String, _ decision: DeviceDecision, afterPolls: Int = 0) -> Bool {
        state.withLock { contents in
            guard let deviceCode = contents.flows.deviceCode(forUserCode: userCode) else { return false }
            contents.flows.deviceGrants[deviceCode]?.decision = decision
            contents.flows.deviceGrants[deviceCode]?.pollsBeforeDecision = max(0, afterPolls)
            return true
        }
    }
}
