import ChildProcesses
import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// The built `tokenctl` against the private gnome-keyring of `scripts/test`: exit codes, what it prints and what
/// it leaves in the keyring. Every test uses a service of its own.
@Suite("tokenctl storage commands against the real keyring", .needsSecretService)
struct TokenCtlKeyringTests {
    let keyring = TestKeyring.keyring

    /// Tokens that must never appear in tokenctl's output.
    static let accessToken = "tctl-access-5b1e9c"
    static let refreshToken = "tctl-refresh-77d2a0"
    static let clientSecret = "tctl-client-secret-0f4c"

    static let storedFormat = """
        {"version":1,"access_token":"\(accessToken)","token_type":"Bearer","refresh_token":"\(refreshToken)",
         "expires_at":"2027-01-15T08:00:00Z","scope":"read write",
         "token_endpoint":"https://auth.example.org/token","client_id":"desktop-app","client_secret":"\(clientSecret)"}
        """
    static let tokenResponse = """
        {"access_token":"\(accessToken)","token_type":"bearer","expires_in":3600,"refresh_token":"\(refreshToken)","scope":"openid email"}
        """

    /// Runs `body` with a fresh service name; deletes that service's items afterwards, also when `body` throws.
    func withService<T>(
        accounts: [String] = ["ada"],
        function: String = #function,
        _ body: (String) async throws -> T
    ) async throws -> T {
        let service = TestKeyring.uniqueService(function)
        let result: Result<T, any Error>
        do { result = .success(try await body(service)) } catch { result = .failure(error) }
        for account in accounts {
            _ = try? await keyring.delete(["service": service, "account": account])
            _ = try? await keyring.delete(["service": service, "account": account, "extra": "x"])
        }
        return try result.get()
    }

    func expectNoSecrets(_ results: [ChildResult], sourceLocation: SourceLocation = #_sourceLocation) {
        for result in results {
            for secret in [Self.accessToken, Self.refreshToken, Self.clientSecret] {
                #expect(!result.allOutput.contains(secret), "tokenctl printed a secret: \(result.allOutput)", sourceLocation: sourceLocation)
            }
        }
    }

    func secretToolLookup(_ service: String, _ account: String = "ada") async throws -> String {
        try await TestKeyring.secretTool(["lookup", "service", service, "account", account]).stdout
    }

    // MARK: import and show

