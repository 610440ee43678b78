import ArgumentParser
import Foundation
import HTTPTypes
import TokenAuth
import TokenAuthKeyring
import TokenAuthURLSession
import TokenCtlBase

extension TokenCtl {
    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "request",
            abstract: "Send an HTTP request with the stored access token and print the response body.",
            discussion: """
                The token is refreshed first when it expires within a minute; when the server rejects it (401), \
                it is refreshed once and the request sent once more, with the same body. The body goes to \
                standard output as it came; with -i the status line and header fields come first, then an empty \
                line. Only https:// URLs are accepted, or plain http to a loopback host.

                The item is looked for in the keyring, then in the file store of --insecure-storage. Exit codes: 0 \
                for a 2xx response; 6 for any other status (the body is still printed); 3 login required; 4 \
                keyring; 5 transient network or server failure.
                """)

        @OptionGroup var item: ItemOptions

        @Option(name: [.customShort("X"), .customLong("request")], help: "The HTTP method (default GET, or POST with a body).")
        var method: String?

        @Option(name: [.customShort("H"), .customLong("header")], help: "A header field, 'Name: value'. Repeatable.")
        var headers: [String] = []

        @Option(name: [.short, .customLong("data")], help: "The request body.")
        var data: String?

        @Flag(help: "Read the request body from standard input.")
        var dataStdin = false

        @Flag(name: [.short, .customLong("include")], help: "Print the status line and header fields before the body.")
        var include = false

        @Argument(help: "The URL to request.")
        var url: String

        @OptionGroup var keyringOptions: KeyringOptions

        func validate() throws {
            if data != nil, dataStdin { throw ValidationError("Give the body with --data or --data-stdin, not both.") }
            guard let parsed = URL(string: url), parsed.host != nil else {
                throw ValidationError("The URL must be absolute, e.g. https://api.example.com/me.")
            }
            guard parsed.canCarryCredentials else {
                throw ValidationError("Refusing to send a token over plain http to \(parsed.host ?? url): use https://.")
            }
            if let method, HTTPRequest.Method(method.uppercased()) == nil {
                throw ValidationError("\"\(method)\" is not an HTTP method.")
            }
            _ = try headerFields()
        }

        func headerFields() throws -> HTTPFields {
            var fields = HTTPFields()
            for header in headers {
                guard let colon = header.firstIndex(of: ":"),
                    let name = HTTPField.Name(String(header[..<colon]).trimmingCharacters(in: .whitespaces))
                else {
                    throw ValidationError("-H \"\(header)\" is not a header field: write 'Name: value'.")
                }
                let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                fields.append(HTTPField(name: name, value: value))
            }
            if fields[.authorization] != nil {
                throw ValidationError("Do not pass Authorization: tokenctl sets it from the stored token.")
            }
            return fields
        }

        func run() async throws {
            var response: (HTTPResponse, Data)?
            try await reportingFailures {
                let body = try dataStdin
                    ? Data(Terminal.readStandardInput(limit: 10 * 1024 * 1024).utf8) : data.map { Data($0.utf8) }
                let method = HTTPRequest.Method((method ?? (body == nil ? "GET" : "POST")).uppercased())!
                let request = HTTPRequest(method: method, url: URL(string: url)!, headerFields: try headerFields())
                let transport = URLSessionHTTPTransport()
                let manager = try await item.manager(keyring: keyringOptions.keyring, transport: transport)
                let client = AuthorizedClient(manager: manager, transport: transport)
                do {
                    response = try await client.send(request, body: body)
                } catch let error as TokenAuthError where error.code == .unauthorized || error.code == .insufficientScope {
                    // The server answered, but not with something the client could use: show what it said.
                    Terminal.error(error.description)
                    var head = HTTPResponse(status: HTTPResponse.Status(code: error.statusCode ?? 401))
                    if let challenge = error.challenge { head.headerFields[.wwwAuthenticate] = "\(challenge)" }
                    response = (head, error.body ?? Data())
                }
            }
            guard let (head, body) = response else { return }
            if include {
                // URLSession on Linux does not keep the server's reason phrase; the code says it all.
                let reason = head.status.reasonPhrase.isEmpty ? "" : " \(head.status.reasonPhrase)"
                var text = "HTTP/1.1 \(head.status.code)\(reason)\n"
                for field in head.headerFields { text += "\(field.name): \(field.value)\n" }
                print(text)
            }
            // Through `print`'s buffer, which `StandardStreams.finishOutput()` checks: `FileHandle.write(_:)` traps
            // on a write that fails (a full disk).
            body.withUnsafeBytes { StandardStreams.write($0) }
            if head.status.kind != .successful {
                Terminal.status("The server answered with status \(head.status.code).")
                throw ExitCode(.requestRefused)
            }
        }
    }
}
