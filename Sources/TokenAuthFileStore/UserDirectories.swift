#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The user's base directories as the XDG Base Directory specification defines them, read from an environment that
/// is passed in — the process's (``process``) or a test's — never from state kept anywhere else.
///
/// `$HOME` decides where it is set to an absolute path, as the specification and every shell do; only without one is
/// the password database's home directory used (a daemon started with an empty environment).
package struct UserDirectories: Sendable {
    /// The value of an environment variable, or `nil` when it is unset.
    package let variable: @Sendable (String) -> String?

    /// Directories from `variable`.
    package init(variable: @escaping @Sendable (String) -> String?) {
        self.variable = variable
    }

    /// The process's environment, read with `getenv` when asked (not `ProcessInfo`'s environment, which copies
    /// every variable, on `tokenctl token`'s path).
    package static let process = UserDirectories { name in getenv(name).map { String(cString: $0) } }

    /// `$HOME` when it is an absolute path, else the password database's home directory of this user.
    package var home: String {
        absolute("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path
    }

    /// `$XDG_STATE_HOME`, or `$HOME/.local/state` when it is unset or not an absolute path.
    package var stateHome: String { absolute("XDG_STATE_HOME") ?? home + "/.local/state" }

    /// `$XDG_CONFIG_HOME`, or `$HOME/.config` when it is unset or not an absolute path.
    package var configHome: String { absolute("XDG_CONFIG_HOME") ?? home + "/.config" }

    /// The variable's value when it is an absolute path; the specification says to ignore any other.
    private func absolute(_ name: String) -> String? {
        variable(name).flatMap { $0.hasPrefix("/") ? $0 : nil }
    }
}
