extension OAuthTestServer {
    /// How the device authorization endpoint answers, changeable while the server runs through
    /// ``OAuthTestServer/deviceFlow``: a test changes the settings it needs, one by one.
    package struct DeviceFlowSettings: Sendable, Equatable {
        /// `expires_in` of new device codes, in seconds (600 by default); the code expires after it by the server's
        /// clock.
        package var expiresIn = 600
        /// `interval` of new device codes, in seconds (5 by default); `nil` sends none (clients then use 5 s).
        package var interval: Int? = 5
        /// Whether the response carries `verification_uri_complete`; by default it does.
        package var sendsVerificationURIComplete = true
        /// The next this many polls of any device code answer `slow_down`, whatever else is decided. Counted down.
        package var slowDownPolls = 0
        /// The user code of new device codes, verbatim (a hostile server's text, say); `nil` makes a random one.
        package var userCode: String?
        /// With `slow_down`, the new interval in seconds that the answer names, as GitHub's does; `nil` names none,
        /// as RFC 8628 §3.5 has it (the client adds 5 s).
        /// https://docs.github.com/en/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps#error-codes-for-the-device-flow
        package var slowDownInterval: Int?

        /// Creates the default settings.
        package init() {}
    }

    /// What the user does about a device code, as the test decides it (``OAuthTestServer/decide(userCode:_:afterPolls:)``).
    package enum DeviceDecision: Sendable, Equatable {
        /// The user approves as `subject`: the next poll gets tokens.
        case approve(subject: String)
        /// The user declines: the next poll gets `access_denied`.
        case deny
        /// The code expires now: the next poll gets `expired_token`.
        case expire
    }

    /// Counters of the device flow, read through ``OAuthTestServer/deviceFlowStats``.
    package struct DeviceFlowStats: Sendable, Equatable {
        /// Requests to the device authorization endpoint, whatever their outcome.
        package var authorizationRequests = 0
        /// Device codes issued.
        package var codesIssued = 0
        /// Token requests with the device code grant, whatever their outcome.
        package var polls = 0
        /// Answers to those polls by `error` code (`authorization_pending`, `slow_down`, `access_denied`,
        /// `expired_token`, `invalid_grant`), and `tokens` for successful ones.
        package var answers: [String: Int] = [:]

        /// Creates zeroed counters.
        package init() {}

        /// How many polls got `answer`.
        package func polls(answered answer: String) -> Int {
            answers[answer, default: 0]
        }
    }
}
