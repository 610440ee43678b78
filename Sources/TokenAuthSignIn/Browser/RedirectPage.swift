import NIOHTTP1
import TokenAuth

/// The small HTML page the loopback listener shows in the browser tab that came back from the provider.
///
/// Every text is HTML-escaped: the error description comes from the redirect's query, which anyone who can make
/// the browser load a URL controls.
struct RedirectPage: Sendable, Equatable {
    let status: HTTPResponseStatus
    let title: String
    let message: String

    /// The sign-in worked.
    static let signedIn = signedIn(as: nil)

    /// The sign-in worked, for the user called `name` when known.
    static func signedIn(as name: String?) -> RedirectPage {
        RedirectPage(
            status: .ok, title: "Signed in",
            message: "You are signed in\(name.map { " as \($0)" } ?? ""). You can close this tab and go back to the app.")
    }

    /// Any path but the redirect path.
    static let notFound = RedirectPage(
        status: .notFound, title: "Not found", message: "This address is not part of the sign-in.")

    /// A request on the redirect path that belongs to no sign-in in progress: a wrong or missing `state`.
    static let unexpected = RedirectPage(
        status: .badRequest, title: "Not this sign-in",
        message: "This answer does not belong to the sign-in the app is waiting for, so it was ignored. "
            + "Go back to the app and finish the sign-in from the page it opened.")

    /// A second answer after the sign-in already got one.
    static let alreadyAnswered = RedirectPage(
        status: .conflict, title: "Already answered",
        message: "The app already received an answer for this sign-in. You can close this tab.")

    /// An answer that arrived after the sign-in's time limit passed: the app no longer waits for it.
    static let timedOut = RedirectPage(
        status: .ok, title: "Sign-in timed out",
        message: "The app stopped waiting for this sign-in before the answer arrived, so it was not used. "
            + "Go back to the app and sign in again.")

    /// The sign-in ended with `problem`; `advice` says what to do.
    static func failed(_ problem: String, advice: String) -> RedirectPage {
        RedirectPage(status: .ok, title: "Sign-in failed", message: "\(problem) \(advice)")
    }

    var html: String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(Self.escape(title))</title>
        <style>body{font-family:sans-serif;max-width:36em;margin:4em auto;padding:0 1em}</style></head>
        <body><h1>\(Self.escape(title))</h1><p id="message">\(Self.escape(message))</p></body></html>

        """
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references. Scalar by scalar: a combining mark
    /// after `<` makes one `Character` of the two, which a `Character` comparison would let through.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
