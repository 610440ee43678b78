import Foundation
import Testing
import TokenAuth
@testable import TokenCtlCommands

/// What `show`, `list`, `login` and `refresh` print about the dates in an item, which any tool may have written.
@Suite("tokenctl's summary of stored credentials: far and odd dates")
struct CredentialsSummaryTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func summary(expiresAt: Date?, refreshedAt: Date? = nil) -> CredentialsSummary {
        CredentialsSummary(
            service: "s", account: "a",
            credentials: StoredCredentials(auth: Auth(accessToken: "at", expiresAt: expiresAt), refreshedAt: refreshedAt),
            now: now)
    }

    @Test("an expiry or a last refresh too far to count in Int seconds is saturated, never a trap")
    func farDates() {
        let future = summary(expiresAt: now.addingTimeInterval(1e19), refreshedAt: now.addingTimeInterval(-1e19))
        #expect(future.expiresInSeconds == Int.max)
        #expect(future.secondsSinceRefresh == Int.max)
        #expect(future.relativeExpiry.hasPrefix("expires in "))
        let past = summary(expiresAt: now.addingTimeInterval(-1e300))
        #expect(past.expiresInSeconds == -Int.max)
        #expect(past.isExpired)
        #expect(past.relativeExpiry.hasPrefix("expired "))
        #expect(summary(expiresAt: Date(timeIntervalSinceReferenceDate: .infinity)).expiresInSeconds == Int.max)
        #expect(summary(expiresAt: Date(timeIntervalSinceReferenceDate: .nan)).expiresInSeconds == 0)
    }

    @Test("ordinary dates: whole seconds, rounded down")
    func ordinaryDates() {
        #expect(summary(expiresAt: now.addingTimeInterval(3599.9)).expiresInSeconds == 3599)
        #expect(summary(expiresAt: now.addingTimeInterval(-5)).relativeExpiry == "expired 5 s ago")
        #expect(summary(expiresAt: nil).relativeExpiry == "no expiry recorded")
    }
}
