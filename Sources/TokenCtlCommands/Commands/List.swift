import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthKeyring

extension TokenCtl {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the accounts stored for a service.",
            discussion: "Reads only the items' attributes and dates, so it works on a locked keyring too (and says so).")

        @OptionGroup var options: ServiceOptions

        struct Row: Encodable {
            let account: String
            let label: String
            let modified: Date
            let locked: Bool
        }

        func run() async throws {
            try await reportingFailures {
                let rows = try await KeyringAuthStore.accounts(of: options.service, keyring: options.keyringOptions.keyring).map {
                    Row(account: $0.attributes["account"] ?? "", label: $0.label, modified: $0.modified, locked: $0.isLocked)
                }
                if options.json {
                    try Terminal.printJSON(rows)
                    return
                }
                for row in rows {
                    let modified = row.modified.formatted(date: .abbreviated, time: .shortened)
                    print("\(row.account)\t\(modified)\(row.locked ? "\tlocked" : "")")
                }
            }
        }
    }
}
