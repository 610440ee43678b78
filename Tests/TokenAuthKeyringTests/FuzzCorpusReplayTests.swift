import Foundation
import OAuthTestSupport
import Testing
import TokenAuth
@testable import TokenAuthKeyring

/// Replays every seed and every input that ever crashed the stored-format and import fuzz targets (`Fuzz/`, run by
/// `scripts/fuzz`), checking what the targets check. No keyring: these parsers work on text.
@Suite("Fuzz corpus replay: stored bundle format and import")
struct FuzzCorpusReplayTests {
    @Test("every stored secret decodes or throws an TokenAuthError, and what decodes survives a save and a load")
    func storedBundles() throws {
        var decoded = 0, refused = 0
        for input in try FuzzInputs.all(of: "stored-bundle") {
            let credentials: StoredCredentials
            do {
                credentials = try StoredBundleFormat.decode(input.text, entry: "fuzz")
            } catch {
                #expect(error is TokenAuthError, "\(input.name): \(type(of: error))")
                refused += 1
                continue
            }
            decoded += 1
            let written = try StoredBundleFormat.encode(credentials)
            let reread = try StoredBundleFormat.decode(written, entry: "fuzz")
            #expect(try StoredBundleFormat.encode(reread) == written, "\(input.name)")
        }
        #expect(decoded > 0 && refused > 0, "the corpus covers both readable and refused secrets")
    }

    @Test("every import input gives credentials with an access token or a CredentialsImport.Failure")
    func imports() throws {
        var imported = 0, refused = 0
        for input in try FuzzInputs.all(of: "credentials-import") {
            do {
                let credentials = try CredentialsImport.parse(input.text, receivedAt: Date(timeIntervalSince1970: 1_800_000_000))
                #expect(!credentials.auth.accessToken.isEmpty, "\(input.name)")
                imported += 1
            } catch {
                // Typed throws: a CredentialsImport.Failure is the only thing that can arrive here.
                refused += 1
            }
        }
        #expect(imported > 0 && refused > 0, "the corpus covers both importable and refused inputs")
    }
}
