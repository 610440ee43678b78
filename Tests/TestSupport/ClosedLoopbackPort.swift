#if canImport(Glibc)
import Glibc
#endif

/// A loopback port nothing listens on: one the kernel handed out and that was closed again at once. For tests of a
/// client that must fail, and say so, where a server (a TPM's TCTI, an endpoint) does not answer.
package func closedLoopbackPort() throws -> UInt16 {
    struct NoPort: Error {}
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw NoPort() }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw NoPort() }
    return UInt16(bigEndian: address.sin_port)
}
