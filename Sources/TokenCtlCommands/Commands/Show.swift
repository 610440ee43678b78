import ArgumentParser
import Foundation
import Keyring
import TokenAuth
import TokenAuthKeyring

extension TokenCtl {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show the state of an account's sign-in: who, expiry, refresh token, endpoints, last refresh.",
            discussion: """
                After an OpenID Connect sign-in, the first line says who signed in: "signed in as NAME (ISSUER)"; \
                "identity check pending" when the id_token of the last refresh could not be checked yet. A session \
                that ended although its item was kept (a refresh answered for another account) starts with \
                "sign-in required:" and the reason, as does one whose refresh token the server refused (invalid_grant, \
                not sent again). "refresh:" says that a refresh began and its answer was not stored (the \
                process stopped, or the keyring could not take it): the refresh token may have been spent. \
                Times are in local time, with how long until (or since) they are. Never prints a token or secret. \
                With --json, expires_at and refreshed_at are UTC (ISO 8601) and expires_in_seconds counts from now. \
                "DPoP key" gives the thumbprint (the tokens' cnf.jkt) of the key the tokens are bound to and whether \
                it is in the TPM, never the key (JSON: dpop). \
                "stored in" says where the item lives: the keyring, or the file of --insecure-storage (looked in when \
                the keyring has no such item or no Secret Service is reachable; JSON: storage, path). \
                Exit code 3 when nothing is stored.
                """)

        @OptionGroup var item: ItemOptions
        @OptionGroup var keyringOptions: KeyringOptions

        @Flag(help: "Print JSON for scripts.")
        var json = false

        func run() async throws {
            try await Self.show(item, keyring: keyringOptions.keyring, json: json)
        }

        /// Prints what is stored for `item`: `show`, and `status` with an account.
        static func show(_ item: ItemOptions, keyring: Keyring, json: Bool) async throws {
            try await reportingFailures {
                guard let (credentials, location) = try await item.locateCredentials(keyring: keyring) else {
                    throw Failure.noCredentials(item)
                }
                let summary = CredentialsSummary(
                    service: item.service, account: item.account, credentials: credentials, now: systemWallClock())
                if json {
                    try Terminal.printJSON(Located(row: summary, location: location))
                } else {
                    print(Self.text(summary, location: location))
                }
            }
        }

        static func text(_ summary: CredentialsSummary, location: ItemLocation = .keyring) -> String {
            var rows: [(String, String)] = [
                ("service", summary.service),
                ("account", summary.account),
                ("token type", summary.tokenType),
            ]
            if let dpop = summary.dpop {
                rows.append(("DPoP key", dpop.text))
            }
            if let expiresAt = summary.expiresAt {
                let local = expiresAt.formatted(date: .abbreviated, time: .standard)
                rows.append(("expires", "\(local) (\(summary.relativeExpiry))"))
            } else {
                rows.append(("expires", summary.relativeExpiry))
            }
            rows.append(("scope", summary.scope ?? "(none recorded)"))
            if let expiry = summary.refreshTokenExpiresAt {
                let local = expiry.formatted(date: .abbreviated, time: .standard)
                rows.append(("refresh token", "yes, until \(local): sign in again before then"))
            } else {
                rows.append(("refresh token", summary.hasRefreshToken ? "yes" : "no"))
            }
            if let refreshedAt = summary.refreshedAt {
                let local = refreshedAt.formatted(date: .abbreviated, time: .standard)
                rows.append(("last refresh", "\(local) (\(summary.relativeRefresh))"))
            } else {
                rows.append(("last refresh", "none recorded since sign-in"))
            }
            rows.append(("token endpoint", summary.tokenEndpoint?.absoluteString ?? "(none recorded)"))
            if let revocation = summary.revocationEndpoint {
                rows.append(("revocation", revocation.absoluteString))
            }
            if let clientID = summary.clientID {
                rows.append(("client id", clientID + (summary.hasClientSecret ? " (with client secret)" : "")))
            }
            if let issuer = summary.issuer {
                rows.append(("issuer", issuer.absoluteString))
            }
            if let interrupted = summary.interruptedRefresh {
                rows.append(("refresh", interrupted))
            }
            if summary.identityCheckPending {
                rows.append(("identity", "check pending: the id_token of the last refresh could not be checked yet; the next use checks it"))
            }
            if let path = location.path {
                rows.append(("stored in", "file \(path) (unencrypted: --insecure-storage)"))
            } else {
                rows.append(("stored in", "keyring"))
            }
            // Every value comes from the item, which any tool may have written: shown without escape sequences.
            let table = rows.map {
                "\($0.0 + ":")".padding(toLength: 16, withPad: " ", startingAt: 0) + ServerText.oneLine($0.1)
            }.joined(separator: "\n")
            let heading = [summary.endReason.map { "sign-in required: \($0)" }, summary.signedInAs].compactMap { $0 }
            return (heading.map(ServerText.oneLine) + [table]).joined(separator: "\n")
        }
    }
}
