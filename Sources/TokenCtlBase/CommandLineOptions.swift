import Keyring

/// The options every command that reads an item shares — how each is spelled, its default and its bound — stated
/// once for both executables: `tokenctl-full`'s argument parser declares its options with these (`ItemOptions`,
/// `KeyringOptions`), and `tokenctl` reads the plain `token` call with the same (``PlainTokenCall``).
/// `PlainTokenCallParityTests` feeds the lists of arguments the reader accepts or declines through the parser and
/// checks that both read them alike.
package enum CommandLineOptions {
    /// The subcommand whose plain call `tokenctl` reads itself.
    package static let tokenCommand = "token"

    /// The long names, without their `--`.
    package enum Name {
        /// The item's `service` attribute.
        package static let service = "service"
        /// The item's `account` attribute.
        package static let account = "account"
        /// Seconds to wait for the Secret Service.
        package static let timeout = "timeout"
        /// A flag: fail instead of showing an unlock prompt.
        package static let noPrompt = "no-prompt"
    }

    /// Seconds to wait for the Secret Service when `--timeout` is not given.
    package static let defaultTimeout: Double = 5

    /// The longest `--timeout`: a day. `inf` or 1e300 would trap when counted as a `Duration`.
    package static let maximumTimeout: Double = 86_400

    /// Whether `seconds` is a `--timeout` both executables take: more than 0, at most ``maximumTimeout`` (NaN is
    /// neither).
    package static func isValidTimeout(_ seconds: Double) -> Bool {
        seconds > 0 && seconds <= maximumTimeout
    }

    /// The sentence of a refused `--timeout`.
    package static let timeoutRefusal =
        "--\(Name.timeout) must be a positive number of seconds, at most \(Int(maximumTimeout)) (a day)."

    /// The keyring as `--timeout` and `--no-prompt` set it up.
    package static func keyring(timeout: Double, noPrompt: Bool) -> Keyring {
        Keyring(configuration: .init(timeout: .seconds(timeout), prompting: noPrompt ? .never : .allowed))
    }
}
