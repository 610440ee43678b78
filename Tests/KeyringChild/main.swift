import Foundation
import Keyring

// A long-running process of the keyring tests, as an app that does not run GLib's main loop is (a Qt app, a service,
// a command-line daemon): it keeps one process's libsecret state across the commands the test sends.
//
// Prints the session bus's address (the one it uses, `DBUS_SESSION_BUS_ADDRESS`) on its first line, then answers
// each line of standard input with one line, until standard input closes:
//
//   store SERVICE ACCOUNT SECRET      "ok", or "error CODE"
//   lookup SERVICE ACCOUNT            "secret SECRET", "none", or "error CODE" (prompting never)
//   lookup-prompting SERVICE ACCOUNT  the same, with an unlock prompt allowed
let quiet = Keyring(configuration: .init(timeout: .seconds(10), prompting: .never))
let prompting = Keyring(configuration: .init(timeout: .seconds(10), prompting: .allowed, promptTimeout: .seconds(20)))

func answer(_ line: String) async -> String {
    let words = line.split(separator: " ").map(String.init)
    guard words.count >= 3 else { return "error usage" }
    let attributes = ["service": words[1], "account": words[2]]
    do {
        switch words[0] {
        case "store" where words.count == 4:
            try await quiet.store(words[3], label: "keyring-child", attributes: attributes)
            return "ok"
        case "lookup":
            return try await quiet.lookup(attributes).map { "secret \($0.secret)" } ?? "none"
        case "lookup-prompting":
            return try await prompting.lookup(attributes).map { "secret \($0.secret)" } ?? "none"
        default:
            return "error usage"
        }
    } catch let error as KeyringError {
        FileHandle.standardError.write(Data("keyring-child: \(error)\n".utf8))
        return "error \(error.code)"
    } catch {
        return "error \(error)"
    }
}

/// One line on standard output, written at once (a pipe; `print` would keep it in a buffer).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

say(ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"] ?? "no session bus")
while let line = readLine() {
    say(await answer(line))
}
