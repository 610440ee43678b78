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

@Suite("RuntimeDirectory without logind: the directory recorded in the home directory")
struct RuntimeDirectoryRendezvousTests {
    /// A home, a private XDG_RUNTIME_DIR and a shared-memory directory, all in a temporary directory of the test's.
    struct Places {
        let temporary: TemporaryDirectory
        let home: String
        let runtime: String
        let sharedMemory: String

        init() throws {
            temporary = try TemporaryDirectory()
            home = temporary.url.appendingPathComponent("home").path
            runtime = temporary.url.appendingPathComponent("runtime").path
            sharedMemory = temporary.url.appendingPathComponent("shm").path
            for directory in [home, runtime, sharedMemory] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime)
            try FileManager.default.setAttributes([.posixPermissions: 0o1777], ofItemAtPath: sharedMemory)
        }

        func rendezvous(xdg: String?) -> RuntimeDirectory.Rendezvous {
            .init(home: home, uid: getuid(), xdgRuntimeDirectory: xdg, sharedMemory: sharedMemory)
        }
    }

    @Test("no XDG_RUNTIME_DIR: an unpredictable directory in shared memory, recorded, and followed by a process with one")
    func unpredictableNameFollowedByEveryone() throws {
        let places = try Places()
        let first = places.rendezvous(xdg: nil).directory()
        #expect(first.hasPrefix(places.sharedMemory + "/tokenkeyring-\(getuid())-"), "\(first)")
        #expect(first.count == (places.sharedMemory + "/tokenkeyring-\(getuid())-XXXXXX").count)
        #expect(RuntimeDirectory.isPrivateDirectory(first, uid: getuid()))
        #expect(try String(contentsOfFile: places.rendezvous(xdg: nil).record, encoding: .utf8) == first)
        // A process whose environment has a private XDG_RUNTIME_DIR takes the same lock directory.
        #expect(places.rendezvous(xdg: places.runtime).directory() == first)
        #expect(places.rendezvous(xdg: nil).directory() == first)
    }

    @Test("a private XDG_RUNTIME_DIR is chosen first, and a process without it (cron, env -i) follows the record")
    func privateRuntimeDirectoryFirst() throws {
        let places = try Places()
        let chosen = places.rendezvous(xdg: places.runtime).directory()
        #expect(chosen == places.runtime + "/tokenkeyring")
        #expect(RuntimeDirectory.isPrivateDirectory(chosen, uid: getuid()))
        #expect(places.rendezvous(xdg: nil).directory() == chosen)
    }

    @Test("an XDG_RUNTIME_DIR others can open, or a link, is not chosen")
    func openRuntimeDirectoryIgnored() throws {
        let places = try Places()
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: places.runtime)
        let chosen = places.rendezvous(xdg: places.runtime).directory()
        #expect(chosen.hasPrefix(places.sharedMemory + "/tokenkeyring-"), "\(chosen)")

        let other = try Places()
        let link = other.temporary.url.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: other.runtime)
        #expect(other.rendezvous(xdg: link).directory().hasPrefix(other.sharedMemory + "/tokenkeyring-"))
    }

    @Test("a recorded directory that is gone, or replaced by a link, is chosen anew and recorded")
    func recordedDirectoryGone() throws {
        let places = try Places()
        let first = places.rendezvous(xdg: nil).directory()
        try FileManager.default.removeItem(atPath: first)
        let second = places.rendezvous(xdg: nil).directory()
        #expect(second != first)
        #expect(RuntimeDirectory.isPrivateDirectory(second, uid: getuid()))

        try FileManager.default.removeItem(atPath: second)
        try FileManager.default.createSymbolicLink(atPath: second, withDestinationPath: places.runtime)
        let third = places.rendezvous(xdg: nil).directory()
        #expect(third != second)
        #expect(try String(contentsOfFile: places.rendezvous(xdg: nil).record, encoding: .utf8) == third)
    }

    @Test("no usable shared memory and no XDG_RUNTIME_DIR: the home directory's own folder, which prepare() makes")
    func noSharedMemory() throws {
        let places = try Places()
        let missing = places.rendezvous(xdg: nil)
        let rendezvous = RuntimeDirectory.Rendezvous(
            home: places.home, uid: getuid(), xdgRuntimeDirectory: nil, sharedMemory: places.sharedMemory + "/missing")
        let chosen = rendezvous.directory()
        #expect(chosen == missing.onDisk)
        try RuntimeDirectory.prepare(chosen)
        #expect(RuntimeDirectory.isPrivateDirectory(chosen, uid: getuid()))
    }

    @Test("processes choosing at once all take one directory")
    func concurrentChoosers() async throws {
        let places = try Places()
        let chosen = await withTaskGroup(of: String.self) { group in
            for index in 0..<8 {
                group.addTask { places.rendezvous(xdg: index.isMultiple(of: 2) ? nil : places.runtime).directory() }
            }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(chosen.count == 1, "\(chosen)")
    }
}
