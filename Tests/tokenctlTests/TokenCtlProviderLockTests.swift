import Foundation
import Keyring
import KeyringTestSupport
import TestSupport
import Testing
import TokenAuth
import TokenAuthKeyring

/// `tokenctl` and `KeyringAuthStore` with the default collection locked by the provider's own mechanism. Locks the
/// whole default collection, so `scripts/test` runs these on their own (`--no-parallel`) on every provider.
/// Everything runs with `--no-prompt`: KeePassXC's and KWallet's unlock dialogs would wait for a user headless.
@Suite("Every provider: tokenctl and the keyring store on a locked keyring", .needsPrivateProvider, .serialized)
struct TokenCtlProviderLockTests {
    let keyring = TestKeyring.keyring
    let provider = TestProvider.current

    static let stored = #"{"version":1,"access_token":"tctl-lock-access-91c2","refresh_token":"tctl-lock-refresh-4e0d","client_id":"desktop-app","token_endpoint":"https://auth.example.org/token"}"#

    @Test("locked: show, import and delete exit 4 saying locked, also for an account never stored; unlocked, the item is intact")
    func tokenctlOnLockedKeyring() async throws {
        let service = TestKeyring.uniqueService()
        let item = ["--service", service, "--account", "ada"]
        try await cleaningUp({ _ = try? await keyring.delete(["service": service, "account": "ada"]) }) {
            let imported = try await tokenctl(["import"] + item, stdin: Self.stored)
            try #require(imported.status == 0, "\(imported.allOutput)")
            let before = try await TestKeyring.secretTool(["lookup", "service", service, "account", "ada"]).stdout

            try await withDefaultCollectionLocked {
                for arguments in [["show", "--no-prompt"] + item, ["delete", "--no-prompt"] + item,
                                  ["show", "--no-prompt", "--service", service, "--account", "never-stored"]] {
                    let result = try await tokenctl(arguments)
                    #expect(result.status == 4, "\(arguments): \(result.allOutput)")
                    #expect(result.stderr.contains("locked"), "\(arguments): \(result.stderr)")
                    #expect(!result.allOutput.contains("tctl-lock-access-91c2"))
                }
                let again = try await tokenctl(["import", "--no-prompt"] + item, stdin: #"{"version":1,"access_token":"other"}"#)
                #expect(again.status == 4, "must not create a second item beside the locked one: \(again.allOutput)")
                #expect(again.stderr.contains("locked"))
                let listed = try await tokenctl(["list", "--no-prompt", "--service", service, "--json"])
                switch provider {
                case .keepassxc:
                    // KeePassXC shows no items while locked: an empty list would be a lie, so list fails with locked.
                    #expect(listed.status == 4, "\(listed.allOutput)")
                    #expect(listed.stderr.contains("locked"))
                case .gnomeKeyring, .kwallet:
                    #expect(listed.status == 0, "\(listed.allOutput)")
                    #expect(try listed.json(as: [[String: Any]].self).map { $0["locked"] as? Bool } == [true])
                }
            }
            #expect(try await TestKeyring.secretTool(["lookup", "service", service, "account", "ada"]).stdout == before)
            #expect(try await keyring.items(matching: ["service": service, "account": "ada"]).count == 1)
            let after = try await tokenctl(["show", "--json"] + item)
            #expect(after.status == 0, "\(after.allOutput)")
            #expect(try after.json()["client_id"] as? String == "desktop-app")
        }
    }

    @Test("locked: doctor --no-prompt exits 4, as every command with --no-prompt then fails; unlocked, it exits 0")
    func doctorWithoutPromptOnLockedKeyring() async throws {
        let unlocked = try await tokenctl(["doctor", "--no-prompt"])
        #expect(unlocked.status == 0, "\(unlocked.allOutput)")
        try await withDefaultCollectionLocked {
            let doctor = try await tokenctl(["doctor", "--no-prompt"])
            #expect(doctor.status == 4, "a script's `tokenctl doctor --no-prompt && …` must stop here: \(doctor.allOutput)")
            if provider == .gnomeKeyring {
                // gnome-keyring shows its locked collection: a warning, and usable for commands that may prompt.
                #expect(doctor.stdout.contains("[warning] default collection"), "\(doctor.allOutput)")
                #expect(doctor.stdout.contains("is locked"), "\(doctor.allOutput)")
                let prompting = try await tokenctl(["doctor"])
                #expect(prompting.status == 0, "\(prompting.allOutput)")
            }
        }
    }

    @Test("locked: KeyringAuthStore load, save and delete throw locked and write nothing; unlocked, the bundle is intact")
    func authStoreOnLockedKeyring() async throws {
        let store = KeyringAuthStore(service: TestKeyring.uniqueService(), account: "ada", keyring: keyring)
        try await cleaningUp({ _ = try? await store.delete() }) {
            let auth = Auth(accessToken: "access-lock-1", tokenType: "Bearer", refreshToken: "refresh-lock-1", expiresAt: nil, scope: nil)
            try await store.save(auth)

            try await withDefaultCollectionLocked {
                let load = await #expect(throws: KeyringError.self) { try await store.load() }
                #expect(load?.code == .locked)
                var newer = auth
                newer.accessToken = "must-not-be-written"
                let save = await #expect(throws: KeyringError.self) { try await store.save(newer) }
                #expect(save?.code == .locked)
                let delete = await #expect(throws: KeyringError.self) { try await store.delete() }
                #expect(delete?.code == .locked)
            }
            #expect(try await store.load() == auth)
            #expect(try await keyring.items(matching: store.attributes).count == 1)
        }
    }
}
