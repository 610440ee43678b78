import Foundation

/// The command line of `tokenkeyring-bench`. `scripts/bench` passes the paths of the peers it prepared.
struct Options: Sendable {
    /// Rounds of every figure; medians and p99s are taken over them.
    var rounds = 5
    /// Concurrent authorized requests in the refresh storm (figure 1).
    var stormRequests = 10_000
    /// Concurrent `tokenctl token` processes (figure 2).
    var processes = 16
    /// `validToken()` calls per round (figure 3).
    var hotCalls = 200_000
    /// Keyring reads timed for figure 3's ratio.
    var keyringReads = 50
    /// Saves and loads per implementation per round (figure 4).
    var storeOperations = 40
    /// Requests per round and mode at 64 concurrent (figures 5 and 9); a quarter of them at 1.
    var clientRequests = 4_000
    /// Interleaved rounds of `tokenctl token`, `secret-tool lookup`, Python keyring and the C floor (figure 6).
    var startRounds = 300
    /// Rotations the soak runs for (figure 7).
    var soakRotations = 100
    /// Short-lived `tokenctl` loops beside the long-lived process in the soak (figure 7).
    var soakProcesses = 16
    /// Rounds of figure 8, one fault each.
    var faultRounds = 70
    /// The seed of figure 8's draw of faults and moments; random unless given, and recorded, so a run can be drawn
    /// again.
    var faultSeed = Int.random(in: 1...999_999)
    /// Figures to run, by number; all when empty.
    var only: Set<Int> = []
    var tokenctl: String?
    /// The `oauth-test-server` executable, run as figure 9's server in a process of its own.
    var oauthTestServer: String?
    var floor: String?
    /// The process meter of figure 6 (`Benchmarks/process-meter/meter.c`).
    var meter: String?
    /// `scripts/lib/private-provider`, which starts figure 8's own gnome-keyring.
    var privateProvider: String?
    var python: String?
    var pythonPeerScript: String?
    /// Python keyring's command line (`keyring get`, figure 6); `keyring` beside `--python` unless given.
    var pythonCLI: String?
    /// Why Python keyring is unavailable, reported when `python` is missing.
    var pythonUnavailable: String?
    var output = "bench-results.json"

    static let usage = """
        usage: tokenkeyring-bench [--rounds N] [--storm-requests N] [--processes N] [--hot-calls N]
                                  [--keyring-reads N] [--store-ops N] [--client-requests N] [--start-rounds N]
                                  [--soak-rotations N] [--soak-processes N] [--fault-rounds N] [--fault-seed N]
                                  [--only 1,2,3,4,5,6,7,8,9] [--tokenctl PATH] [--oauth-test-server PATH]
                                  [--floor PATH] [--meter PATH]
                                  [--private-provider PATH] [--python PATH --python-peer PATH] [--python-cli PATH]
                                  [--python-unavailable REASON] [--output PATH]
        Run it through scripts/bench, which builds it in release mode, prepares the peers and a keyring.
        Exit status: 0 when every figure ran (missed targets included), 1 when one failed, 64 usage.
        """

    /// The flags that take a positive count, and what each sets. Recorded in the JSON under the flag's name with
    /// underscores (`--storm-requests` as `storm_requests`).
    private static var countFlags: KeyValuePairs<String, WritableKeyPath<Options, Int>> {
        [
            "--rounds": \.rounds, "--storm-requests": \.stormRequests, "--processes": \.processes,
            "--hot-calls": \.hotCalls, "--keyring-reads": \.keyringReads, "--store-ops": \.storeOperations,
            "--client-requests": \.clientRequests, "--start-rounds": \.startRounds,
            "--soak-rotations": \.soakRotations, "--soak-processes": \.soakProcesses,
            "--fault-rounds": \.faultRounds, "--fault-seed": \.faultSeed,
        ]
    }

    /// The flags that take a path or a text, and what each sets.
    private static var textFlags: [String: WritableKeyPath<Options, String?>] {
        [
            "--tokenctl": \.tokenctl, "--oauth-test-server": \.oauthTestServer, "--floor": \.floor, "--meter": \.meter,
            "--private-provider": \.privateProvider,
            "--python": \.python,
            "--python-peer": \.pythonPeerScript, "--python-cli": \.pythonCLI,
            "--python-unavailable": \.pythonUnavailable,
        ]
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var remaining = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let next = remaining.popFirst() else { throw UsageError("\(flag) needs a value") }
            return next
        }
        while let flag = remaining.popFirst() {
            if let option = countFlags.first(where: { $0.key == flag })?.value {
                let text = try value(flag)
                guard let number = Int(text), number > 0 else { throw UsageError("\(flag) needs a positive number, not \(text)") }
                options[keyPath: option] = number
            } else if let option = textFlags[flag] {
                options[keyPath: option] = try value(flag)
            } else {
                switch flag {
                case "--only":
                    let figures = try value(flag).split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                    guard figures.allSatisfy({ $0.map { (1...9).contains($0) } ?? false }) else {
                        throw UsageError("--only takes figure numbers 1 to 9, e.g. --only 3,4")
                    }
                    options.only = Set(figures.compactMap { $0 })
                case "--output": options.output = try value(flag)
                case "-h", "--help": throw UsageError(nil)
                default: throw UsageError("unknown argument \(flag)")
                }
            }
        }
        return options
    }

    func runs(_ figure: Int) -> Bool { only.isEmpty || only.contains(figure) }

    /// The counts as recorded in the JSON.
    var recorded: [String: String] {
        var recorded: [String: String] = [:]
        for (flag, option) in Self.countFlags {
            recorded[flag.dropFirst(2).replacingOccurrences(of: "-", with: "_")] = "\(self[keyPath: option])"
        }
        return recorded
    }

    /// Python keyring's command line: `--python-cli`, or `keyring` beside the venv's `python`, if it is there.
    var pythonKeyringCLI: String? {
        let cli = pythonCLI ?? python.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("keyring").path }
        return cli.flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
    }

    /// `oauth-test-server` beside this executable unless `--oauth-test-server` says otherwise.
    var oauthTestServerPath: String {
        if let oauthTestServer { return oauthTestServer }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("oauth-test-server").path
    }

    /// `tokenctl` beside this executable unless `--tokenctl` says otherwise.
    var tokenctlPath: String {
        if let tokenctl { return tokenctl }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return executable.deletingLastPathComponent().appendingPathComponent("tokenctl").path
    }
}

extension FigureReport {
    /// ``Options/tokenctlPath`` for a figure that runs `tokenctl`; `nil`, with ``skipped`` saying why, when no
    /// executable is there.
    mutating func requireTokenctl(_ options: Options) -> String? {
        let path = options.tokenctlPath
        guard FileManager.default.isExecutableFile(atPath: path) else {
            skipped = "no tokenctl at \(path); build it next to the benchmark or pass --tokenctl"
            return nil
        }
        return path
    }
}

struct UsageError: Error {
    let message: String?
    init(_ message: String?) { self.message = message }
}
