import ChildProcesses
import Foundation
import Testing
import TestSupport

/// A fake systemd-logind on a private system bus: `scripts/lib/fake-logind.py`, python-dbusmock's logind template
/// on a `dbus-daemon` of its own. Point a `SleepInhibitor` at ``busAddress`` and ask ``heldInhibitors()`` which
/// inhibitor locks the fake holds: the template lists a lock until every copy of the descriptor it handed out is
/// closed, so a released lock leaves the list.
///
/// ```swift
/// try await FakeLogind.with { logind in
///     let lock = await SleepInhibitor(who: "test", why: "test", busAddress: logind.busAddress).acquire()
///     #expect(try await logind.heldInhibitors().count == 1)
/// }
/// ```
public final class FakeLogind: Sendable {
    /// What owns `org.freedesktop.login1` on the fake's bus.
    public enum Mode: Sendable {
        /// python-dbusmock's logind template.
        case logind
        /// Nobody: a system bus without logind, as in a container.
        case withoutLogind
        /// A connection that never answers: a hung logind.
        case hung
        /// A logind whose `Inhibit` answers `AccessDenied`, as it does when polkit refuses.
        case refusing

        fileprivate var arguments: [String] {
            switch self {
            case .logind: []
            case .withoutLogind: ["--no-logind"]
            case .hung: ["--hung"]
            case .refusing: ["--refusing"]
            }
        }
    }

    /// An inhibitor lock the fake holds, as logind's `ListInhibitors` lists it.
    public struct Inhibitor: Decodable, Equatable, Sendable, CustomStringConvertible {
        /// What is inhibited, e.g. `sleep:shutdown`.
        public let what: String
        public let who: String
        public let why: String
        /// `delay` or `block`.
        public let mode: String

        public init(what: String, who: String, why: String, mode: String) {
            self.what = what
            self.who = who
            self.why = why
            self.mode = mode
        }

        public var description: String { "\(mode) \(what) by \(who): \(why)" }
    }

    private let helper: PrivateBusProcess

    /// The address of the fake's system bus, for `SleepInhibitor(busAddress:)` (or `DBUS_SYSTEM_BUS_ADDRESS` of a
    /// child process).
    public var busAddress: String { helper.address }

    private init(helper: PrivateBusProcess) { self.helper = helper }

    /// Starts the fake and returns once its bus is up and, in ``Mode/logind``, logind's mock owns its name. Stop it
    /// with ``stop()``; ``with(_:_:)`` does both.
    public static func start(_ mode: Mode = .logind) async throws -> FakeLogind {
        // The script gives up on its own after 30 s; 60 s ends it if it hangs anyway.
        FakeLogind(helper: try await PrivateBusProcess.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [TestKeyring.scriptsDirectory.appendingPathComponent("lib/fake-logind.py").path] + mode.arguments,
            environment: [:], startLimit: .seconds(60)))
    }

    /// Runs `body` with a fake started, and stops it afterwards, also when `body` throws.
    public static func with<T>(_ mode: Mode = .logind, _ body: (FakeLogind) async throws -> T) async throws -> T {
        let logind = try await start(mode)
        let result: Result<T, any Error>
        do { result = .success(try await body(logind)) } catch { result = .failure(error) }
        await logind.stop()
        return try result.get()
    }

    /// The inhibitor locks held now, in the order they were taken.
    /// - Throws: `TestKeyring.AdminError` when the fake could not ask its logind (in ``Mode/withoutLogind``, or when
    ///   the mock has gone).
    public func heldInhibitors() async throws -> [Inhibitor] {
        let answer = Data(try await helper.ask("inhibitors").utf8)
        if let held = try? JSONDecoder().decode([Inhibitor].self, from: answer) { return held }
        throw TestKeyring.AdminError(message: "fake-logind.py could not list the inhibitors: \(String(decoding: answer, as: UTF8.self))")
    }

    /// Stops logind's mock and the bus.
    public func stop() async { await helper.stop() }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test where python-dbusmock's logind template can be started — always under `scripts/test`, which
    /// installs `python3-dbusmock` (there a missing one fails the test).
    public static var needsFakeLogind: Self {
        .enabled("needs python-dbusmock for a fake logind: apt-get install python3-dbusmock, or run scripts/test") {
            if SecretServiceRequirement.isRequired { return true }
            let probe = try? await runCommand("/usr/bin/python3", ["-c", "import dbusmock.templates.logind"], timeout: .seconds(30))
            return probe?.status == 0
        }
    }
}
