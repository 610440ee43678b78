import Foundation
import Testing
@testable import TokenAuth
import TokenAuthTesting

@Suite("Retry-After parsing")
struct RetryAfterTests {
    let now = ManualWallClock.epoch

    @Test("a number of seconds is taken as is")
    func seconds() {
        #expect(RetryAfter.parse("120", now: now) == .seconds(120))
        #expect(RetryAfter.parse(" 0 ", now: now) == .zero)
    }

    @Test("an IMF-fixdate is measured from the injected now")
    func imfFixdate() throws {
        let date = now.addingTimeInterval(90)
        #expect(RetryAfter.parse(Self.imfFixdate(date), now: now) == .seconds(90))
    }

    @Test("the obsolete RFC 850 and asctime forms are accepted")
    func obsoleteDateForms() {
        // 1 January 2027 00:00:30 UTC, 30 s after the reference below.
        let reference = Date(timeIntervalSince1970: 1_798_761_600)
        #expect(RetryAfter.parse("Friday, 01-Jan-27 00:00:30 GMT", now: reference) == .seconds(30))
        #expect(RetryAfter.parse("Fri Jan  1 00:00:30 2027", now: reference) == .seconds(30))
    }

    @Test("a date in the past means retry now")
    func pastDate() {
        #expect(RetryAfter.parse(Self.imfFixdate(now.addingTimeInterval(-60)), now: now) == .zero)
    }

    @Test("missing, negative or unreadable values give no delay")
    func unreadableValues() {
        #expect(RetryAfter.parse(nil, now: now) == nil)
        #expect(RetryAfter.parse("", now: now) == nil)
        #expect(RetryAfter.parse("-5", now: now) == nil)
        #expect(RetryAfter.parse("soon", now: now) == nil)
    }

    @Test("a wait longer than an hour, in seconds or as a date, is clamped to TokenAuthError.maximumRetryAfter")
    func longWaitsAreBounded() {
        let hour = Duration.seconds(3600)
        #expect(TokenAuthError.maximumRetryAfter == hour)
        #expect(RetryAfter.parse("3600", now: now) == hour)
        #expect(RetryAfter.parse("3601", now: now) == hour)
        #expect(RetryAfter.parse("31536000", now: now) == hour)  // a year
        #expect(RetryAfter.parse("9223372036854775807", now: now) == hour)
        #expect(RetryAfter.parse("99999999999999999999999", now: now) == hour)  // beyond Int64: still a wait
        #expect(RetryAfter.parse(Self.imfFixdate(now.addingTimeInterval(3599)), now: now) == .seconds(3599))
        #expect(RetryAfter.parse(Self.imfFixdate(now.addingTimeInterval(86_400 * 365)), now: now) == hour)
        #expect(RetryAfter.parse("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == hour)
    }

    static func imfFixdate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
