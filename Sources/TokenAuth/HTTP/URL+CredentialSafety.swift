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
        case "http": return LoopbackHost.contains(hostOf: self)
        default: return false
        }
    }
}
