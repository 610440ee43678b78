import Foundation
import Testing
@testable import TokenAuthKeyring

@Suite("stored dates: the canonical form read by arithmetic, as the format style reads it")
struct RFC3339Tests {
    @Test("dates from 1583 to 2400, written as the store writes them, read back the same by both readers")
    func agreesWithTheFormatStyle() throws {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -12_212_553_600...13_569_465_600, using: &generator)))
            let text = RFC3339.format(date)
            #expect(RFC3339.canonical(text) == date, "\(text)")
            #expect(try style.parse(text) == date, "\(text)")
        }
    }

    @Test("other forms are left to the format style, and days that do not exist are no date")
    func otherForms() {
        #expect(RFC3339.canonical("2030-01-02T03:04:05.250Z") == nil)
        #expect(RFC3339.parse("2030-01-02T03:04:05.250Z") == Date(timeIntervalSince1970: 1_893_553_445.25))
        #expect(RFC3339.canonical("2030-01-02T03:04:05+01:00") == nil)
        #expect(RFC3339.canonical("2030-01-02 03:04:05Z") == nil)
        #expect(RFC3339.canonical("2030-1-02T03:04:05Z ") == nil)
        #expect(RFC3339.canonical("2027-02-29T00:00:00Z") == nil)
        #expect(RFC3339.canonical("2030-01-02T24:00:00Z") == nil)
        #expect(RFC3339.canonical("+030-01-02T03:04:05Z") == nil)
        // Before the Gregorian reform the format style's calendar is Julian: such dates are its to read.
        #expect(RFC3339.canonical("1582-12-31T00:00:00Z") == nil)
        #expect(RFC3339.parse("1000-01-01T00:00:00Z").map(RFC3339.format) == "1000-01-01T00:00:00Z")
        #expect(RFC3339.parse("not a date") == nil)
    }
}
