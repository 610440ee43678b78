#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension URL {
    /// Whether a bearer token or client credentials may be sent to this URL: `https` with a host, or plain `http`
    /// to a loopback host (RFC 8252 §8.3). Anything else would expose the credential to the network.
    package var canCarryCredentials: Bool {
        let host = self.host ?? ""
        switch scheme?.lowercased() {
        case "https": return !host.isEmpty
        case "http": return hasLoopbackHost
        default: return false
        }
    }

    /// Whether the host of this URL, as written in it, is a loopback host (`LoopbackHost`). Percent-encoding is not
    /// decoded first: no loopback name or address needs it, and the decoded host of `http://127.0.0.1%00.example.com`
    /// reads as `127.0.0.1` up to its NUL, while `localhost%2e` is a name only a resolver decides about.
    var hasLoopbackHost: Bool {
        guard let host = host(percentEncoded: true), !host.contains("%") else { return false }
        return LoopbackHost.contains(host)
    }
}
