import Foundation

extension KeyedDecodingContainer {
    /// A number of seconds from a JSON number or a numeric string, as OAuth servers send either (`expires_in`,
    /// `interval`); `nil` when absent, of another type, or not a finite number.
    func lenientSeconds(forKey key: Key) -> Double? {
        var seconds: Double?
        if let number = try? decodeIfPresent(Double.self, forKey: key) {
            seconds = number
        } else if let text = try? decodeIfPresent(String.self, forKey: key) {
            seconds = Double(text.trimmingCharacters(in: .whitespaces))
        }
        guard let seconds, seconds.isFinite else { return nil }
        return seconds
    }
}
