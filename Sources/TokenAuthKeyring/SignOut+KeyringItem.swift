#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Keyring
import TokenAuth

extension SignOut {
    /// Signs `account` on `service` out of its keyring item.
    /// - Throws: the store's errors (`KeyringError`; `TokenAuthError` for an item that cannot be read — then
    ///   nothing is revoked or deleted — or for the refresh lock).
    public static func perform(
        service: String,
        account: String,
        keyring: Keyring = Keyring(),
        transport: any HTTPTransport,
        wallClock: @escaping WallClock = systemWallClock
    ) async throws -> Outcome {
        try await perform(
            store: KeyringAuthStore(service: service, account: account, keyring: keyring), transport: transport,
            wallClock: wallClock)
    }
}
