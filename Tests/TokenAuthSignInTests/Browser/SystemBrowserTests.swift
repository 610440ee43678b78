import Foundation
import Synchronization
import TestSupport
import Testing
import TokenAuthSignIn

@Suite("SystemBrowser: BROWSER, the desktop portal in a sandbox, xdg-open")
struct SystemBrowserTests {
    static let url = URL(string: "https://auth.example.com/authorize?state=s&code_challenge=c")!

    /// A portal hook that records the URLs it was given, and fails when told to.
    final class RecordingPortal: Sendable {
        let opened = Mutex<[URL]>([])
        let failure: String?
        init(failing failure: String? = nil) { self.failure = failure }
        var hook: SystemBrowser.Portal {
            { url in
                self.opened.withLock { $0.append(url) }
                if let failure = self.failure { throw PortalFailure(text: failure) }
            }
        }
    }

    struct PortalFailure: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }

    /// A directory with an executable `xdg-open` that writes its arguments to `arguments` in that directory.
    static func recordingXDGOpen() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        _ = try directory.script("xdg-open", "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/arguments\"\n")
        return directory
    }

    /// The arguments the recording `xdg-open` in `directory` was run with, once it has written them.
    static func recordedArguments(in directory: URL) async throws -> [String] {
        let file = directory.appendingPathComponent("arguments")
        var text = ""
        try await waitUntil("xdg-open writes its arguments", within: .seconds(10)) {
            text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            return text.hasSuffix("\n")
        }
        return text.split(separator: "\n").map(String.init)
    }

    @Test("BROWSER entries: %s replaced, %% kept as %, the URL appended when there is no %s")
    func browserVariable() throws {
        let browser = SystemBrowser(environment: ["BROWSER": "firefox --new-tab %s:w3m %%s"], sandboxed: false)
        #expect(try browser.commands(for: Self.url) == [
            ["firefox", "--new-tab", Self.url.absoluteString], ["w3m", "%s", Self.url.absoluteString],
        ])
    }

    @Test("no graphical session, no sandbox, no BROWSER: noGraphicalSession, and nothing is asked")
    func noGraphicalSession() async throws {
        let portal = RecordingPortal()
        let browser = SystemBrowser(environment: ["PATH": "/nonexistent"], portal: portal.hook, sandboxed: false)
        #expect(!browser.usesPortal)
        let error = await #expect(throws: SignInError.self) { try await browser.open(Self.url) }
        #expect(error?.code == .noGraphicalSession)
        #expect(portal.opened.withLock { $0 }.isEmpty)
    }

    @Test("in a sandbox the portal gets the URL, and no command is needed (none could run: PATH has none)")
    func sandboxUsesPortal() async throws {
        let portal = RecordingPortal()
        let browser = SystemBrowser(environment: ["PATH": "/nonexistent"], portal: portal.hook, sandboxed: true)
        #expect(browser.usesPortal)
        try await browser.open(Self.url)
        #expect(portal.opened.withLock { $0 } == [Self.url])
    }

    @Test("in a sandbox, a portal call that is cancelled starts no browser: not the xdg-open there is")
    func cancelledPortal() async throws {
        let temporary = try Self.recordingXDGOpen()
        defer { withExtendedLifetime(temporary) {} }
        let browser = SystemBrowser(
            environment: ["PATH": temporary.url.path + ":/usr/bin:/bin"], portal: { _ in throw CancellationError() },
            sandboxed: true)
        // Had xdg-open been run, it would have started: open() would have returned.
        let error = await #expect(throws: SignInError.self) { try await browser.open(Self.url) }
        #expect(error?.code == .browserNotStarted)
    }

    @Test("in a sandbox, a portal that fails: xdg-open is run instead")
    func portalFailureFallsBack() async throws {
        let temporary = try Self.recordingXDGOpen()
        defer { withExtendedLifetime(temporary) {} }
        let directory = temporary.url
        let portal = RecordingPortal(failing: "no portal")
        let browser = SystemBrowser(environment: ["PATH": directory.path + ":/usr/bin:/bin"], portal: portal.hook, sandboxed: true)
        try await browser.open(Self.url)
        #expect(portal.opened.withLock { $0 }.count == 1)
        #expect(try await Self.recordedArguments(in: directory) == [Self.url.absoluteString])
    }

    @Test("in a sandbox, a failing portal and no xdg-open: browserNotStarted names both")
    func bothFail() async throws {
        let portal = RecordingPortal(failing: "no portal answers")
        let browser = SystemBrowser(environment: ["PATH": "/nonexistent"], portal: portal.hook, sandboxed: true)
        let error = await #expect(throws: SignInError.self) { try await browser.open(Self.url) }
        #expect(error?.code == .browserNotStarted)
        // checks the sentence's help: it names what failed, both.
        #expect(error.map { "\($0)".contains("no portal answers") && "\($0)".contains("xdg-open not found") } == true, "\(String(describing: error))")
    }

    @Test("a task already cancelled starts no browser: BROWSER is not run")
    func cancelledBeforeOpening() async throws {
        let temporary = try Self.recordingXDGOpen()
        defer { withExtendedLifetime(temporary) {} }
        let directory = temporary.url
        let browser = SystemBrowser(environment: ["BROWSER": directory.appendingPathComponent("xdg-open").path], sandboxed: false)
        let outcome = await runCancelled { try await browser.open(Self.url) }
        // Had BROWSER been run, it would have started: open() would have returned.
        let error = try #require(throws: SignInError.self) { try outcome.get() }
        #expect(error.code == .browserNotStarted)
    }

    @Test("in a sandbox, a portal that fails after the sign-in was cancelled: xdg-open is not run instead")
    func cancelledWhilePortalFailed() async throws {
        let temporary = try Self.recordingXDGOpen()
        defer { withExtendedLifetime(temporary) {} }
        let directory = temporary.url
        let browser = SystemBrowser(
            environment: ["PATH": directory.path + ":/usr/bin:/bin"],
            portal: { _ in
                withUnsafeCurrentTask { $0?.cancel() }  // the user gives up while the portal is asked
                throw PortalFailure(text: "no portal")
            },
            sandboxed: true)
        // In a task of its own: the portal cancels the task it runs in.
        let outcome = await Task { try await browser.open(Self.url) }.result
        // Had xdg-open been run, it would have started: open() would have returned.
        let error = try #require(throws: SignInError.self) { try outcome.get() }
        #expect(error.code == .browserNotStarted)
    }

    @Test("BROWSER wins over the portal, in a sandbox too")
    func browserWinsInSandbox() async throws {
        let portal = RecordingPortal()
        let browser = SystemBrowser(environment: ["BROWSER": "/bin/true"], portal: portal.hook, sandboxed: true)
        #expect(!browser.usesPortal)
        try await browser.open(Self.url)
        #expect(portal.opened.withLock { $0 }.isEmpty)
    }
}
