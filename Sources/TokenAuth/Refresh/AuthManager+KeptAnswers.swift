#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A refresh's answer between its arrival and the store: kept in the ``RefreshJournal``, written with a few tries,
/// and found again by the next manager when this one could not write it.
extension AuthManager {
    /// How long the store is given to come back between the tries of a refresh's write: a keyring that was killed
    /// comes back through D-Bus activation, one that hung may answer.
    static let storeRetryDelays: [Duration] = [.seconds(1), .seconds(2)]

    /// Keeps `auth`, made from the stored version, in the journal; without a journal, or when it fails, the answer
    /// lives in this process only (logged, not thrown: the store's write comes next and may still succeed).
    func keepAnswer(_ auth: Auth) {
        guard let journal else { return }
        do {
            try journal.keep(auth, replacing: session.stored)
            keptAnswer = auth
        } catch {
            logger.error("could not keep the refresh's answer outside this process", metadata: [
                "journal": "\(journal.location)", "error": "\(LogRedaction.error(error))",
            ])
        }
    }

    /// Discards what this manager kept, once it is stored or will never be.
    func discardKeptAnswer() {
        guard keptAnswer != nil, let journal else { return }
        do {
            try journal.discard()
            keptAnswer = nil
        } catch {
            logger.debug("could not discard a kept answer", metadata: ["error": "\(LogRedaction.error(error))"])
        }
    }

    /// Writes the pending refresh's answer, trying again after each of ``storeRetryDelays`` while the store fails.
    /// - Returns: whether it was written (see ``saveUnsaved()``).
    func storeAnswer() async throws -> Bool {
        var delays = Self.storeRetryDelays[...]
        while true {
            do {
                return try await saveUnsaved(reportsFailure: delays.isEmpty)
            } catch let error as TokenAuthError where error.isLoginRequired {
                throw error
            } catch {
                guard let delay = delays.popFirst() else { throw error }
                try? await clock.sleep(for: delay)
            }
        }
    }

    /// The error of a refresh's answer that the store did not take (``Configuration/servesUnstoredTokens``), saying
    /// where the answer is kept.
    func notStored(because error: any Error) -> TokenAuthError {
        TokenAuthError.notStored(because: error, keptAt: keptAnswer == nil ? nil : journal?.location)
    }

    /// Under the lock, right after the store was read: stores the answer a refresh kept and could not store — in this
    /// process or one that stopped — before anything else is decided, so that its refresh token is never sent again.
    ///
    /// The answer is written in place of the version it was made from, as its refresh would have written it. When the
    /// store holds it already (a write reported failed had landed), it is simply discarded; when the store holds
    /// another version (a sign-in or sign-out since), that version wins and the answer's tokens are revoked.
    /// - Throws: the store's error, keeping the answer for the next try.
    func recoverKeptAnswer() async throws {
        guard let journal else { return session.recovered() }
        let kept: KeptAnswer?
        do {
            kept = try journal.keptAnswer()
        } catch {
            // Never deleted because of an error; the next refresh's answer replaces it.
            logger.error("a kept refresh answer cannot be read", metadata: [
                "journal": "\(journal.location)", "error": "\(LogRedaction.error(error))",
            ])
            return session.recovered()
        }
        switch session.keptAnswerFound(kept) {
        case .none:
            break
        case .discard:
            try? journal.discard()
            keptAnswer = nil
        case .revoke(let lost):
            logger.debug("a kept refresh answer lost to a newer version of the entry; revoking it")
            await revokeReceived(lost.tokens, besides: lost.base)
            try? journal.discard()
            keptAnswer = nil
        case .store(let answer):
            logger.debug("storing the answer of a refresh that could not store it")
            keptAnswer = answer
            // When the store fails, the answer stays kept and owed, and the next use looks again.
            let written = try await storeAnswer()
            session.recovered()
            if written {
                throttle.reset()
                emit(.keptAnswerStored)
            }
            return
        }
        session.recovered()
    }

    /// Settles a permanent refusal of the refresh token `used`, read again under the lock just now: with
    /// ``RejectionPolicy/keepStoredCredentials`` an `invalid_grant` ends the stored session — the entry is kept, says
    /// that a sign-in is required, and holds no refresh token that could be sent again; with
    /// ``RejectionPolicy/eraseStoredCredentials`` the entry is erased. Either only while the store still holds the
    /// refused refresh token: a newer version is not this refusal's to change.
    func settleRejection(of used: String?, because error: TokenAuthError) async throws {
        switch session.refreshRefused(used, because: error) {
        case .none:
            return
        case .erase:
            try await store.erase()
            session.erased()
        case .writeEnded:
            do {
                _ = try await saveUnsaved()
            } catch {
                // Remembered in memory; written again on the next call.
            }
        }
    }
}

extension Auth {
    /// These tokens with `idToken` waiting to be checked (``unverifiedIDToken``).
    func withPendingCheck(of idToken: String?) -> Auth {
        var auth = self
        auth.unverifiedIDToken = idToken
        return auth
    }
}
