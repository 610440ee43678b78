import Foundation
import TokenAuth

/// Opens a URL in the user's web browser, the way desktop Linux programs do: the `BROWSER` environment variable when
/// it is set; else, in a Flatpak sandbox, the desktop portal's OpenURI, when the app gives a way to ask it; else
/// `xdg-open`.
///
/// ```swift
/// let credentials = try await browserSignIn.signIn(scope: "openid") { url in
///     print("Opening \(url) in your browser…")
///     try await SystemBrowser().open(url)
/// }
/// ```
///
/// In a sandbox, pass the portal: Keyring's `DesktopPortal.openURI(_:timeout:)` asks it over D-Bus, so the URL is in
/// no process's argument list on its way to the host's browser (a sandboxed `xdg-open` carries it in its own):
///
/// ```swift
/// let browser = SystemBrowser(portal: { url in try await DesktopPortal.openURI(url) })
/// ```
///
/// - `BROWSER` is a colon-separated list of commands, tried in order until one starts (the convention `xdg-open`
///   and Python's `webbrowser` follow). In each, `%s` is replaced by the URL and `%%` by `%`; a command without
///   `%s` gets the URL as its last argument. Commands are split at spaces and run directly, never through a shell,
///   so nothing in the URL is interpreted.
/// - Without `BROWSER`, in a Flatpak sandbox (`/.flatpak-info`, or `FLATPAK_ID` set) with a `portal`, the portal is
///   asked first; when it cannot be (no portal on the bus, say), `xdg-open` is tried, and the error names both.
/// - Without `BROWSER`, `xdg-open` is used only in a graphical session (`DISPLAY` or `WAYLAND_DISPLAY` set, or inside
///   Flatpak). It never falls back to a text-mode browser: over SSH or on a console, ``open(_:)`` throws
///   ``SignInError/Code/noGraphicalSession``, and the app shows the URL (or offers the device code) instead. The launched
///   program gets `/dev/null` as its standard input and output, so it can never take over the app's terminal.
///
/// The browser is started and not waited for. Always show the URL too: a browser that starts may still not come to
/// the front.
public struct SystemBrowser: Sendable {
    /// How a URL is handed to the desktop portal's OpenURI: Keyring's `DesktopPortal.openURI(_:timeout:)`, or the
    /// app's own D-Bus call. It returns once the portal took the request, or throws.
    public typealias Portal = @Sendable (URL) async throws -> Void

    private let environment: [String: String]
    private let portal: Portal?
    private let sandboxed: Bool

    /// Creates an opener that reads `BROWSER`, `DISPLAY`, `WAYLAND_DISPLAY`, `FLATPAK_ID` and `PATH` from
    /// `environment`.
    ///
    /// - Parameters:
    ///   - environment: The environment to read.
    ///   - portal: How to ask the desktop portal to open a URL, used in a Flatpak sandbox; `nil` to use `xdg-open`
    ///     there too.
    ///   - sandboxed: Whether this process runs in a Flatpak sandbox; by default, whether `/.flatpak-info` exists or
    ///     `FLATPAK_ID` is set.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        portal: Portal? = nil,
        sandboxed: Bool? = nil
    ) {
        self.environment = environment
        self.portal = portal
        self.sandboxed = sandboxed
            ?? (environment["FLATPAK_ID"] != nil || FileManager.default.fileExists(atPath: "/.flatpak-info"))
    }

    /// The commands that ``open(_:)`` would try for `url`, in order, each as an argument vector.
    ///
    /// - Throws: ``SignInError/Code/noGraphicalSession`` when it would try none.
    public func commands(for url: URL) throws(SignInError) -> [[String]] {
        if let browser = environment["BROWSER"], !browser.trimmingCharacters(in: .whitespaces).isEmpty {
            return browser.split(separator: ":").compactMap { Self.arguments(of: String($0), url: url) }
        }
        let graphical = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        guard graphical || sandboxed else { throw .noGraphicalSession }
        return [["xdg-open", url.absoluteString]]
    }

    /// Whether ``open(_:)`` asks the portal first: in a sandbox, with a portal, without `BROWSER`.
    public var usesPortal: Bool {
        portal != nil && sandboxed && (environment["BROWSER"] ?? "").trimmingCharacters(in: .whitespaces).isEmpty
    }

    /// Starts the browser on `url` and returns without waiting for it: through the portal when ``usesPortal``, else
    /// (or when the portal cannot be asked) with ``commands(for:)``.
    ///
    /// - Throws: ``SignInError``: ``SignInError/Code/noGraphicalSession`` or ``SignInError/Code/browserNotStarted``;
    ///   cancellation is told as `browserNotStarted` too: a task already cancelled starts no browser.
    public func open(_ url: URL) async throws(SignInError) {
        guard !Task.isCancelled else { throw Self.cancelled }
        var problems: [String] = []
        if usesPortal, let portal {
            do {
                try await portal(url)
                return
            } catch is CancellationError {
                // Cancelled: no browser at all, rather than xdg-open after the user gave up.
                throw .browserNotStarted("the sign-in was cancelled while the desktop portal was asked")
            } catch {
                problems.append("the desktop portal: \(SignInError.clean("\(error)", limit: 300))")
            }
        }
        do {
            try run(commands(for: url), problems: &problems)
        } catch let error where error.code == .noGraphicalSession && !problems.isEmpty {
            throw .browserNotStarted(problems.joined(separator: "; "))
        }
    }

    /// Starts the first of `commands` that starts; throws ``SignInError/Code/browserNotStarted`` with `problems` and
    /// each command's when none does.
    private func run(_ commands: [[String]], problems: inout [String]) throws(SignInError) {
        for command in commands {
            // Checked right before each start: the portal may have taken long enough for the user to give up.
            guard !Task.isCancelled else { throw Self.cancelled }
            guard let executable = Self.executable(command[0], path: environment["PATH"]) else {
                problems.append("\(command[0]) not found")
                continue
            }
            let process = Process()
            process.executableURL = executable
            process.arguments = Array(command.dropFirst())
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do {
                try process.run()
                return
            } catch {
                problems.append("\(command[0]): \(error.localizedDescription)")
            }
        }
        throw .browserNotStarted(problems.isEmpty ? "BROWSER names no command" : problems.joined(separator: "; "))
    }

    /// The sign-in was cancelled before a browser was started, so none is.
    private static var cancelled: SignInError {
        .browserNotStarted("the sign-in was cancelled before the browser was started")
    }

    /// One `BROWSER` entry as an argument vector for `url`, or `nil` when it is empty.
    static func arguments(of entry: String, url: URL) -> [String]? {
        var words = entry.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard !words.isEmpty else { return nil }
        var substituted = false
        words = words.map { word in
            var result = ""
            var characters = word.makeIterator()
            while let character = characters.next() {
                guard character == "%" else {
                    result.append(character)
                    continue
                }
                switch characters.next() {
                case "s":
                    result += url.absoluteString
                    substituted = true
                case "%": result.append("%")
                case let other?: result.append("%"); result.append(other)
                case nil: result.append("%")
                }
            }
            return result
        }
        return substituted ? words : words + [url.absoluteString]
    }

    /// `name` itself when it contains a slash, else the first executable `name` in `path`.
    static func executable(_ name: String, path: String?) -> URL? {
        let manager = FileManager.default
        if name.contains("/") {
            return manager.isExecutableFile(atPath: name) ? URL(fileURLWithPath: name) : nil
        }
        for directory in (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if manager.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }
}
