/// Trimming without Foundation's `CharacterSet`: the core builds on FoundationEssentials, which has none.
extension StringProtocol {
    /// The text without leading and trailing white space and line breaks (Unicode's, as
    /// `CharacterSet.whitespacesAndNewlines`).
    package var trimmingWhitespace: String {
        trimming { $0.isWhitespace }
    }

    /// The text without leading and trailing spaces and tabs — Unicode's white space that is not a line break, as
    /// `CharacterSet.whitespaces` — so that text with a line break in it stays as it is at that end.
    package var trimmingSpaces: String {
        trimming { $0.isWhitespace && !$0.isNewline }
    }

    private func trimming(_ isTrimmed: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !isTrimmed($0) }), let last = lastIndex(where: { !isTrimmed($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