    @Test("import reads the stored format from stdin; show --json reports it; no command prints a token")
    func importStoredFormat() async throws {
        try await withService { service in
            let item = ["--service", service, "--account", "ada"]
            let imported = try await tokenctl(["import"] + item, stdin: Self.storedFormat)
            #expect(imported.status == 0, "\(imported.stderr)")
            #expect(imported.stdout.isEmpty)

            let shown = try await tokenctl(["show", "--json"] + item)
            #expect(shown.status == 0, "\(shown.stderr)")
            let json = try shown.json()
            #expect(json["service"] as? String == service)
            #expect(json["account"] as? String == "ada")
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["expires_at"] as? String == "2027-01-15T08:00:00Z")
            #expect(json["scope"] as? String == "read write")
            #expect(json["has_refresh_token"] as? Bool == true)
            #expect(json["token_endpoint"] as? String == "https://auth.example.org/token")
            #expect(json["client_id"] as? String == "desktop-app")
            #expect(json["has_client_secret"] as? Bool == true)

            let text = try await tokenctl(["show"] + item)
            #expect(text.status == 0)
            #expect(text.stdout.contains("read write"))
            #expect(text.stdout.contains("refresh token:  yes"))
            let status = try await tokenctl(["status"] + item)
            #expect(status.status == 0)
            #expect(status.stdout == text.stdout)
            let listed = try await tokenctl(["list", "--service", service])
            expectNoSecrets([imported, shown, text, status, listed])

            // The library reads exactly what was imported.
            let stored = try #require(try await KeyringAuthStore(service: service, account: "ada", keyring: keyring).loadCredentials())
            #expect(stored.auth.accessToken == Self.accessToken)
            #expect(stored.auth.refreshToken == Self.refreshToken)
            #expect(stored.client?.clientSecret == Self.clientSecret)
        }
    }

    @Test("status says who signed in, by display name or sub, with the issuer; --json has the identity")
    func statusShowsIdentity() async throws {
        try await withService { service in
            let item = ["--service", service, "--account", "ada"]
            let withIdentity = """
                {"version":1,"access_token":"\(Self.accessToken)","refresh_token":"\(Self.refreshToken)",
                 "token_endpoint":"https://auth.example.org/token","client_id":"desktop-app",
                 "issuer":"https://auth.example.org","jwks_uri":"https://auth.example.org/jwks",
                 "sub":"248289761001","display_name":"ada@example.org"}
                """
            let imported = try await tokenctl(["import"] + item, stdin: withIdentity)
            #expect(imported.status == 0, "\(imported.stderr)")

            let status = try await tokenctl(["status"] + item)
            #expect(status.status == 0, "\(status.stderr)")
            let lines = status.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "signed in as ada@example.org (https://auth.example.org)")
            #expect(lines.contains("issuer:         https://auth.example.org"))
            #expect(status.stdout.contains("refresh token:  yes"))

            let shown = try await tokenctl(["status", "--json"] + item)
            let json = try shown.json()
            let identity = try #require(json["identity"] as? [String: Any])
            #expect(identity["sub"] as? String == "248289761001")
            #expect(identity["display_name"] as? String == "ada@example.org")
            #expect(identity["issuer"] as? String == "https://auth.example.org")
            #expect(json["issuer"] as? String == "https://auth.example.org")
            expectNoSecrets([imported, status, shown])

            // Without a display name, the sub; the identity survives the import into the keyring.
            let withoutName = withIdentity.replacingOccurrences(of: #","display_name":"ada@example.org""#, with: "")
            #expect(try await tokenctl(["import"] + item, stdin: withoutName).status == 0)
            let bare = try await tokenctl(["status"] + item)
            #expect(bare.stdout.hasPrefix("signed in as 248289761001 (https://auth.example.org)\n"))
            let stored = try #require(try await KeyringAuthStore(service: service, account: "ada", keyring: keyring).loadCredentials())
            #expect(stored.identity?.subject == "248289761001")
            #expect(stored.client?.jwksURI == URL(string: "https://auth.example.org/jwks"))
        }
    }

    @Test("status of an item without an identity says nothing about who signed in")
    func statusWithoutIdentity() async throws {
        try await withService { service in
            let item = ["--service", service, "--account", "ada"]
            #expect(try await tokenctl(["import"] + item, stdin: Self.storedFormat).status == 0)
            let status = try await tokenctl(["status"] + item)
            #expect(status.status == 0)
            #expect(!status.stdout.contains("signed in as"))
            #expect(status.stdout.hasPrefix("service:"))
        }
    }

    @Test("import reads an RFC 6749 §5.1 token response and turns expires_in into an absolute expiry")
    func importTokenResponse() async throws {
        try await withService { service in
            let item = ["--service", service, "--account", "ada"]
            let before = Date()
            let imported = try await tokenctl(["import"] + item, stdin: Self.tokenResponse)
            let after = Date()
            #expect(imported.status == 0, "\(imported.stderr)")

            let shown = try await tokenctl(["show", "--json"] + item)
            #expect(shown.status == 0, "\(shown.stderr)")
            let json = try shown.json()
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["scope"] as? String == "openid email")
            #expect(json["has_refresh_token"] as? Bool == true)
            #expect(json["expired"] as? Bool == false)
            let remaining = try #require(json["expires_in_seconds"] as? Int)
            #expect((3500...3600).contains(remaining))
            #expect(json["token_endpoint"] == nil)
            #expect(json["client_id"] == nil)
            expectNoSecrets([imported, shown])

            let auth = try #require(try await KeyringAuthStore(service: service, account: "ada", keyring: keyring).load())
            let expiry = try #require(auth.expiresAt)
            // Stored with whole seconds, so allow one second below the earliest possible instant.
            #expect(expiry >= before.addingTimeInterval(3599) && expiry <= after.addingTimeInterval(3600))
        }
    }

    @Test("import with --token-url and --client-id records the client that can refresh the tokens")
    func importRecordsClient() async throws {
        try await withService { service in
            let item = ["--service", service, "--account", "ada"]
            let imported = try await tokenctl(
                ["import"] + item + ["--token-url", "https://login.example.net/oauth2/token", "--client-id", "cli-app"],
                stdin: Self.tokenResponse)
            #expect(imported.status == 0, "\(imported.stderr)")

            let shown = try await tokenctl(["show", "--json"] + item)
            let json = try shown.json()
            #expect(json["token_endpoint"] as? String == "https://login.example.net/oauth2/token")
            #expect(json["client_id"] as? String == "cli-app")
            #expect(json["has_client_secret"] as? Bool == false)

            let stored = try await KeyringAuthStore(service: service, account: "ada", keyring: keyring).loadCredentials()
            #expect(stored?.client == OAuthClient(tokenEndpoint: URL(string: "https://login.example.net/oauth2/token")!, clientID: "cli-app"))
        }
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        let name: String
        let stdin: String
        var testDescription: String { name }
    }

    @Test("malformed stdin exits 65 with a sentence on stderr, and what was stored stays", arguments: [
        Malformed(name: "several lines of text", stdin: "not\na token\n"),
        Malformed(name: "one line that is not a b64token", stdin: "not json at all {\n"),
        Malformed(name: "invalid JSON", stdin: #"{"access_token": "#),
        Malformed(name: "an OAuth error response", stdin: #"{"error":"invalid_grant"}"#),
        Malformed(name: "a stored bundle of a future version", stdin: #"{"version":3,"access_token":"x"}"#),
        Malformed(name: "nothing", stdin: ""),
    ])
    func malformedInput(_ malformed: Malformed) async throws {
        try await withService { service in
            let item = ["--service", service, "--account", "ada"]
            let nothingYet = try await tokenctl(["import"] + item, stdin: malformed.stdin)
            #expect(nothingYet.status == 65)
            #expect(nothingYet.stderr.hasPrefix("tokenctl: The input is not usable credentials"))
            #expect(nothingYet.stdout.isEmpty)
            #expect(try await tokenctl(["show"] + item).status == 3, "nothing was stored")

            #expect(try await tokenctl(["import"] + item, stdin: Self.storedFormat).status == 0)
            let before = try await secretToolLookup(service)
            #expect(try await tokenctl(["import"] + item, stdin: malformed.stdin).status == 65)
            #expect(try await secretToolLookup(service) == before)
        }
    }

    // MARK: Nothing stored, delete, list

    @Test("show, status and delete exit 3 when nothing is stored, and say how to store something")
    func nothingStored() async throws {
        try await withService { service in
            let item = ["--service", service, "--account", "ada"]
            for command in ["show", "status", "delete"] {
                let result = try await tokenctl([command] + item)
                #expect(result.status == 3, "\(command): \(result.stderr)")
                #expect(result.stderr.contains("No credentials are stored for account \"ada\" on service \"\(service)\""))
                #expect(result.stderr.contains("tokenctl import"))
                #expect(result.stdout.isEmpty)
            }
        }
    }

    @Test("delete removes the item: show then exits 3, secret-tool finds nothing, and a second delete exits 3")
    func deleteThenShow() async throws {
        try await withService { service in
            let item = ["--service", service, "--account", "ada"]
            #expect(try await tokenctl(["import"] + item, stdin: Self.storedFormat).status == 0)
            let deleted = try await tokenctl(["delete"] + item)
            #expect(deleted.status == 0, "\(deleted.stderr)")
            #expect(try await tokenctl(["show"] + item).status == 3)
            #expect(try await secretToolLookup(service).isEmpty)
            #expect(try await tokenctl(["delete"] + item).status == 3)
        }
    }

    @Test("list --json lists the service's accounts, and not another tool's item")
    func list() async throws {
        try await withService(accounts: ["ada", "bob", "zed"]) { service in
            for account in ["bob", "ada"] {
                #expect(try await tokenctl(["import", "--service", service, "--account", account], stdin: Self.storedFormat).status == 0)
            }
            let other = try await TestKeyring.secretTool(
                ["store", "--label=other tool", "service", service, "account", "zed", "extra", "x"], stdin: "theirs")
            try #require(other.status == 0)

            let listed = try await tokenctl(["list", "--service", service, "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let rows = try listed.json(as: [[String: Any]].self)
            #expect(rows.map { $0["account"] as? String } == ["ada", "bob"])
            #expect(rows.map { $0["locked"] as? Bool } == [false, false])
            #expect(rows.first?["label"] as? String == "OAuth tokens for ada on \(service)")
            expectNoSecrets([listed])

            let empty = try await tokenctl(["list", "--service", service + ".nothing", "--json"])
            #expect(empty.status == 0)
            #expect(try empty.json(as: [Any].self).isEmpty)
        }
    }

    // MARK: Usage

    @Test("usage errors exit 64", arguments: [
        ["show", "--service", "S"],
        ["import", "--service", "S", "--account", "A", "--token-url", "https://a.example/token"],
        ["import", "--service", "S", "--account", "A", "--token-url", "not a url", "--client-id", "c"],
        ["show", "--service", "S", "--account", "A", "--timeout", "0"],
        ["frobnicate"],
    ])
    func usage(_ arguments: [String]) async throws {
        let result = try await tokenctl(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("Usage:") || result.stderr.contains("Error:"))
    }

    // MARK: doctor

    @Test("doctor exits 0 on a working keyring and reports the default collection")
    func doctor() async throws {
        let result = try await tokenctl(["doctor"])
        #expect(result.status == 0, "\(result.allOutput)")
        #expect(result.stdout.contains("[ok] session bus"))
        #expect(result.stdout.contains("[ok] Secret Service"))
        #expect(result.stdout.contains("[ok] default collection"))
        #expect(result.stdout.contains("is unlocked"))
    }

    @Test("doctor says when no TPM can hold DPoP keys, why and what to do, and exits 0 all the same")
    func doctorWithoutTPM() async throws {
        let tcti = "swtpm:host=127.0.0.1,port=\(try closedLoopbackPort())"
        let result = try await tokenctl(["doctor"], environment: ["TPM2TOOLS_TCTI": tcti])
        #expect(result.status == 0, "\(result.allOutput)")
        let line = try #require(result.stdout.split(separator: "\n").last.map(String.init))
        #expect(line.hasPrefix("TPM: none usable: "), "\(line)")
        #expect(line.contains(tcti) && line.contains("TPM2TOOLS_TCTI"), "\(line)")
        #expect(line.hasSuffix("DPoP keys are made in software, stored in the item."))
        #expect(!result.stderr.contains("ERROR"), "tpm2-tss's own messages stay off: \(result.stderr)")
    }
}
