import Foundation
import Testing
import TokenAuth

@Suite("stored dates: the canonical form read by arithmetic, as the format style reads it; no other text rolled over")
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

    @Test("a date with a fraction of a second is written with milliseconds, and read back by arithmetic to the millisecond")
    func milliseconds() throws {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
        let date = Date(timeIntervalSince1970: 1_893_553_445.25)
        #expect(RFC3339.format(date) == "2030-01-02T03:04:05.250Z")
        #expect(RFC3339.canonical("2030-01-02T03:04:05.250Z") == date)
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_893_553_445)) == "2030-01-02T03:04:05Z")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -12_212_553_600_000...13_569_465_600_000, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = RFC3339.format(date)
            let read = try #require(RFC3339.canonical(text), "\(text)")
            #expect(abs(read.timeIntervalSince(date)) < 0.000_5, "\(text)")
            #expect(abs(try style.parse(text.count == 20 ? text.replacingOccurrences(of: "Z", with: ".000Z") : text)
                .timeIntervalSince(date)) < 0.000_5, "\(text)")
        }
    }

    @Test("other forms are left to the format style, and days that do not exist are no date")
    func otherForms() {
        #expect(RFC3339.canonical("2030-01-02T03:04:05.5Z") == nil)
        #expect(RFC3339.parse("2030-01-02T03:04:05.5Z") == Date(timeIntervalSince1970: 1_893_553_445.5))
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

    @Test("dates and times that do not exist, and text that is not RFC 3339, are no date: nothing rolls over", arguments: [
        "2030-02-30T00:00:00Z", "2027-02-29T00:00:00Z", "2030-04-31T00:00:00Z", "2030-13-01T00:00:00Z",
        "2030-00-10T00:00:00Z", "2030-01-00T00:00:00Z", "2030-01-01T24:00:00Z", "2030-01-01T25:00:00Z",
        "2030-01-01T00:60:00Z", "2030-01-01T00:00:60Z", "2030-02-30T00:00:00.5Z", "2030-02-30T00:00:00+01:00",
        "20300-01-01T00:00:00Z", "+2030-01-01T00:00:00Z", "0000-01-01T00:00:00Z", "2030-01-01T00:00:00+0200",
        "2030-01-01T00:00:00+02", "2030-01-01T00:00:00GMT", "2030-01-01T00:00:00+24:00", "2030-01-01T00:00:00+01:60",
        "2030-01-01T00:00:00.Z", "2030-01-01T00:00:00", "2030-01-01 00:00:00Z", "2030-01-01T00:00:00ZZ",
        "2030-01-01T00:00:00Z ", "2030-01-01T00:00:00.5", "２０３０-01-01T00:00:00Z",
    ])
    func impossibleDates(text: String) {
        #expect(RFC3339.parse(text) == nil, "\(text) read as \(RFC3339.parse(text).map(RFC3339.format) ?? "")")
    }

    @Test("every form RFC 3339 allows is read: fractions, offsets, a lowercase t and z")
    func otherValidForms() {
        let moment = Date(timeIntervalSince1970: 1_893_553_445)  // 2030-01-02T03:04:05Z
        #expect(RFC3339.parse("2030-01-02T04:04:05+01:00") == moment)
        #expect(RFC3339.parse("2030-01-01T23:34:05-03:30") == moment)
        #expect(RFC3339.parse("2030-01-02T03:04:05-00:00") == moment)
        #expect(RFC3339.parse("2030-01-02t03:04:05z") == moment)
        #expect(RFC3339.parse("2030-01-02T03:04:05.000Z") == moment)
        #expect(RFC3339.parse("2030-01-02T03:04:05.5+00:00") == moment.addingTimeInterval(0.5))
        #expect(RFC3339.parse("2028-02-29T00:00:00Z").map(RFC3339.format) == "2028-02-29T00:00:00Z")
        #expect(RFC3339.parse("2000-02-29T23:59:59Z").map(RFC3339.format) == "2000-02-29T23:59:59Z")
        #expect(RFC3339.parse("0001-01-01T00:00:00Z") != nil, "Go's zero time, which some tools write")
    }
}
