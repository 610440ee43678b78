/// What ``SessionState``'s events tell ``AuthManager`` to do.
extension SessionState {
    /// A refresh token the server refused for good, and why: it is not sent again.
    struct Refusal: Sendable, Equatable {
        /// The refused refresh token; `nil` for a refused client credentials grant, which nothing can resend.
        let refreshToken: String?
        /// What the server said: thrown again instead of sending the refresh token.
        let error: TokenAuthError
    }

    /// What to do for a caller that needs valid tokens (``tokensNeeded(at:)``).
    enum TokensAction: Sendable, Equatable {
        /// Hand these out: they are fresh.
        case serve(Auth)
        /// Hand these out and refresh beside them: they are inside the leeway, but valid for longer than the minimum a
        /// caller waits for (``AuthManager/Configuration/minimumValidity``).
        case serveRefreshingBeside(Auth)
        /// Refresh; should the refresh fail transiently, `fallback` is handed out while it is still valid.
        case refresh(fallback: Auth?)
        /// Throw this: a sign-in is required.
        case fail(TokenAuthError)
    }

    /// What a refresh does once the store was read under the lock (``refreshAsked(_:startedIn:at:backingOff:)``).
    enum RefreshAction: Sendable, Equatable {
        /// Hand these out without a request: they serve the refresh's reason, or a sign-in replaced the session.
        case serve(Auth)
        /// Throw this without a request.
        case fail(TokenAuthError)
        /// Ask the token endpoint with `base`'s refresh token — or, with none, the client credentials grant.
        case request(base: Auth?)
    }

    /// Tokens a refresh received that will never be stored, to revoke: those of `tokens` that `base` does not hold.
    struct Discarded: Sendable, Equatable {
        /// The refresh's answer.
        let tokens: Auth
        /// The version it was made from: the tokens the answer shares with it stay, and are not revoked.
        let base: Auth?
    }

    /// What a read of the store changed (``read(_:)``).
    enum ReadAction: Sendable, Equatable {
        /// Nothing to act on: the store holds the version the session knows, or it changed while a sign-in waits to
        /// be written, which stays the session.
        case none
        /// The store holds the write this session still owed it, as `found`: a write reported failed had landed after
        /// all (a call that timed out but completed). It counts as written; an answer kept for it can go.
        case landed(found: Auth)
        /// Another process stored other tokens; the session serves them now. `discarded`: a refresh's answer the store
        /// never accepted, which lost to them.
        case adopted(discarded: Discarded?)
        /// Another process ended the session (``Auth/endReason``) or signed out: throw `rejection`. `discarded` as for
        /// ``adopted(discarded:)``.
        case ended(rejection: TokenAuthError, discarded: Discarded?)
    }

    /// What to do with the answer a refresh kept and could not store (``keptAnswerFound(_:)``); then the session has
    /// ``recovered()``.
    enum KeptAnswerAction: Sendable, Equatable {
        /// Nothing was kept.
        case none
        /// The store holds it already (a write reported failed had landed): discard it.
        case discard
        /// It lost to a newer version of the entry (a sign-in or sign-out since): revoke its tokens, and discard it.
        case revoke(Discarded)
        /// It is the session's now, owed to the store in place of the version it was made from: write it.
        case store(Auth)
    }

    /// What a refresh's answer does, its checks passed (``refreshAnswered(_:startedIn:)``).
    enum AnswerAction: Sendable, Equatable {
        /// Write it — it is the pending write now — and hand it out after (``answerReleased(_:startedIn:at:)``).
        case write
        /// A sign-in or sign-out came since: revoke it, never store it.
        case discard
    }

    /// What a permanent refusal of the refresh token does to the store (``refreshRefused(_:because:)``).
    enum RefusalAction: Sendable, Equatable {
        /// Nothing: the store holds another version, which is not this refusal's to change, or the policy keeps it.
        case none
        /// Erase the entry (``AuthManager/RejectionPolicy/eraseStoredCredentials``), then ``erased()``.
        case erase
        /// Write the ended entry — it is the pending write now — that says a sign-in is required.
        case writeEnded
    }
}
