import Foundation
import TestSupport
import Testing
import TokenAuth

@Suite("RuntimeDirectory: a directory that cannot be used")
struct RuntimeDirectoryTests {
    @Test("a runtime directory that cannot be made: lockUnavailable, whose fix names its parent, not a removal")
    func cannotBeMade() throws {
        let temporary = try TemporaryDirectory()
        let parent = temporary.url.appendingPathComponent("shm").path
        try Data().write(to: URL(filePath: parent))  // a file where /dev/shm (or /run/user/UID) should be a directory
        let error = #expect(throws: TokenAuthError.self) { try RuntimeDirectory.prepare(parent + "/tokenkeyring-0") }
        #expect(error?.code == .lockUnavailable)
        // checks the sentence's help: the directory to make writable, and no removal of what does not exist
        #expect(error?.fix.contains(parent) == true, "\(error?.fix ?? "")")
        #expect(error?.fix.contains("Remove it") == false, "\(error?.fix ?? "")")
    }
}
