import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

/// Figure 6: `tokenctl token` against `secret-tool lookup` over the same valid keyring item, as whole processes, the
/// way a script calls either once per request: `curl -H "Authorization: Bearer $(tokenctl token …)"`.
///
/// The two take turns, pair after pair (who goes first alternates), so that load from elsewhere on the machine
/// hits both alike. Each runs under the process meter, which reports its CPU time and peak resident set.
struct TokenStartup {
    let oauth: LoopbackOAuth
    let options: Options
    let keyring: Keyring
    let service: String
    static let account = "alice"

    private struct Samples {
        var wall: [Double] = []
        var cpu: [Double] = []
        var peak: [Double] = []

        mutating func add(_ process: MeasuredProcess) {
            wall.append(process.wallMilliseconds)
            cpu.append(process.cpuMilliseconds)
            peak.append(process.peakMebibytes)
        }
    }

    func run() async -> FigureReport {
        let pairs = options.startPairs
        var report = FigureReport(
            id: 6, title: "`tokenctl token` vs `secret-tool lookup` on one valid keyring item, \(pairs) alternating pairs")
        let tokenctl = options.tokenctlPath
        guard FileManager.default.isExecutableFile(atPath: tokenctl) else {
            report.skipped = "no tokenctl at \(tokenctl); build it next to the benchmark or pass --tokenctl"
            return report
        }
        guard let meter = options.meter, FileManager.default.isExecutableFile(atPath: meter) else {
            report.skipped = "no process meter (--meter); scripts/bench compiles Benchmarks/process-meter/meter.c"
            return report
        }
        guard let secretTool = KeyringStore.secretToolPath else {
            report.skipped = "secret-tool is not installed (Debian: libsecret-tools)"
            return report
        }
        let session = oauth.session(expired: false)
        let store = KeyringAuthStore(service: service, account: Self.account, client: oauth.client, keyring: keyring)
        let ours = [tokenctl, "token", "--service", service, "--account", Self.account, "--no-prompt"]
        let theirs = [secretTool, "lookup", "service", service, "account", Self.account]

        var tokenctlSamples = Samples(), secretToolSamples = Samples(), ratios: [Double] = []
        do {
            try await store.save(session)
            guard let stored = try await keyring.lookup(store.attributes)?.secret else {
                throw MeasuredProcess.Failure(description: "the item vanished")
            }
            let expectedToken = Data((session.accessToken + "\n").utf8)
            let expectedBundle = Data(stored.utf8)
            let grants = oauth.server.stats.refreshGrants
            (tokenctlSamples, secretToolSamples, ratios) = try await onThreadOfItsOwn {
                var tokenctlSamples = Samples(), secretToolSamples = Samples(), ratios: [Double] = []
                // One of each first, untimed: the binaries' pages come into the cache like a script's second call.
                _ = try MeasuredProcess.runBlocking(meter: meter, ours)
                _ = try MeasuredProcess.runBlocking(meter: meter, theirs)
                for pair in 0..<pairs {
                    var pairWall: [String: Double] = [:]
                    for command in pair % 2 == 0 ? [ours, theirs] : [theirs, ours] {
                        let process = try MeasuredProcess.runBlocking(meter: meter, command)
                        let isOurs = command == ours
                        let expected = isOurs ? expectedToken : expectedBundle
                        guard process.status == 0, process.stdout == expected else {
                            throw MeasuredProcess.Failure(
                                description: "\(isOurs ? "tokenctl token" : "secret-tool lookup") exited \(process.status) "
                                    + "with \(process.stdout == expected ? "the expected" : "unexpected") output")
                        }
                        if isOurs { tokenctlSamples.add(process) } else { secretToolSamples.add(process) }
                        pairWall[isOurs ? "ours" : "theirs"] = process.wallMilliseconds
                    }
                    ratios.append(pairWall["ours"]! / pairWall["theirs"]!)
                }
                return (tokenctlSamples, secretToolSamples, ratios)
            }
            if oauth.server.stats.refreshGrants != grants {
                report.notes.append("WARNING: a refresh grant was made during the figure; the token was not valid")
            }
        } catch {
            report.skipped = "stopped: \(error)"
        }
        _ = try? await keyring.delete(store.attributes)

        report.add("wall time, tokenctl token", .milliseconds, tokenctlSamples.wall)
        report.add("wall time, secret-tool lookup", .milliseconds, secretToolSamples.wall)
        report.add("CPU time, tokenctl token", .milliseconds, tokenctlSamples.cpu)
        report.add("CPU time, secret-tool lookup", .milliseconds, secretToolSamples.cpu)
        report.add("peak memory (MiB), tokenctl token", .count, tokenctlSamples.peak)
        report.add("peak memory (MiB), secret-tool lookup", .count, secretToolSamples.peak)
        report.add("ratio tokenctl / secret-tool, wall, per pair", .ratio, ratios)
        guard let ourWall = Summary(tokenctlSamples.wall)?.median, let theirWall = Summary(secretToolSamples.wall)?.median,
              let ourPeak = Summary(tokenctlSamples.peak)?.median, let theirPeak = Summary(secretToolSamples.peak)?.median
        else { return report }
        report.target(
            "wall time vs secret-tool lookup", goal: "≤ 1.00× (medians)", value: String(format: "%.2f×", ourWall / theirWall),
            met: ourWall <= theirWall)
        report.target(
            "peak memory vs secret-tool lookup", goal: "≤ 2×", value: String(format: "%.2f×", ourPeak / theirPeak),
            met: ourPeak <= 2 * theirPeak)
        report.notes.append(
            "Whole processes, fork to exit, measured by Benchmarks/process-meter (CPU = user + system; peak = ru_maxrss). Both connect to "
                + "the session bus, open a Secret Service session and read the item; tokenctl also decodes the bundle "
                + "and checks the token's expiry.")
        return report
    }

    /// Runs `body` on a new thread (it blocks on child processes) and waits for it without blocking the pool.
    private func onThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            Thread.detachNewThread {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
