#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The protocol and host a session's token may be handed to through git: `https://gitlab.example.com`, with its port
/// when it has one. A request for any other protocol or host gets nothing.
public struct GitHost: Sendable, Hashable, CustomStringConvertible {
    /// `https` or `http`, lowercased.
    public let `protocol`: String
    /// The host, lowercased, with `:port` when it has one.
    public let host: String

    /// The protocol and host of `url` (`https://gitlab.example.com/group/repo.git` gives `https://gitlab.example.com`),
    /// or nil when it has no scheme or host.
    public init?(url: URL) {
        guard let scheme = url.scheme?.lowercased(), let name = url.host?.lowercased(), !name.isEmpty else { return nil }
        self.protocol = scheme
        host = url.port.map { "\(name):\($0)" } ?? name
    }

    /// Whether git asks for this protocol and host. Hosts compare without case; a missing attribute never matches.
    public func matches(_ request: GitCredential) -> Bool {
        request.protocol?.lowercased() == self.protocol && request.host?.lowercased() == host
    }

    public var description: String { "\(self.protocol)://\(host)" }
}
