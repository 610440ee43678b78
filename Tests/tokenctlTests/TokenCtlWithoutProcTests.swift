import Foundation
import KeyringTestSupport
import Testing
import TestSupport
import TokenCtlBase

/// `tokenctl` finds `tokenctl-full` beside its own executable through `/proc/self/exe`. Where `/proc` is not mounted
/// it says so and exits; `argv[0]` and the working directory, which the caller chooses, never name what it runs.
@Suite("tokenctl without /proc says so and runs no tokenctl-full", .needsMountNamespace)
struct TokenCtlWithoutProcTests {
    @Test("in a mount namespace with an empty /proc: exit 64 with a sentence; the tokenctl-full planted beside argv[0] and in . never runs")
    func withoutProc() async throws {
        let planted = try TemporaryDirectory()
        defer { withExtendedLifetime(planted) {} }
        let marker = planted.url.appendingPathComponent("ran").path
        _ = try planted.script(FullCommand.executableName, "#!/bin/sh\ntouch '\(marker)'\n")
        // An empty tmpfs over /proc, in a mount namespace of the child's own; then the planted directory as the
        // working directory, and argv[0] naming a tokenctl in it, or a bare "tokenctl" (whose directory is ".").
        let script = #"mount -t tmpfs none /proc && cd "$1" && exec -a "$2" "$0" status --service S"#
        for argv0 in [planted.url.appendingPathComponent("tokenctl").path, "tokenctl"] {
            let result = try await runCommand(
                "/usr/bin/unshare", ["-m", "/bin/bash", "-c", script, try tokenctlPath(), planted.url.path, argv0],
                timeout: .seconds(30))
            #expect(result.status == 64, "argv[0] \(argv0): \(result.allOutput)")
            #expect(result.stderr.hasPrefix("tokenctl: tokenctl needs /proc, "), "\(result.stderr)")
            #expect(result.stderr.contains("cannot read /proc/self/exe ("), "\(result.stderr)")
            #expect(result.stderr.contains("so it ran nothing. Mount /proc"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: marker), "argv[0] \(argv0): the planted tokenctl-full ran")
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test as root, who may make a mount namespace (`unshare -m`), or under `scripts/test`, which runs as
    /// root and where the test then fails rather than skip when it cannot.
    fileprivate static var needsMountNamespace: Self {
        .enabled("needs root for a mount namespace without /proc (unshare -m)") {
            getuid() == 0 || !(ProcessInfo.processInfo.environment["TOKENKEYRING_PROVIDER"] ?? "").isEmpty
        }
    }
}
