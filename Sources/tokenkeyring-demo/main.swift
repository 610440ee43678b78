// tokenkeyring-demo: what an app does — many concurrent API calls through one AuthorizedClient over one keyring
// item — for scripts/demo.
//
//   tokenkeyring-demo --service S --account A --count N URL
//
// Sends N GET requests to URL at once and prints one line, e.g. `200 requests: 200 × HTTP 200`. Exit 0 when every
// response is 2xx, 1 otherwise, 2 for a usage error. Tokens are never printed.

import Foundation
import HTTPTypes
import Keyring
import TokenAuth
import TokenAuthURLSession
import TokenAuthKeyring

func usage(_ message: String) -> Never {
    let text = "tokenkeyring-demo: \(message)\nusage: tokenkeyring-demo --service S --account A --count N URL\n"
    FileHandle.standardError.write(Data(text.utf8))
    exit(2)
}

var options: [String: String] = [:]
var url: URL?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if ["--service", "--account", "--count"].contains(argument) {
        guard let value = arguments.popFirst() else { usage("\(argument) needs a value") }
        options[argument] = value
    } else if let parsed = URL(string: argument), parsed.canCarryCredentials {
        url = parsed
    } else {
        usage("unexpected argument \(argument)")
    }
}
guard let service = options["--service"], let account = options["--account"], let url else { usage("missing arguments") }
guard let count = Int(options["--count"] ?? "200"), count > 0 else { usage("--count needs a positive number") }

let transport = URLSessionHTTPTransport()
let statuses: [Int]
do {
    let manager = try await AuthManager.forKeyringItem(
        service: service, account: account, keyring: Keyring(configuration: .init(prompting: .never)), transport: transport)
    let client = AuthorizedClient(manager: manager, transport: transport)
    statuses = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<count {
            group.addTask { try await client.send(HTTPRequest(method: .get, url: url)).0.status.code }
        }
        var statuses: [Int] = []
        for try await status in group { statuses.append(status) }
        return statuses
    }
} catch {
    FileHandle.standardError.write(Data("tokenkeyring-demo: \(error)\n".utf8))
    exit(1)
}
let tally = Dictionary(grouping: statuses, by: { $0 }).sorted { $0.key < $1.key }
    .map { "\($0.value.count) × HTTP \($0.key)" }
print("\(count) requests: \(tally.joined(separator: ", "))")
exit(statuses.allSatisfy { (200..<300).contains($0) } ? 0 : 1)
