/// Where a refresh's answer outlives the process that received it, until the store has it.
///
/// Sending a refresh token is the one step of a session that cannot be undone: with rotation (RFC 9700 §4.14.2) the
/// server retires it as it answers, and until the store holds the answer, the process that received it holds the
/// only copy of the session. ``AuthManager`` keeps each answer here the moment it arrives, before it writes the
/// store, and discards it once the store has it — as SQLite's rollback journal and PostgreSQL's write-ahead log make
/// a change durable before the step that cannot be undone. When the store cannot take the answer (a keyring that
/// died, hangs or came back locked; a full or read-only disk) or the process stops in between, the next manager of
/// the same entry — in this process or another, under the entry's ``RefreshLock`` — finds it here and stores it
/// before it does anything else: nothing is spent twice, and no one is signed out.
///
/// ```swift
/// let manager = AuthManager(
///     store: store, refresher: refresher, lock: lock,
///     journal: myJournal)   // e.g. TokenAuthKeyring's FileRefreshJournal
/// ```
///
/// ## Implementation requirements
/// - Keep the answer where it outlives the process but never reaches a disk (a tmpfs such as the user's runtime
///   directory, or the kernel's key retention service), readable by this user only: it holds tokens.
/// - One answer per entry: ``keep(_:replacing:)`` replaces what was kept, atomically (a reader sees the old answer or
///   the new one).
/// - Be quick and never wait for another process: the caller holds the entry's lock.
/// - Throw when the answer could not be kept, or what is kept cannot be read; never return a partial answer.
public protocol RefreshJournal: Sendable {
    /// Where the answer is kept, for messages (a path); never a secret.
    var location: String { get }

    /// Keeps `answer`, made from the stored version `base` (`nil`: nothing was stored), replacing whatever was kept.
    func keep(_ answer: Auth, replacing base: Auth?) throws

    /// The answer kept, or `nil` when none is.
    func keptAnswer() throws -> KeptAnswer?

    /// Discards the kept answer; succeeds when there is none.
    func discard() throws
}

/// A refresh's answer that a ``RefreshJournal`` keeps until the store has it.
public struct KeptAnswer: Sendable, Equatable {
    /// The tokens the refresh received, as they are to be stored.
    public var answer: Auth
    /// The stored version they replace; `nil` when nothing was stored.
    public var base: Auth?

    /// Creates a kept answer.
    public init(answer: Auth, base: Auth?) {
        self.answer = answer
        self.base = base
    }
}
