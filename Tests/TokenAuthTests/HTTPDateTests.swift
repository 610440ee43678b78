import Foundation
import Testing
@testable import TokenAuth

@Suite("HTTP-dates read without DateFormatter")
struct HTTPDateTests {
    let now = Date(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01 00:00:00 UTC

    @Test("IMF-fixdates of dates from 1900 to 2400 read as DateFormatter writes them")
    func agreesWithDateFormatter() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let seconds = Double(Int64.random(in: -2_208_988_800...13_569_465_600, using: &generator))
            let date = Date(timeIntervalSince1970: seconds)
            let text = RetryAfterTests.imfFixdate(date)
            #expect(HTTPDate.parse(text, now: now) == date, "\(text)")
        }
    }

    @Test("leap days, and days that do not exist")
    func calendarDays() {
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 12:00:00 GMT", now: now) == Date(timeIntervalSince1970: 1_835_438_400))
        #expect(HTTPDate.parse("Tue, 29 Feb 2000 00:00:00 GMT", now: now) != nil)
        #expect(HTTPDate.parse("Thu, 29 Feb 2027 00:00:00 GMT", now: now) == nil)
        #expect(HTTPDate.parse("Mon, 29 Feb 2100 00:00:00 GMT", now: now) == nil)
        #expect(HTTPDate.parse("Fri, 31 Apr 2027 00:00:00 GMT", now: now) == nil)
        #expect(HTTPDate.parse("Fri, 00 Jan 2027 00:00:00 GMT", now: now) == nil)
    }

    @Test("malformed fields are refused, never guessed")
    func malformed() {
        for text in [
            "Fri, 01 Jan 2027 24:00:00 GMT", "Fri, 01 Jan 2027 00:60:00 GMT", "Fri, 01 Jan 2027 00:00:60 GMT",
            "Fri, 1 Jan 2027 00:00:00 GMT", "Fri, 01 Jan 27 00:00:00 GMT", "Fri, 01 Foo 2027 00:00:00 GMT",
            "Fri, 01 Jan 2027 00:00:00 UTC", "Fri 01 Jan 2027 00:00:00 GMT", "Fre, 01 Jan 2027 00:00:00 GMT",
            "Friday, 01-Jan-2027 00:00:00 GMT", "Fri, 01-Jan-27 00:00:00 GMT", "Fri Jan 1 00:00:00 27",
            "Fri, 01 Jan 2027 0:00:00 GMT", "Fri, 01 Jan 2027 +0:00:00 GMT", "", "GMT",
        ] {
            #expect(HTTPDate.parse(text, now: now) == nil, "\(text)")
        }
    }

    @Test("an RFC 850 two-digit year more than 50 years ahead is the most recent past one")
    func twoDigitYears() {
        #expect(HTTPDate.parse("Sunday, 01-Jan-76 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 3_345_062_400))
        #expect(HTTPDate.parse("Monday, 01-Jan-80 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 315_532_800))
        #expect(HTTPDate.parse("Tuesday, 01-Jan-99 00:00:00 GMT", now: now) == Date(timeIntervalSince1970: 915_148_800))
    }
}
