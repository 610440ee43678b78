import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring
import TokenCtlBase

extension TokenCtl {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the accounts stored for a service.",
            discussion: """
                Reads only the items' attributes and dates, so it works on a locked keyring too (and says so). \
                Accounts kept in files (--insecure-storage) that the keyring does not have follow, marked "file" \
                (JSON: storage, path).
                """)

        @OptionGroup var options: ServiceOptions

        struct Row: Encodable {
            let account: String
            let label: String
            let modified: Date?
            let locked: Bool
        }

        func run() async throws {
            try await reportingFailures {
                let service = options.service
                let (inKeyring, inFiles) = try await StoreLookup.accounts(inKeyring: {
                    try await KeyringAuthStore.accounts(of: service, keyring: options.keyringOptions.keyring).map {
                        let row = Row(
                            account: $0.attributes["account"] ?? "", label: $0.label, modified: $0.modified,
                            locked: $0.isLocked)
                        return Located(row: row, location: .keyring)
                    }
                }, inFiles: {
                    try FileAuthStore.accounts(of: service).map { account in
                        let path = FileAuthStore(service: service, account: account).path
                        let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
                        let row = Row(
                            account: account, label: "OAuth tokens for \(account) on \(service)", modified: modified,
                            locked: false)
                        return Located(row: row, location: .file(path: path))
                    }
                }, name: \.row.account)
                let rows = inKeyring + inFiles
                if options.json {
                    try Terminal.printJSON(rows)
                    return
                }
                for located in rows {
                    let row = located.row
                    let modified = row.modified?.formatted(date: .abbreviated, time: .shortened) ?? "?"
                    print("\(Terminal.accountName(row.account))\t\(modified)\(row.locked ? "\tlocked" : "")\(located.location.path == nil ? "" : "\tfile")")
                }
            }
        }
    }
}
