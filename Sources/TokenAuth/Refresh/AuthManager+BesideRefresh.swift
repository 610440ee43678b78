#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The refresh beside the callers: inside the leeway, a token still valid for longer than
/// ``AuthManager/Configuration/minimumValidity`` is handed out at once, and the refresh runs in a task of its own that
/// no caller waits for. A slow grant, a locked keyring or one that does not answer then holds no request.
extension AuthManager {
    /// Starts the refresh beside the callers, unless one is under way or the last one failed too recently.
    nonisolated func refreshBeside(at now: Date) {
        guard servable.claimBesideRefresh(at: now) else { return }
        servable.besideRefreshStarted(Task { await self.runRefreshBeside() })
    }

    /// Waits until the refresh beside the callers that was started last has ended, stored or failed: for tests, which
    /// count what it did without waiting in time.
    package nonisolated func refreshBesideEnded() async {
        await servable.besideTask?.value
    }

    /// The shared refresh, when it is still needed once the session is prepared; its failure is logged and reported as
    /// events by the refresh itself, and spaces the next try as a backoff does.
    private func runRefreshBeside() async {
        var failed = false
        do {
            try await prepare()
            if case .refreshingNeeded = refreshBesideNeeded() {
                _ = try await sharedRefresh(.needed)
            }
        } catch {
            failed = true
            logger.debug("the refresh beside the callers failed", metadata: ["error": "\(LogRedaction.error(error))"])
        }
        besideFailures = failed ? besideFailures + 1 : 0
        var notBefore = throttle.notBefore
        if failed {
            let delay = configuration.backoff.delay(afterFailures: besideFailures, retryAfter: nil, random: random)
            let spaced = wallClock().addingTimeInterval(delay.timeInterval)
            notBefore = max(notBefore ?? spaced, spaced)
        }
        servable.besideRefreshEnded(notBefore: notBefore)
    }

    private enum BesideDecision { case refreshingNeeded, settled }

    /// Whether the session, prepared, still needs the refresh: another process or caller may have refreshed already.
    private func refreshBesideNeeded() -> BesideDecision {
        switch session.tokensNeeded(at: wallClock()) {
        case .serve, .fail: .settled
        case .serveRefreshingBeside, .refresh: .refreshingNeeded
        }
    }

    /// Whether a caller may still be handed a valid token after `error` ended the refresh it waited for: yes, unless a
    /// sign-in is needed, the caller was cancelled, or the answer could not be stored where unstored tokens are not
    /// handed out (``Configuration/servesUnstoredTokens``).
    static func leavesValidTokens(_ error: any Error) -> Bool {
        if error is CancellationError { return false }
        if let error = error as? TokenAuthError, error.isLoginRequired || error.code == .notStored { return false }
        return true
    }
}
