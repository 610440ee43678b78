import Foundation

/// Which account of a service tokenctl uses when `--account` is left out, as `tokenctl switch` chose it: a JSON
/// object of service to account in `$XDG_CONFIG_HOME/tokenctl/default-accounts.json` (`~/.config/…` without it). No
/// secret is in it; it is written whole, to a temporary file renamed over the old one, in a 0700 directory.
enum DefaultAccounts {
    /// Where the choices are kept.
    static var file: URL {
        let config = getenv("XDG_CONFIG_HOME").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
            .map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".config")
        return config.appendingPathComponent("tokenctl/default-accounts.json")
    }

    /// The default account of `service`, or `nil` when none was chosen (or the file cannot be read).
    static func account(for service: String) -> String? {
        read()[service]
    }

    /// Makes `account` the default of `service`.
    static func set(_ account: String, for service: String) throws {
        var choices = read()
        choices[service] = account
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let temporary = directory.appendingPathComponent(".default-accounts.\(getpid()).json")
        try encoder.encode(choices).write(to: temporary)
        guard rename(temporary.path, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(message: "Could not write \(file.path): \(reason).", exitCode: Exit.usage)
        }
    }

    private static func read() -> [String: String] {
        guard let data = try? Data(contentsOf: file),
            let choices = try? JSONDecoder().decode([String: String].self, from: data)
        else { return [:] }
        return choices
    }
}
