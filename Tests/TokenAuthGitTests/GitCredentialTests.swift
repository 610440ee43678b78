import Foundation
import Testing
import TokenAuthGit

/// git's credential protocol as git-credential(1) writes it: key=value lines to a blank line, `url=` as its parts,
/// lists, unknown keys kept.
@Suite("GitCredential: git's credential protocol")
struct GitCredentialTests {
    @Test("what git 2.39 sends for an HTTPS remote, ended by a blank line; what follows it is not read")
    func gitsInput() throws {
        let asked = try GitCredential(parsing: "protocol=https\nhost=git.example.com:8443\nusername=ada\n\nhost=other\n")
        #expect(asked.protocol == "https")
        #expect(asked.host == "git.example.com:8443")
        #expect(asked.username == "ada")
        #expect(asked.password == nil)
    }

    @Test("a value keeps every '=' after the first; CRLF lines are read; unknown keys are kept, not acted on")
    func values() throws {
        let asked = try GitCredential(parsing: "password=a=b==\r\nprotocol=https\r\nquit=0\r\n")
        #expect(asked.password == "a=b==")
        #expect(asked.protocol == "https")
        #expect(asked.others.map(\.key) == ["quit"])
    }

    @Test("url= stands for its parts; lists collect values and an empty value empties them")
    func urlAndLists() throws {
        let asked = try GitCredential(parsing: """
            url=https://ada@git.example.com:8443/group/repo.git
            capability[]=authtype
            capability[]=state
            wwwauth[]=Bearer realm="x"
            wwwauth[]=
            password_expiry_utc=1700000000
            """)
        #expect(asked.protocol == "https" && asked.host == "git.example.com:8443")
        #expect(asked.path == "group/repo.git" && asked.username == "ada")
        #expect(asked.capabilities == ["authtype", "state"])
        #expect(asked.challenges.isEmpty)
        #expect(asked.passwordExpiry == Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test("a line without '=' is refused, and the error does not quote it")
    func lineWithoutEquals() {
        let error = #expect(throws: GitCredentialError.self) { try GitCredential(parsing: "protocol=https\nhunter2\n") }
        #expect(error.map { "\($0)".contains("hunter2") } == false)
    }

    @Test("the answer: one line per attribute set, the expiry in whole seconds; a value with a line break is refused")
    func answer() throws {
        var answer = GitCredential()
        answer.username = "oauth2"
        answer.password = "token-1"
        answer.passwordExpiry = Date(timeIntervalSince1970: 1_700_000_000.9)
        #expect(try answer.formatted() == "username=oauth2\npassword=token-1\npassword_expiry_utc=1700000000\n")
        #expect(!"\(answer)".contains("token-1"))
        answer.password = "token\nhost=evil.example.com"
        #expect(throws: GitCredentialError.self) { try answer.formatted() }
    }
}
