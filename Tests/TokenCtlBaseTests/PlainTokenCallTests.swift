import Keyring
import Testing
import TokenCtlBase

/// `tokenctl` reads only the plain `token` call itself; everything else goes to `tokenctl-full`'s parser, whose
/// help, errors and exit codes must stay the only ones.
@Suite("the plain token call, read without the parser")
struct PlainTokenCallTests {
    @Test("the spellings scripts use are read, with their keyring settings")
    func accepted() throws {
        let plain = try #require(PlainTokenCall(["token", "--service", "S", "--account", "A"]))
        #expect(plain.service == "S" && plain.account == "A")
        #expect(plain.keyring.configuration.timeout == .seconds(5))
        #expect(plain.keyring.configuration.prompting == .allowed)
        let quiet = try #require(PlainTokenCall(["token", "--no-prompt", "--account", "A", "--timeout", "2.5", "--service", "S"]))
        #expect(quiet.keyring.configuration.timeout == .milliseconds(2500))
        #expect(quiet.keyring.configuration.prompting == .never)
    }

    @Test("anything else is declined, for the parser to read", arguments: [
        ["token"], ["token", "--service", "S"], ["status", "--service", "S", "--account", "A"],
        ["token", "--service=S", "--account", "A"], ["token", "--service", "S", "--account", "A", "--help"],
        ["token", "--service", "S", "--service", "T", "--account", "A"],
        ["token", "--service", "S", "--account", "A", "--no-prompt", "--no-prompt"],
        ["token", "--service", "S", "--account", "-A"], ["token", "--service", "S", "--account"],
        ["token", "--service", "S", "--account", "A", "--timeout", "0"],
        ["token", "--service", "S", "--account", "A", "--timeout", "inf"],
        ["token", "--service", "S", "--account", "A", "--timeout", "86401"],
        ["token", "--service", "S", "--account", "A", "--keyring", "login"], ["--version"], [],
    ])
    func declined(arguments: [String]) {
        #expect(PlainTokenCall(arguments[...]) == nil)
    }
}
