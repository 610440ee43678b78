import ChildProcesses
import Foundation
import KeyringTestSupport
import TestSupport
import Testing

extension Trait where Self == ConditionTrait {
    /// Runs the test where it can make a second Unix user (as root) — always under `scripts/test`, which runs as
    /// root (there a test run by another user fails).
    static var needsSecondUser: Self {
        .enabled("needs root, to make a second Unix user: run scripts/test as root") {
            SecretServiceRequirement.isRequired || getuid() == 0
        }
    }
}

/// A second local user, made for one test with `useradd` and removed after it with `userdel`.
struct SecondUser {
    let name: String

    /// Runs `body` with a new system user that has no home and no login shell.
    static func with<T>(_ body: (SecondUser) async throws -> T) async throws -> T {
        #expect(getuid() == 0, "a second user can only be made by root")
        let name = "tk-squat-\(UInt16.random(in: 1000...UInt16.max))"
        let made = try await runCommand(
            "/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
            timeout: .seconds(30))
        try #require(made.status == 0, "useradd: \(made.stderr)")
        return try await cleaningUp({
            _ = try? await runCommand("/usr/sbin/userdel", [name], timeout: .seconds(30))
        }) { try await body(SecondUser(name: name)) }
    }

    /// Runs `script` as this user with `sh -c`.
    func run(_ script: String) async throws -> ChildResult {
        try await runCommand("/usr/sbin/runuser", ["-u", name, "--", "/bin/sh", "-c", script], timeout: .seconds(30))
    }
}

extension TokenCtlNetworkTests {
    /// Without logind's `/run/user/UID` (ssh without pam_systemd, su, cron, containers, CI), the locks and kept answers
    /// used to live at `/dev/shm/tokenkeyring-UID`: a name every other user could create first, which made every
    /// command fail until root removed it. Now the directory is one only this user can name or make.
    @Suite("tokenctl: another user cannot take the runtime directory", .needsSecondUser)
    struct TokenCtlSquattedPathsTests {
        enum Squat: String, CaseIterable, CustomTestStringConvertible {
            case directory, symbolicLink, fifo
            var testDescription: String { rawValue }

            /// The shell commands that make `path` this kind of thing, owned by the user who runs them.
            func making(_ path: String) -> String {
                switch self {
                case .directory: "mkdir -m 777 '\(path)'"
                case .symbolicLink: "ln -s /tmp '\(path)'"
                case .fifo: "mkfifo -m 666 '\(path)'"
                }
            }
        }

        @Test(
            "a second user squats the old /dev/shm path and an XDG_RUNTIME_DIR under /tmp: import, refresh and delete work",
            arguments: Squat.allCases)
        func squattedFallbacks(squat: Squat) async throws {
            try await SecondUser.with { squatter in
                let oldPath = "/dev/shm/tokenkeyring-\(getuid())"
                let runtime = "/tmp/tokenkeyring-runtime-\(getuid())-\(squat.rawValue)"
                for path in [oldPath, runtime] { try? FileManager.default.removeItem(atPath: path) }
                let squatted = try await squatter.run("\(squat.making(oldPath)) && \(squat.making(runtime))")
                try #require(squatted.status == 0, "\(squatted.stderr)")
                defer { for path in [oldPath, runtime] { try? FileManager.default.removeItem(atPath: path) } }

                try await NetworkFixture.with { fixture in
                    // As a process started by su or cron: no logind directory, and an XDG_RUNTIME_DIR another user made.
                    let environment: [String: String?] = ["XDG_RUNTIME_DIR": runtime]
                    let imported = try await tokenctl(
                        fixture.item("import"), stdin: fixture.expiredBundle(), environment: environment)
                    #expect(imported.status == 0, "\(imported.stderr)")
                    let token = try await tokenctl(fixture.item("token"), environment: environment)
                    #expect(token.status == 0, "\(token.stderr)")
                    #expect(fixture.server.stats.refreshGrants == 1, "the expired token was refreshed once")
                    let deleted = try await tokenctl(fixture.item("delete"), environment: environment)
                    #expect(deleted.status == 0, "\(deleted.stderr)")
                    #expect(try await fixture.store.loadCredentials() == nil)
                }
            }
        }
    }
}
