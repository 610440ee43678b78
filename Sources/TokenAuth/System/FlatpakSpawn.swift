#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a process in a Flatpak sandbox starts one that outlives the sandbox's instance: through `flatpak-spawn`, which
/// asks the Flatpak portal (`org.freedesktop.portal.Flatpak.Spawn`) for a new instance of the same app — the same
/// `/app`, permissions and keyring — and passes its standard input, output and error on.
///
/// A process the app starts itself is in the app's instance, whose PID namespace ends with the app's main process:
/// every process in it is killed then, whatever its session. One the portal started is in an instance of its own,
/// which ends when its own process does. Without `--watch-bus`, as here, nothing ties it to the caller.
package struct FlatpakSpawn: Sendable, Equatable {
    /// Where `flatpak-spawn` is looked for, in this order: the freedesktop runtimes and those built on them (GNOME,
    /// KDE) ship it in `/usr/bin`; an app on another runtime can bundle it in `/app/bin`; Debian's
    /// `flatpak-xdg-utils` package installs it in `/usr/libexec/flatpak-xdg-utils`.
    package static let candidates = [
        "/usr/bin/flatpak-spawn", "/app/bin/flatpak-spawn", "/usr/libexec/flatpak-xdg-utils/flatpak-spawn",
    ]

    /// Variables the package reads that a new instance would not have, passed on when set. They go into
    /// `flatpak-spawn`'s arguments, which any process may read: none of them may hold a secret (a proxy's URL can,
    /// and is not passed on; the new instance gets the environment `flatpak run` gives the app).
    package static let passedOn = ["TOKENCTL_LOG_LEVEL", "SECRET_BACKEND", "SECRET_FILE_TEST_PATH"]

    /// The `flatpak-spawn` program.
    package let program: String

    /// The spawner of this process's sandbox: `nil` outside a Flatpak sandbox (no `/.flatpak-info`), or when none of
    /// the ``candidates`` can be run.
    package static func inThisSandbox(
        exists: (String) -> Bool = { access($0, F_OK) == 0 }, isExecutable: (String) -> Bool = { access($0, X_OK) == 0 }
    ) -> FlatpakSpawn? {
        guard exists("/.flatpak-info") else { return nil }
        return candidates.first(where: isExecutable).map(FlatpakSpawn.init(program:))
    }

    /// The arguments (the program's name first) that run `executable` with `arguments` (its own name not among them)
    /// in a new instance, with `variable=1` and those of the ``passedOn`` variables that `value` finds set.
    package func arguments(
        running executable: String, _ arguments: [String], setting variable: String,
        value: (String) -> String? = { getenv($0).map { String(cString: $0) } }
    ) -> [String] {
        let passed = Self.passedOn.compactMap { name in value(name).map { "--env=\(name)=\($0)" } }
        // The executable is an absolute path: flatpak-spawn's options end before it.
        return ["flatpak-spawn", "--env=\(variable)=1"] + passed + [executable] + arguments
    }

    /// This process's executable, as a path the app's other instances see too (`/app/bin/…`); `nil` when it cannot
    /// be read, or when the file was replaced since this process started (an update installed meanwhile).
    package static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard path.hasPrefix("/"), !path.hasSuffix(" (deleted)") else { return nil }
        return path
    }
}
