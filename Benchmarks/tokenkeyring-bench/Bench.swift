import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

/// `tokenkeyring-bench`: the figures of issue 6 (and figure 8, of issue 30; figure 9, of issue 42), side by side in one process. Run it through `scripts/bench`.
///
/// Standard output gets the table; standard error gets progress; `--output` gets the JSON.
@main
struct Bench {
    static func main() async {
        let options: Options
        do {
            options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
        } catch let error as UsageError {
            if let message = error.message { FileHandle.standardError.write(Data("tokenkeyring-bench: \(message)\n".utf8)) }
            FileHandle.standardError.write(Data((Options.usage + "\n").utf8))
            exit(error.message == nil ? 0 : 64)
        } catch {
            exit(64)
        }
        exit(await run(options))
    }

    static func run(_ options: Options) async -> Int32 {
        var report = BenchReport(
            machine: .init(
                cores: ProcessInfo.processInfo.activeProcessorCount,
                startedAt: systemWallClock().formatted(.iso8601),
                loadAverage: loadAverage()),
            options: options.recorded)

        let oauth: LoopbackOAuth
        do {
            oauth = try await LoopbackOAuth.start()
        } catch {
            Progress.say("could not start the OAuth server on 127.0.0.1: \(error)")
            return 1
        }
        let keyring = Keyring(configuration: .init(prompting: .never))
        let prefix = "tokenkeyring-bench-\(ProcessInfo.processInfo.processIdentifier)"
        let store = oauth.store(service: prefix + "-swift", keyring: keyring)

        let figures: [(number: Int, name: String, run: () async -> FigureReport)] = [
            (1, "refresh storm", { await RefreshStorm(oauth: oauth, options: options).run() }),
            (2, "cross-process", {
                await CrossProcess(oauth: oauth, options: options, keyring: keyring, service: prefix + "-xproc").run()
            }),
            (3, "hot path", { await HotPath(oauth: oauth, options: options, store: store).run() }),
            (4, "keyring store", {
                await KeyringStore(
                    options: options, store: store, keyring: keyring, sample: oauth.session(expired: false),
                    servicePrefix: prefix
                ).run()
            }),
            (5, "client overhead", { await ClientOverhead(oauth: oauth, options: options).run() }),
            (6, "tokenctl token vs secret-tool lookup", {
                await TokenStartup(oauth: oauth, options: options, keyring: keyring, service: prefix + "-startup").run()
            }),
            (7, "rotation soak", { await RotationSoak(options: options, keyring: keyring, service: prefix + "-soak").run() }),
            (8, "faults in the refresh window", { await SessionFaults(options: options, service: prefix + "-faults").run() }),
            (9, "DPoP", { await DPoPOverhead(options: options, oauth: oauth).run() }),
        ]
        for figure in figures where options.runs(figure.number) {
            Progress.say("figure \(figure.number): \(figure.name)")
            report.figures.append(await figure.run())
        }
        _ = try? await keyring.delete(store.attributes)
        await oauth.shutdown()

        var wrote = true
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: options.output))
            Progress.say("wrote \(options.output)")
        } catch {
            Progress.say("could not write \(options.output): \(error)")
            wrote = false
        }
        print(Table.render(report))
        fflush(nil)
        return !wrote || report.figures.contains { $0.skipped?.hasPrefix("stopped") == true } ? 1 : 0
    }

    private static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
