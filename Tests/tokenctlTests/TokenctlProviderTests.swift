import Foundation
import Keyring
import KeyringTestSupport
import Testing

/// `tokenctl doctor` names the provider it finds; a KWallet without its crypto plugin is diagnosed by name.
@Suite("tokenctl doctor and the Secret Service providers")
struct TokenctlProviderTests {
    @Test("doctor names the provider owning the bus name and lists its quirks", .needsSecretService)
    func doctorNamesTheProvider() async throws {
        let provider = TestProvider.current
        let result = try await tokenctl(["doctor"])
        #expect(result.status == 0, "\(result.allOutput)")
        #expect(result.stdout.contains("[ok] Secret Service: org.freedesktop.secrets is owned by \(provider.displayName) (\(provider.command), pid "),
                "\(result.stdout)")
        #expect(result.stdout.contains("[note] \(provider.displayName): "), "\(result.stdout)")
    }

    @Test("KWallet without libqca's OpenSSL plugin: doctor and show exit 4 naming the missing plugin and its package, not 'no Secret Service'",
          .needsPrivateProvider)
    func kwalletWithoutCryptoPlugin() async throws {
        try await PrivateProvider.with(.kwallet, environment: ["TOKENKEYRING_KWALLET_WITHOUT_CRYPTO_PLUGIN": "1"]) { kwallet in
            let environment: [String: String?] = ["DBUS_SESSION_BUS_ADDRESS": kwallet.address]
            let doctor = try await tokenctl(["doctor", "--timeout", "10"], environment: environment)
            #expect(doctor.status == 4, "\(doctor.allOutput)")
            #expect(doctor.stdout.contains("owned by KWallet (kwalletd5"), "\(doctor.stdout)")
            #expect(doctor.stdout.contains("[failed] session: KWallet refused to open an encrypted session: its crypto plugin (libqca-ossl) is missing."),
                    "\(doctor.stdout)")
            #expect(doctor.stdout.contains("apt-get install libqca-qt5-2-plugins"))
            #expect(!doctor.stdout.contains("No Secret Service is reachable"))

            let shown = try await tokenctl(["show", "--no-prompt", "--timeout", "10", "--service", "S", "--account", "A"], environment: environment)
            #expect(shown.status == 4, "\(shown.allOutput)")
            #expect(shown.stderr.contains("libqca-ossl is missing"), "\(shown.stderr)")
            #expect(!shown.stderr.contains("No Secret Service is reachable"))
        }
    }
}
