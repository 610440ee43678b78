import Foundation
import Keyring
import Testing

@Suite("DesktopPortal outside a sandbox")
struct DesktopPortalTests {
    @Test("no desktop portal on the bus (the test buses activate nothing): portalUnavailable, with a fix that names it")
    func noPortal() async throws {
        let error = await #expect(throws: KeyringError.self) {
            try await DesktopPortal.openURI(URL(string: "https://example.com/sign-in?state=s")!, timeout: .seconds(10))
        }
        #expect(error?.code == .portalUnavailable)
        // checks the sentence's help: the fix names what to install.
        #expect(error?.fix.contains("xdg-desktop-portal") == true)
        #expect(error.map { "\($0)".contains("state=s") } == false, "the URI is not in the error")
    }

}
