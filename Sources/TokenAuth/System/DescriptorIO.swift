#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Outside any type, so that `read` and `write` are the system's (Glibc's, Musl's or Darwin's) — never a method of
// the caller's type, and never spelled `Glibc.read`, which would not build on Musl.

/// Writes all of `bytes` to `descriptor`, however many calls it takes, each through ``systemCall(_:)``.
package func writeAll(_ bytes: some Collection<UInt8>, to descriptor: Int32) throws(SystemCallError) {
    let bytes = Array(bytes)
    var written = 0
    while written < bytes.count {
        let offset = written
        written += try systemCall { bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) } }
    }
}

/// The bytes of `descriptor` to its end, each read through ``systemCall(_:)``; `nil` when there are more than
/// `limit`. It reads at most `limit` + 1 bytes, so an endless source is refused as soon as it passes the limit, and
/// of a larger file no more than that is consumed.
package func readToEnd(_ descriptor: Int32, limit: Int) throws(SystemCallError) -> [UInt8]? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
        let left = limit - bytes.count  // never negative: the loop ends once past the limit
        let wanted = left < chunk.count ? left + 1 : chunk.count  // no `left + 1` overflow for a `limit` of `.max`
        let count = try systemCall { chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) } }
        if count == 0 { return bytes }
        bytes += chunk[..<count]
        guard bytes.count <= limit else { return nil }
    }
}
