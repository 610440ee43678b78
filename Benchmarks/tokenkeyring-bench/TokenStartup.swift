import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

/// Figure 6: `tokenctl token` against its peers over one valid keyring item, as whole processes, the way a script
/// calls any of them once per request: `curl -H "Authorization: Bearer $(tokenctl token …)"`.
///
/// The peers: `secret-tool lookup` (the goal's yardstick), Python keyring's command line (`keyring get`), and the C
/// floor (`floor --lookup`: connect, one `secret_password_lookupv_sync`, print). They take turns, round after round,
/// who goes first rotating, so that load from elsewhere on the machine hits all alike; each runs under the process
/// meter, which reports its wall time, CPU time and peak resident set. Ratios are of medians (and of minimums, the
/// least noisy figure of a start-up) to `secret-tool lookup`'s.
struct TokenStartup {
    let oauth: LoopbackOAuth
    let options: Options
    let keyring: Keyring
    let service: String

    private struct Peer {
        let name: String
        let command: [String]
        let expected: Data
    }

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
        let rounds = options.startRounds
        var report = FigureReport(
            id: 6, title: "`tokenctl token` vs `secret-tool lookup`, Python keyring and the C floor on one valid item, \(rounds) interleaved rounds")
        guard let tokenctl = report.requireTokenctl(options) else { return report }
        guard let meter = options.meter, FileManager.default.isExecutableFile(atPath: meter) else {
            report.skipped = "no process meter (--meter); scripts/bench compiles Benchmarks/process-meter/meter.c"
            return report
        }
        guard let secretTool = KeyringStore.secretToolPath else {
            report.skipped = "secret-tool is not installed (Debian: libsecret-tools)"
            return report
        }
        let session = oauth.session(expired: false)
        let store = oauth.store(service: service, keyring: keyring)
        // Python keyring finds items by `service` and `username`: an item of its own, holding the same bundle.
        let pythonAttributes = ["service": service + "-python", "username": LoopbackOAuth.user]

        var samples: [String: Samples] = [:], peers: [Peer] = []
        do {
            try await store.save(session)
            guard let stored = try await keyring.lookup(store.attributes)?.secret else {
                throw BenchFailure("the item vanished")
            }
            let bundle = Data(stored.utf8)
            peers = [
                Peer(
                    name: "tokenctl token", command: [tokenctl, "token", "--service", service, "--account", LoopbackOAuth.user, "--no-prompt"],
                    expected: Data((session.accessToken + "\n").utf8)),
                Peer(name: "secret-tool lookup", command: [secretTool, "lookup", "service", service, "account", LoopbackOAuth.user], expected: bundle),
            ]
            if let cli = options.pythonKeyringCLI {
                try await keyring.store(stored, label: "tokenkeyring-bench python", attributes: pythonAttributes)
                peers.append(Peer(name: "Python keyring get", command: [cli, "get", service + "-python", LoopbackOAuth.user], expected: Data((stored + "\n").utf8)))
            } else {
                report.notes.append("Python keyring not measured: \(options.pythonUnavailable ?? "no venv (--python)")")
            }
            if let floor = options.floor, FileManager.default.isExecutableFile(atPath: floor) {
                peers.append(Peer(name: "C floor (libsecret)", command: [floor, "--lookup", service, LoopbackOAuth.user], expected: bundle))
            } else {
                report.notes.append("C floor not measured: no floor binary (--floor)")
            }
            let grants = oauth.server.stats.refreshGrants
            samples = try await onThreadOfItsOwn { [peers] in
                var samples: [String: Samples] = [:]
                // One of each first, untimed: the binaries' pages come into the cache like a script's second call.
                for peer in peers { _ = try MeasuredProcess.runBlocking(meter: meter, peer.command) }
                for round in 0..<rounds {
                    for peer in peers.inTurn(round: round) {
                        let process = try MeasuredProcess.runBlocking(meter: meter, peer.command)
                        guard process.status == 0, process.stdout == peer.expected else {
                            throw BenchFailure(
                                "\(peer.name) exited \(process.status) with "
                                    + "\(process.stdout == peer.expected ? "the expected" : "unexpected") output")
                        }
                        samples[peer.name, default: Samples()].add(process)
                    }
                }
                return samples
            }
            if oauth.server.stats.refreshGrants != grants {
                report.notes.append("WARNING: a refresh grant was made during the figure; the token was not valid")
            }
        } catch {
            report.skipped = "stopped: \(error)"
        }
        _ = try? await keyring.delete(store.attributes)
        _ = try? await keyring.delete(pythonAttributes)

        for peer in peers { report.add("wall time, \(peer.name)", .milliseconds, samples[peer.name]?.wall ?? []) }
        for peer in peers { report.add("CPU time, \(peer.name)", .milliseconds, samples[peer.name]?.cpu ?? []) }
        for peer in peers { report.add("peak memory (MiB), \(peer.name)", .count, samples[peer.name]?.peak ?? []) }
        guard let theirs = samples["secret-tool lookup"], let theirWall = Summary(theirs.wall),
              let theirPeak = Summary(theirs.peak)?.median
        else { return report }
        for peer in peers where peer.name != "secret-tool lookup" {
            guard let measured = samples[peer.name], let wall = Summary(measured.wall), let peak = Summary(measured.peak)?.median
            else { continue }
            report.add("ratio to secret-tool, median wall, \(peer.name)", .ratio, [wall.median / theirWall.median])
            report.add("ratio to secret-tool, minimum wall, \(peer.name)", .ratio, [wall.min / theirWall.min])
            report.add("ratio to secret-tool, median peak memory, \(peer.name)", .ratio, [peak / theirPeak])
        }
        guard let ours = samples["tokenctl token"], let ourWall = Summary(ours.wall)?.median,
              let ourPeak = Summary(ours.peak)?.median
        else { return report }
        report.target(
            "wall time vs secret-tool lookup", goal: "≤ 1.25× (medians; aim 1.10×)",
            value: String(format: "%.2f×", ourWall / theirWall.median), met: ourWall <= 1.25 * theirWall.median)
        report.target(
            "peak memory vs secret-tool lookup", goal: "≤ 2.5×", value: String(format: "%.2f×", ourPeak / theirPeak),
            met: ourPeak <= 2.5 * theirPeak)
        report.notes.append(
            "Whole processes, fork to exit, measured by Benchmarks/process-meter (CPU = user + system; peak = ru_maxrss). "
                + "Each connects to the session bus, opens an encrypted Secret Service session and reads the item; tokenctl "
                + "also checks that the item's attributes are exactly service and account, decodes the bundle and checks "
                + "the token's expiry. Python keyring reads an item of its own (service, username) holding the same bundle.")
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
