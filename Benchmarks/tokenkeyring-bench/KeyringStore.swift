import ChildProcesses
import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

/// Figure 4: saving and loading one token bundle in the Secret Service — our store against the libsecret floor,
/// `secret-tool` and Python `keyring`, taking turns within each round.
///
/// Every implementation writes the same secret (the JSON our store writes) to an item of its own on the same
/// gnome-keyring. The floor, Python and our store time calls inside a process that is already connected;
/// `secret-tool` is timed per command, start to exit, since that is how a script uses it.
///
/// Then the same rounds again for our store and the floor only, while a thread of the benchmark keeps one core
/// busy (``BusyCore``): the busy-machine variant, where every thread wake-up waits longer for a core.
struct KeyringStore {
    let options: Options
    let store: KeyringAuthStore
    let keyring: Keyring
    let sample: Auth
    /// Service attribute prefix; each peer gets an item of its own.
    let servicePrefix: String
    /// Each round's operations per implementation are run in this many chunks, the implementations taking turns.
    static let chunksPerRound = 4

    enum Implementation: String, CaseIterable {
        case swift = "KeyringAuthStore (Swift)"
        case floor = "C floor (libsecret)"
        case secretTool = "secret-tool, per command"
        case python = "Python keyring (SecretService)"
    }

    struct Latencies {
        var save: [Double] = []
        var load: [Double] = []
    }

