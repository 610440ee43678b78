import Foundation

/// Finding a device code by the user code a person typed, and deciding it as the verification page and the admin
/// call do.
extension FlowState {
    /// What became of a decision asked for by the user code a person typed.
    enum UserDecisionOutcome: Equatable {
        /// The decision is recorded: the next poll of the device code gets it. `userCode` is the code as issued.
        case decided(userCode: String)
        /// No live device code has that user code: it is wrong, or its device code already got its answer.
        case unknown
        /// The device code's lifetime is over (or a test expired it): its next poll gets `expired_token`.
        case expired
        /// The code was decided before; the earlier decision stands.
        case alreadyDecided(OAuthTestServer.DeviceDecision)
    }

    /// `typed` as RFC 8628 §6.1 suggests comparing user codes: without the dashes and spaces a person may type
    /// (or leave out), and case-insensitively.
    static func comparable(userCode typed: String) -> String {
        String(typed.unicodeScalars.filter { $0 != "-" && !$0.properties.isWhitespace }).uppercased()
    }

    /// The device code whose user code is `typed`, compared as ``comparable(userCode:)`` does. When a test made
    /// several codes alike (``OAuthTestServer/DeviceFlowSettings/userCode``), one still waiting for a decision is
    /// preferred.
    func deviceCode(forUserCode typed: String) -> String? {
        let wanted = Self.comparable(userCode: typed)
        guard !wanted.isEmpty else { return nil }
        let matching = deviceGrants.filter { Self.comparable(userCode: $0.value.userCode) == wanted }
        return (matching.first { $0.value.decision == nil } ?? matching.first)?.key
    }

    /// The user codes still waiting for a decision and not expired at `now`, sorted.
    func userCodesAwaitingDecision(now: Date) -> [String] {
        deviceGrants.values.filter { $0.decision == nil && now < $0.expiresAt }.map(\.userCode).sorted()
    }

    /// Decides the device code of `typed` as its user would: once, and only while it lives.
    mutating func decide(
        typedUserCode typed: String, _ decision: OAuthTestServer.DeviceDecision, now: Date
    ) -> UserDecisionOutcome {
        guard let deviceCode = deviceCode(forUserCode: typed), let grant = deviceGrants[deviceCode] else { return .unknown }
        if now >= grant.expiresAt || grant.decision == .expire { return .expired }
        if let earlier = grant.decision { return .alreadyDecided(earlier) }
        deviceGrants[deviceCode]?.decision = decision
        deviceGrants[deviceCode]?.pollsBeforeDecision = 0
        return .decided(userCode: grant.userCode)
    }

    /// Whom the verification page signs in when the person names no one: the subject the authorization endpoint
    /// approves as (``OAuthTestServer/BrowserFlowSettings/outcome``, `--approve-as`), so that both flows sign in
    /// the same user; ``OAuthTestServer/BrowserFlowSettings/defaultSubject`` while that outcome approves no one.
    var defaultSubject: String {
        if case .approve(let subject) = browser.outcome { return subject }
        return OAuthTestServer.BrowserFlowSettings.defaultSubject
    }
}
