import Keyring
import TokenAuth
import TokenAuthFileStore
import TokenAuthKeyring
import TokenCtlBase

extension StorageOptions {
    /// Stores what the user asked to store (a sign-in or an import) where they asked: in the keyring, or with
    /// `--insecure-storage` in the item's file, after a warning on standard error. Under the item's lock, replacing
    /// whatever is stored — an entry this version cannot read included, which the file store keeps aside — and says
    /// so on standard error.
    /// - Returns: where the credentials now live.
    /// - Throws: for the keyring without a reachable Secret Service, a failure naming `--insecure-storage` (exit 4).
    package func saveExplicitly(
        _ credentials: StoredCredentials, for item: ItemOptions, keyring: Keyring, command: String
    ) async throws -> ItemLocation {
        let location: ItemLocation
        let unreadable: TokenAuthError?
        if insecureStorage {
            let store = item.fileStore
            Self.warnInsecure(store)
            await Self.warnIfAlsoInKeyring(item, keyring: keyring)
            unreadable = try await store.signIn(credentials)
            location = .file(path: store.path)
        } else {
            do {
                unreadable = try await KeyringAuthStore(service: item.service, account: item.account, keyring: keyring)
                    .signIn(credentials)
            } catch let error as KeyringError where error.meansNoKeyring {
                throw Failure.noSecretService(error, command: command, item: item)
            }
            location = .keyring
        }
        if let unreadable {
            Terminal.error(
                "Replaced the item for account \"\(item.account)\" on service \"\(item.service)\" (in "
                    + "\(location.named)), which could not be read (\(unreadable.reason)).")
        }
        return location
    }

    /// Before anything is signed in or sent: when the keyring would be used and no Secret Service is reachable, the
    /// failure naming `--insecure-storage`, so that nobody signs in only to lose the tokens. Any other answer (a
    /// locked keyring included, which the write then unlocks) lets the command go on.
    package func checkStorage(for item: ItemOptions, keyring: Keyring, command: String) async throws {
        guard !insecureStorage else { return }
        do {
            _ = try await Self.lookUpWithoutPrompt(item, keyring: keyring)
        } catch let error as KeyringError where error.meansNoKeyring {
            throw Failure.noSecretService(error, command: command, item: item)
        } catch {}
    }

    /// The warning of every write to the file store.
    private static func warnInsecure(_ store: FileAuthStore) {
        Terminal.error(
            "warning: --insecure-storage: the tokens are stored unencrypted in \(store.path), which any program "
                + "running as you, and anyone with a copy of the disk or a backup, can read. Prefer a keyring: "
                + "`tokenctl doctor` says how to get one.")
    }

    /// Says so when the keyring holds an item of the same account too: readers take that one first. Best effort:
    /// no prompt, and nothing said when the keyring cannot be read.
    private static func warnIfAlsoInKeyring(_ item: ItemOptions, keyring: Keyring) async {
        guard (try? await lookUpWithoutPrompt(item, keyring: keyring)) != nil else { return }
        Terminal.error(
            "warning: the keyring also holds tokens for account \"\(item.account)\" on service \"\(item.service)\", "
                + "which tokenctl reads first; `tokenctl delete --service \(item.service) --account \(item.account)` "
                + "removes them.")
    }

    /// The item's keyring secret, looked up as `keyring` would but never with a prompt.
    private static func lookUpWithoutPrompt(_ item: ItemOptions, keyring: Keyring) async throws -> KeyringSecret? {
        let probe = Keyring(configuration: .init(timeout: keyring.configuration.timeout, prompting: .never))
        return try await probe.lookup(["service": item.service, "account": item.account])
    }
}
