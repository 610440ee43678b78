#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Recognises loopback hosts, the only ones a token request may reach over plain HTTP (RFC 8252 §8.3).
enum LoopbackHost {
    /// Whether `host` is `localhost`, an IPv4 address in 127.0.0.0/8, `::1`, or `::ffff:127.x.y.z`.
    ///
    /// `host` may carry the brackets of an IPv6 URL authority. Other names are not resolved: a name that resolves
    /// to loopback today may not tomorrow. A host with a NUL is none: `inet_pton` would read up to it only.
    static func contains(_ host: String) -> Bool {
        guard !host.contains("\0") else { return false }
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
        }
        if name == "localhost" || name == "localhost." {
            return true
        }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, name, &ipv4) == 1 {
            return firstOctet(of: ipv4) == 127
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, name, &ipv6) == 1 {
            let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
            if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 {
                return true
            }
            let isV4Mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            return isV4Mapped && bytes[12] == 127
        }
        return false
    }

    private static func firstOctet(of address: in_addr) -> UInt8 {
        withUnsafeBytes(of: address) { $0[0] }
    }
}
