import ArgumentParser
import Foundation
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring
import TokenCtlBase

extension TokenCtl {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show every account of a service and the state of its sign-in, or one account as `show` does.",
            discussion: """
                Without --account, one line per stored account: "valid until …", "needs refresh" (the next use \
                refreshes it), "sign-in required: …" (also after the server refused the refresh token), "keyring \
                locked" or "unreadable: …"; "(a refresh was not stored …)" when a refresh began and its answer was \
                not stored, so that its refresh token may have been spent; "(DPoP: key jkt=…, in the TPM)" or \
                "(DPoP: key jkt=…, stored in the item)" when the tokens are bound to a key, with its RFC 7638 \
                thumbprint (the tokens' cnf.jkt). Nothing is refreshed, \
                written or unlocked. Accounts kept in files (--insecure-storage) that the keyring does not have \
                follow, marked with their file (JSON: storage, path). With --account, the same as `show`. Exit code \
                3 when nothing is stored.
                """)

        @OptionGroup var options: ServiceOptions

        @Option(help: "One account to show in full, as `show` does.")
        var account: String?

        struct Row: Encodable {
            let account: String
            let state: String
            let expiresAt: Date?
            let reason: String?
            let identityCheckPending: Bool
            let refreshStartedAt: Date?
            let dpop: DPoPRow?

            enum CodingKeys: String, CodingKey {
                case account, state, reason, dpop
                case expiresAt = "expires_at", identityCheckPending = "identity_check_pending"
                case refreshStartedAt = "refresh_started_at"
            }
        }

        /// A bound account's key in JSON: `{"jkt":"…","in_tpm":true,"tokens_bound":true}`.
        struct DPoPRow: Encodable {
            let jkt: String
            let inTPM: Bool
            let tokensBound: Bool

            enum CodingKeys: String, CodingKey {
                case jkt
                case inTPM = "in_tpm", tokensBound = "tokens_bound"
            }
        }

        func run() async throws {
            let (service, keyring, json) = (options.service, options.keyringOptions.keyring, options.json)
            if let account {
                return try await Show.show(ItemOptions(service: service, account: account), keyring: keyring, json: json)
            }
            try await reportingFailures {
                let now = systemWallClock()
                let (inKeyring, inFiles) = try await StoreLookup.accounts(
                    inKeyring: { try await KeyringAuthStore.accountStates(of: service, keyring: keyring, at: now) },
                    inFiles: { try FileAuthStore.accountStates(of: service, at: now) }, name: \.account)
                let states = inKeyring.map { ($0, ItemLocation.keyring) } + inFiles.map {
                    ($0, ItemLocation.file(path: FileAuthStore(service: service, account: $0.account).path))
                }
                guard !states.isEmpty else { throw Failure.noAccounts(of: service) }
                let rows = states.map { Located(row: Self.row($0.0), location: $0.1) }
                if json {
                    try Terminal.printJSON(rows)
                    return
                }
                let chosen = DefaultAccounts.account(for: service)
                for (state, location) in states {
                    let described = Self.text(state.state, now: now)
                        + (state.identityCheckPending ? " (identity check pending)" : "")
                        + (state.refreshStartedAt == nil ? "" : " (a refresh was not stored: its refresh token may have been spent)")
                        + (state.proofKey.map(Self.text) ?? "")
                        + (state.account == chosen ? " (default)" : "")
                        + (location.path.map { " (in the file \($0), unencrypted)" } ?? "")
                    print("\(Terminal.accountName(state.account))\t\(ServerText.oneLine(described))")
                }
            }
        }

        private static func row(_ account: StoredAccountState) -> Row {
            let (state, expiresAt, reason): (String, Date?, String?) = switch account.state {
            case .valid(let until): ("valid", until, nil)
            case .needsRefresh: ("needs_refresh", nil, nil)
            case .signInRequired(let reason): ("sign_in_required", nil, reason)
            case .locked: ("locked", nil, nil)
            case .unreadable(let reason): ("unreadable", nil, reason)
            }
            return Row(
                account: account.account, state: state, expiresAt: expiresAt, reason: reason,
                identityCheckPending: account.identityCheckPending, refreshStartedAt: account.refreshStartedAt,
                dpop: account.proofKey.map { DPoPRow(jkt: $0.thumbprint, inTPM: $0.kind == .tpm, tokensBound: $0.tokensBound) })
        }

        /// What the account's line says of its DPoP key.
        private static func text(_ key: StoredAccountState.BoundKey) -> String {
            let place = key.kind == .tpm ? "in the TPM" : "stored in the item"
            guard key.tokensBound else {
                return " (DPoP key jkt=\(key.thumbprint), \(place); the server answered with Bearer tokens, not bound to it)"
            }
            return " (DPoP: key jkt=\(key.thumbprint), \(place))"
        }

        private static func text(_ state: StoredAccountState.State, now: Date) -> String {
            switch state {
            case .valid(let until?):
                "valid until \(until.formatted(date: .abbreviated, time: .shortened)) (in \(CredentialsSummary.span(CredentialsSummary.wholeSeconds(until.timeIntervalSince(now)))))"
            case .valid(nil): "valid, with no known expiry"
            case .needsRefresh: "needs refresh (the next use refreshes it)"
            case .signInRequired(let reason): "sign-in required: \(reason)"
            case .locked: "keyring locked (unlock it to see more)"
            case .unreadable(let reason): "unreadable: \(reason)"
            }
        }
    }
}