    func run() async -> FigureReport {
        var report = FigureReport(
            id: 4, title: "Keyring store on one gnome-keyring: save and load latency, ratios to the C floor")
        var latencies: [Implementation: Latencies] = [:]
        var unavailable: [Implementation: String] = [:]
        if options.floor.map({ FileManager.default.isExecutableFile(atPath: $0) }) != true {
            unavailable[.floor] = "no C floor binary (--floor); scripts/bench compiles Benchmarks/c-floor/floor.c"
        }
        if secretTool == nil { unavailable[.secretTool] = "secret-tool is not installed (Debian: libsecret-tools)" }
        if options.python == nil || options.pythonPeerScript == nil {
            unavailable[.python] = options.pythonUnavailable ?? "no Python keyring venv (--python, --python-peer)"
        }

        let payload: Data
        do {
            try await store.save(sample)
            guard let stored = try await keyring.lookup(store.attributes) else { throw BenchFailure("our item vanished") }
            payload = Data(stored.secret.utf8)
        } catch {
            report.skipped = "stopped: could not store the sample bundle: \(error)"
            return report
        }

        let implementations = Implementation.allCases
        let chunk = max(1, options.storeOperations / Self.chunksPerRound)
        for round in 0..<options.rounds {
            // Small chunks taking turns, so a burst of load from elsewhere on the machine hits every implementation alike.
            for step in 0..<Self.chunksPerRound {
                for implementation in implementations.inTurn(round: round, step: step)
                where unavailable[implementation] == nil {
                    do {
                        let measured = try await measure(implementation, operations: chunk, payload: payload)
                        latencies[implementation, default: Latencies()].save += measured.save
                        latencies[implementation, default: Latencies()].load += measured.load
                    } catch {
                        unavailable[implementation] = "failed: \(error)"
                    }
                }
            }
            Progress.say("keyring store round \(round + 1) done")
        }
        await cleanUp()

        for implementation in implementations {
            guard let measured = latencies[implementation] else { continue }
            report.add("save, \(implementation.rawValue)", .milliseconds, measured.save)
            report.add("load, \(implementation.rawValue)", .milliseconds, measured.load)
        }
        var busy: [Implementation: Latencies] = [:]
        if unavailable[.floor] == nil, unavailable[.swift] == nil {
            let spinner = BusyCore()
            for round in 0..<options.rounds {
                for step in 0..<Self.chunksPerRound {
                    for implementation in [Implementation.swift, .floor].inTurn(round: round, step: step) {
                        do {
                            let measured = try await measure(implementation, operations: chunk, payload: payload)
                            busy[implementation, default: Latencies()].save += measured.save
                            busy[implementation, default: Latencies()].load += measured.load
                        } catch {
                            report.notes.append("busy variant, \(implementation.rawValue) failed: \(error)")
                        }
                    }
                }
                Progress.say("keyring store, one core busy, round \(round + 1) done")
            }
            spinner.stop()
            await cleanUp()
            for implementation in [Implementation.swift, .floor] {
                guard let measured = busy[implementation] else { continue }
                report.add("save, one core busy, \(implementation.rawValue)", .milliseconds, measured.save)
                report.add("load, one core busy, \(implementation.rawValue)", .milliseconds, measured.load)
            }
        }
        for (implementation, reason) in unavailable.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            report.notes.append("\(implementation.rawValue) not measured: \(reason)")
        }
        addRatios(latencies, to: &report)
        addBusyRatios(busy, to: &report)
        report.notes.append(
            "Per operation, in D-Bus round trips, for an item this process found before (a hint): ours = Keyring.store, 2 "
                + "(SearchItems with the item's GetAll; SetSecret) or Keyring.lookup, 1 (SearchItems with the item's Get "
                + "Attributes and GetSecrets), 3 and 2 without a hint; floor = secret_password_storev_sync, 1 (CreateItem replacing) / secret_password_lookupv_sync, "
                + "2 (SearchItems; GetSecrets); Python keyring opens a D-Bus connection per call.")
        return report
    }

    private func addRatios(_ latencies: [Implementation: Latencies], to report: inout FigureReport) {
        guard let floor = latencies[.floor], let floorSave = Summary(floor.save)?.median,
              let floorLoad = Summary(floor.load)?.median else {
            report.notes.append("No ratios: the C floor did not run.")
            return
        }
        for implementation in Implementation.allCases where implementation != .floor {
            guard let measured = latencies[implementation], let save = Summary(measured.save)?.median,
                  let load = Summary(measured.load)?.median else { continue }
            report.add("ratio save / floor, \(implementation.rawValue)", .ratio, [save / floorSave])
            report.add("ratio load / floor, \(implementation.rawValue)", .ratio, [load / floorLoad])
        }
        guard let ours = latencies[.swift], let save = Summary(ours.save)?.median, let load = Summary(ours.load)?.median
        else { return }
        report.target(
            "save vs C floor", goal: "≤ 1.10×", value: String(format: "%.2f×", save / floorSave), met: save / floorSave <= 1.10)
        report.target(
            "load vs C floor", goal: "≤ 1.10×", value: String(format: "%.2f×", load / floorLoad), met: load / floorLoad <= 1.10)
        for peer in [Implementation.secretTool, .python] {
            guard let theirs = latencies[peer], let theirSave = Summary(theirs.save)?.median,
                  let theirLoad = Summary(theirs.load)?.median else {
                report.target("faster than \(peer.rawValue)", goal: "save and load faster", value: "not measured", met: false)
                continue
            }
            report.target(
                "faster than \(peer.rawValue)", goal: "save and load faster",
                value: String(format: "save %.2f×, load %.2f× of theirs", save / theirSave, load / theirLoad),
                met: save < theirSave && load < theirLoad)
        }
    }

    /// The busy variant's ratios: medians of our store over medians of the floor, both measured beside ``BusyCore``.
    private func addBusyRatios(_ busy: [Implementation: Latencies], to report: inout FigureReport) {
        guard let ours = busy[.swift], let floor = busy[.floor], let save = Summary(ours.save)?.median,
              let load = Summary(ours.load)?.median, let floorSave = Summary(floor.save)?.median,
              let floorLoad = Summary(floor.load)?.median else { return }
        report.add("ratio save / floor, one core busy", .ratio, [save / floorSave])
        report.add("ratio load / floor, one core busy", .ratio, [load / floorLoad])
        report.target(
            "save vs C floor, one core busy", goal: "≤ 1.20×", value: String(format: "%.2f×", save / floorSave),
            met: save / floorSave <= 1.20)
        report.target(
            "load vs C floor, one core busy", goal: "≤ 1.20×", value: String(format: "%.2f×", load / floorLoad),
            met: load / floorLoad <= 1.20)
    }

    // MARK: Implementations

    private var account: String { store.account }

    private func service(_ implementation: Implementation) -> String {
        switch implementation {
        case .swift: return store.service
        case .floor: return servicePrefix + "-floor"
        case .secretTool: return servicePrefix + "-secret-tool"
        case .python: return servicePrefix + "-python"
        }
    }

    private var secretTool: String? { Self.secretToolPath }

    /// `secret-tool` on the `PATH`, if installed.
    static var secretToolPath: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/secret-tool" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `operations` saves, then as many loads, by `implementation`, in milliseconds.
    private func measure(_ implementation: Implementation, operations: Int, payload: Data) async throws -> Latencies {
        switch implementation {
        case .swift:
            var result = Latencies()
            for _ in 0..<operations {
                result.save.append(try await Timing.measure { try await store.save(sample) }.seconds * 1e3)
            }
            for _ in 0..<operations {
                let (loaded, seconds) = try await Timing.measure { try await store.load() }
                guard loaded?.accessToken == sample.accessToken else {
                    throw BenchFailure("our store read back other tokens")
                }
                result.load.append(seconds * 1e3)
            }
            return result
        case .floor:
            return try await inProcessPeer(options.floor!, [], implementation, operations: operations, payload: payload)
        case .python:
            return try await inProcessPeer(
                options.python!, [options.pythonPeerScript!], implementation, operations: operations, payload: payload)
        case .secretTool:
            let tool = secretTool!
            let service = service(.secretTool)
            var result = Latencies()
            for _ in 0..<operations {
                let stored = try await ChildProcess.run(
                    tool, ["store", "--label=tokenkeyring-bench secret-tool", "service", service, "account", account],
                    stdin: payload, timeout: .seconds(30))
                guard stored.status == 0 else { throw BenchFailure("secret-tool store: \(stored.stderr)") }
                result.save.append(stored.seconds * 1e3)
            }
            for _ in 0..<operations {
                let found = try await ChildProcess.run(tool, ["lookup", "service", service, "account", account], timeout: .seconds(30))
                guard found.status == 0, found.stdoutData == payload else {
                    throw BenchFailure("secret-tool lookup: status \(found.status) \(found.stderr)")
                }
                result.load.append(found.seconds * 1e3)
            }
            return result
        }
    }

    /// A peer that times its own calls and prints `{"save_ns":[…],"load_ns":[…]}`.
    private func inProcessPeer(
        _ executable: String, _ leading: [String], _ implementation: Implementation, operations: Int, payload: Data
    ) async throws -> Latencies {
        let result = try await ChildProcess.run(
            executable, leading + [service(implementation), account, "\(operations)"],
            stdin: payload, timeout: .seconds(120))
        guard result.status == 0 else {
            throw BenchFailure("exit \(result.status): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        struct Timings: Decodable {
            let save_ns: [Double]
            let load_ns: [Double]
        }
        let timings = try JSONDecoder().decode(Timings.self, from: result.stdoutData)
        return Latencies(save: timings.save_ns.map { $0 / 1e6 }, load: timings.load_ns.map { $0 / 1e6 })
    }

    /// Deletes the items of the floor and secret-tool (ours stays for figure 3; Python's script deletes its own).
    private func cleanUp() async {
        for implementation in [Implementation.floor, .secretTool] {
            _ = try? await keyring.delete(["service": service(implementation), "account": account])
        }
    }
}
