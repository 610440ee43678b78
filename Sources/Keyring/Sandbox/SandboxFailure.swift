import CLibSecret

/// The failures libsecret reports through its file backend in a sandbox, as libsecret 0.21.7 and 0.20.5 report them
/// (measured in the simulated sandbox: docs/notes/flatpak-investigation.md and docs/Flatpak.md), each told by a
/// ``KeyringError`` with advice that fits there.
///
/// A GError is matched against the rows of ``table`` in order, and the first row that matches names the failure: the
/// rows go from the most particular to the most general (a secret-error that mentions the portal before any other
/// secret-error; any GIO error last).
enum SandboxFailure: Equatable, CaseIterable {
    /// No answer in time: a D-Bus timeout or no reply, or GIO's "timed out".
    case noAnswer
    /// Another process wrote the file since libsecret read it (GIO's wrong etag); the call is made once more.
    case writtenMeanwhile
    /// No Secret portal: libsecret then tried `org.freedesktop.secrets`, which the sandbox hides.
    case noPortal
    /// The portal's "user interaction failed": the host's login keyring is locked, or gnome-keyring is not there.
    case hostKeyringLocked
    /// The portal cancelled, or its user interaction did not happen.
    case portalRefusedKey
    /// The portal gave a key libsecret cannot use.
    case portalGaveUnusableKey
    /// The file's format, or its key derivation, is wrong.
    case damagedFile
    /// The file does not open with the portal's key.
    case wrongKey
    /// The disk that holds the file is full (a write).
    case diskFull
    /// Any other GIO error: the file or its directory cannot be used.
    case unusableFile
    /// Anything else.
    case other

    /// What a row matches: an error domain (`nil`: any), its codes (empty: any), GLib's kind of error (empty: any),
    /// and words its message contains (empty: any).
    struct Pattern {
        var domain: String?
        var codes: [Int32] = []
        var kinds: [GErrorInfo.Kind] = []
        var saying: [String] = []

        func matches(_ info: GErrorInfo) -> Bool {
            (domain == nil || info.domain == domain) && (codes.isEmpty || codes.contains(info.code))
                && (kinds.isEmpty || kinds.contains(info.kind)) && (saying.isEmpty || saying.contains { info.message.contains($0) })
        }

        static func io(_ codes: GIOErrorEnum..., saying: [String] = []) -> Pattern {
            Pattern(domain: GErrorInfo.ioDomain, codes: codes.map { Int32($0.rawValue) }, saying: saying)
        }

        static func secret(_ codes: SecretError..., saying: [String] = []) -> Pattern {
            Pattern(domain: secretDomain, codes: codes.map { Int32($0.rawValue) }, saying: saying)
        }

        static func kind(_ kinds: GErrorInfo.Kind...) -> Pattern { Pattern(kinds: kinds) }
    }

    /// libsecret's error domain, `secret-error`.
    static let secretDomain = String(cString: g_quark_to_string(secret_error_get_quark()))

    /// The rows, in the order they are tried.
    static let table: [(Pattern, SandboxFailure)] = [
        (.kind(.dbusTimeout, .noReply), .noAnswer),
        (.io(G_IO_ERROR_TIMED_OUT), .noAnswer),
        (.io(G_IO_ERROR_WRONG_ETAG), .writtenMeanwhile),
        (.kind(.noProvider), .noPortal),
        (.io(G_IO_ERROR_FAILED, saying: ["user interaction failed"]), .hostKeyringLocked),
        (.io(G_IO_ERROR_CANCELLED), .portalRefusedKey),
        (.io(saying: ["user interaction"]), .portalRefusedKey),
        (.secret(saying: ["portal"]), .portalGaveUnusableKey),
        (.secret(SECRET_ERROR_INVALID_FILE_FORMAT), .damagedFile),
        (.secret(saying: ["derive"]), .damagedFile),
        (.secret(), .wrongKey),
        (.io(G_IO_ERROR_NO_SPACE), .diskFull),
        (.io(), .unusableFile),
    ]

    /// The failure `info` is: the first row of ``table`` that matches it, else ``other``.
    init(_ info: GErrorInfo) {
        self = Self.table.first { $0.0.matches(info) }?.1 ?? .other
    }

    /// The error to throw for `info`, a failure while `doing` (“looking up”) on the keyring file at `file`.
    func error(_ info: GErrorInfo, doing: String, file: String) -> KeyringError {
        switch self {
        case .noAnswer: .timedOut(after: .seconds(25), info.detail)
        case .writtenMeanwhile: .appKeyringWrittenMeanwhile(info.detail)
        case .noPortal: .noSecretPortal(doing: doing, info.detail)
        case .hostKeyringLocked: .hostKeyringLocked(info.detail)
        case .portalRefusedKey: .portalRefused("to give the key for the app's keyring (\(info.message))", info.detail)
        case .portalGaveUnusableKey: .portalRefused("to give a usable key for the app's keyring (\(info.message))", info.detail)
        case .damagedFile: .appKeyringFileDamaged(file, info.message, info.detail)
        case .wrongKey: .appKeyringFileWrongKey(file, info.detail)
        case .diskFull: .appKeyringDiskFull(file, doing: doing, info.detail)
        case .unusableFile: .appKeyringFileUnusable(file, doing: doing, info.detail)
        case .other: .other("The app's keyring failed while \(doing).", info.detail)
        }
    }

    /// Whether a call that failed with `error` is made once more: it timed out (libsecret < 0.21.4 can miss the
    /// portal's answer, and the next call usually gets it), or another process wrote the file during it (the next
    /// call reads it afresh).
    static func isRetried(_ error: KeyringError) -> Bool {
        error.code == .timedOut || isWrittenMeanwhile(error)
    }

    /// Whether `error` is ``writtenMeanwhile``.
    static func isWrittenMeanwhile(_ error: KeyringError) -> Bool {
        guard let cause = error.underlying as? GLibError else { return false }
        return cause.domain == GErrorInfo.ioDomain && cause.code == Int32(G_IO_ERROR_WRONG_ETAG.rawValue)
    }
}
