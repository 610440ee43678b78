import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

/// `tokenkeyring-bench`: the figures of issue 6, side by side in one process. Run it through `scripts/bench`.
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
        let store = KeyringAuthStore(service: prefix + "-swift", account: "alice", client: oauth.client, keyring: keyring)

        if options.runs(1) {
            Progress.say("figure 1: refresh storm")
            report.figures.append(await RefreshStorm(oauth: oauth, options: options).run())
        }
        if options.runs(2) {
            Progress.say("figure 2: cross-process")
            report.figures.append(
                await CrossProcess(oauth: oauth, options: options, keyring: keyring, service: prefix + "-xproc").run())
        }
        if options.runs(3) {
            Progress.say("figure 3: hot path")
            report.figures.append(await HotPath(oauth: oauth, options: options, store: store).run())
        }
        if options.runs(4) {
            Progress.say("figure 4: keyring store")
            report.figures.append(
                await KeyringStore(
                    options: options, store: store, keyring: keyring, sample: oauth.session(expired: false),
                    servicePrefix: prefix
                ).run())
        }
        if options.runs(5) {
            Progress.say("figure 5: client overhead")
            report.figures.append(await ClientOverhead(oauth: oauth, options: options).run())
        }
        if options.runs(6) {
            Progress.say("figure 6: tokenctl token vs secret-tool lookup")
            report.figures.append(
                await TokenStartup(oauth: oauth, options: options, keyring: keyring, service: prefix + "-startup").run())
        }
        if options.runs(7) {
            Progress.say("figure 7: rotation soak")
            report.figures.append(await RotationSoak(options: options, keyring: keyring, service: prefix + "-soak").run())
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
