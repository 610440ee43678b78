/// A name as it must be typed in a command that tokenctl suggests: as it is when the shell reads it as one word
/// (`api.example.com`, `ada@example.com`), else in single quotes (`'my service'`), so that the suggestion can be
/// pasted as written.
enum ShellWord {
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || $0.properties.numericType != nil || "@%_+=:,./-".unicodeScalars.contains($0))
        }
        return plain ? word : "'" + word.replacing("'", with: #"'\''"#) + "'"
    }
}
