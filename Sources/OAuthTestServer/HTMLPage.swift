import Foundation
import HTTPTypes
import Hummingbird

/// The server's few HTML pages: the device verification page and its answers.
///
/// Every text a page shows is escaped here, whatever its source: a user code comes from the query string or a
/// form, which anyone who can make a browser load a URL controls.
struct HTMLPage {
    var status: HTTPResponse.Status
    var title: String
    /// The body's HTML, already escaped where it shows outside text: build it with ``escape(_:)``.
    var body: String

    /// The page as a response that no cache keeps, that runs no script and whose forms post only back here.
    var response: Response {
        let html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(Self.escape(title)) · oauth-test-server</title>
            <style>body{font-family:sans-serif;max-width:36em;margin:4em auto;padding:0 1em}</style></head>
            <body><h1>\(Self.escape(title))</h1>
            \(body)
            </body></html>

            """
        let headers: HTTPFields = [
            .cacheControl: "no-store",
            .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
        ]
        return Reply.bytes(Data(html.utf8), contentType: "text/html; charset=utf-8", status: status, headers: headers)
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references, so that it can stand in an
    /// element or a quoted attribute. Scalar by scalar: a combining mark after `<` makes one `Character` of the
    /// two, which a `Character` comparison would let through.
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

extension HTTPField.Name {
    /// `Content-Security-Policy`, which keeps the server's pages from running anything a query smuggled in.
    static var contentSecurityPolicy: Self { Self("Content-Security-Policy")! }
}
