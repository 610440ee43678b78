import Testing
@testable import TokenAuth

@Suite("Server text on a terminal")
struct ServerTextTests {
    @Test("escape sequences, controls and bidirectional overrides are removed; letters of any script stay",
          arguments: [
            ("WDJB-\u{1B}[2JMJHT", "WDJB-MJHT"),
            ("a\u{1B}]0;owned\u{07}b", "ab"),
            ("a\u{1B}]8;;https://evil.example\u{1B}\\link\u{1B}]8;;\u{1B}\\b", "alinkb"),
            ("\u{9B}31mred", "red"),
            ("José \u{202E}txt.exe", "José txt.exe"),
            ("line\r\nbreak\u{7F}\u{85}", "linebreak"),
            ("\u{1B}c", ""),
          ])
    func printable(_ example: (String, String)) {
        #expect(ServerText.printable(example.0) == example.1)
    }

    @Test("the server's words are quoted in a sentence of their own, without a second full stop after one of theirs",
          arguments: [
            (nil, ""),
            ("", ""),
            ("maintenance", #" The server said: "maintenance"."#),
            ("The user declined.", #" The server said: "The user declined.""#),
            ("Why not?", #" The server said: "Why not?""#),
          ] as [(String?, String)])
    func said(_ example: (String?, String)) {
        #expect(ServerText.said(example.0) == example.1)
    }

    @Test("an error's description quotes the server once and ends with one full stop before its fix")
    func descriptionQuotesTheServer() {
        let error = TokenAuthError(
            .rejected, "The refresh token was refused.", fix: "Sign in again.",
            oauthError: OAuthErrorResponse(error: "invalid_grant", errorDescription: "The user declined."))
        #expect(error.description == #"The refresh token was refused. The server said: "The user declined." Sign in again."#)
    }

    @Test("redaction runs on the cleaned text: a secret split by a removed character is still found")
    func redactionAfterCleaning() {
        let echoed = "your token RT-SE\u{07}CRET-123 and RT-\u{1B}[0mSECRET-123 are bad"
        let shown = TokenAuthError.sanitize(echoed, secrets: ["RT-SECRET-123"], limit: 500)
        #expect(!shown.contains("SECRET"), "\(shown)")
        #expect(shown == "your token <redacted> and <redacted> are bad")
    }
}
