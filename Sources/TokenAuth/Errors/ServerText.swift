/// Text a server sent — an error description, a user code, a display name — made safe to show on a terminal.
package enum ServerText {
    /// ` The server said: "…".`, for an error's description, quoting the server's `error_description`; empty without
    /// one. The full stop is left out after a text that ends a sentence itself (`"The user declined."`, not `….".`).
    package static func said(_ description: String?) -> String {
        guard let description, !description.isEmpty else { return "" }
        let ended = description.last.map { ".!?".contains($0) } ?? false
        return " The server said: \"\(description)\"\(ended ? "" : ".")"
    }

    /// `text` on one line: ``printable(_:)``, with each line break and tab shown as `\n`, `\r` or `\t` — a name that
    /// holds one cannot forge a line of a listing that scripts read line by line (`cut -f1`).
    package static func oneLine(_ text: String) -> String {
        var shown = ""
        for character in text.unicodeScalars {
            switch character {
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            case "\u{85}", "\u{2028}", "\u{2029}", "\u{0B}", "\u{0C}": shown += "\\n"
            default: shown.unicodeScalars.append(character)
            }
        }
        return printable(shown)
    }

    /// `text` without terminal escape sequences (ESC and what it introduces: CSI `ESC [ … final`, OSC `ESC ] … BEL`
    /// or `ESC \`, and two-character escapes) and without control and format characters (C0, DEL, C1, and the
    /// bidirectional overrides and isolates that can make text read otherwise than it is). Letters of any script
    /// stay.
    package static func printable(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            if scalar == "\u{1B}" || scalar == "\u{9B}" {
                skipEscape(introducedBy: scalar, in: &scalars)
                continue
            }
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned:
                continue
            default:
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// Consumes the rest of an escape sequence that `introducer` (ESC, or the 8-bit CSI) began.
    private static func skipEscape(introducedBy introducer: Unicode.Scalar, in scalars: inout String.UnicodeScalarView.Iterator) {
        var kind = introducer == "\u{9B}" ? Unicode.Scalar("[") : scalars.next()
        switch kind {
        case "[":
            // CSI: parameters and intermediates up to a final byte in @…~.
            while let next = scalars.next(), !(0x40...0x7E).contains(next.value) {}
        case "]", "P", "X", "^", "_":
            // OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \).
            while let next = scalars.next() {
                if next == "\u{07}" || next == "\u{9C}" { break }
                if next == "\u{1B}" {
                    kind = scalars.next()
                    if kind == "\\" { break }
                }
            }
        default:
            // A two-character escape (ESC c, ESC 7, …): the character after ESC is consumed.
            break
        }
    }
}
