import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension FileRefreshLock {
    /// Each release of this lock by any holder, in any process, from now on: every writer of the store takes the
    /// lock, so a release says the store may have changed. Pass it to ``AuthManager`` as its `storeChanges`, so that
    /// another process's refresh, sign-in or sign-out is seen on the next use, whatever the store announces:
    ///
    /// ```swift
    /// let lock = FileRefreshLock(service: service, account: account)
    /// let manager = AuthManager(store: store, refresher: refresher, lock: lock, storeChanges: lock.releases())
    /// ```
    ///
    /// Follows the lock file's times with inotify, on a dispatch queue of its own (never Swift's cooperative pool);
    /// releases not yet taken are folded into one. It includes this process's own releases. The stream ends when its
    /// consumer stops iterating. Best effort: where inotify cannot be had (not Linux, or the directory cannot be
    /// watched) it ends at once, and ``AuthManager`` still reads the store again before each refresh.
    public func releases() -> AsyncStream<Void> {
        let file = URL(filePath: path)
        let name = file.lastPathComponent
        return Self.releases(in: file.deletingLastPathComponent().path, prepare: { try self.createDirectory() }) {
            $0 == name
        }
    }

    /// The releases of every lock in the user's runtime directory — of any item: what follows every writer of this
    /// package, whatever item it writes (an app's session that must see another process sign an account in or out).
    /// Best effort, as ``releases()``.
    package static func releasesOfAnyItem() -> AsyncStream<Void> {
        let directory = RuntimeDirectory.path
        return releases(in: directory, prepare: { try RuntimeDirectory.prepare(directory) }) {
            $0.hasPrefix("refresh-") && $0.hasSuffix(".lock")
        }
    }

    /// The inotify events in `directory` on files whose names pass `matches`, as a stream; see ``releases()``.
    private static func releases(
        in directory: String, prepare: () throws -> Void, matching matches: @escaping @Sendable (String) -> Bool
    ) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        #if canImport(Glibc)
        guard (try? prepare()) != nil else {
            continuation.finish()
            return stream
        }
        let watcher = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard watcher >= 0 else {
            continuation.finish()
            return stream
        }
        // The directory, not the file: the file may not exist yet, and may be made anew.
        guard inotify_add_watch(watcher, directory, UInt32(IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO)) >= 0 else {
            close(watcher)
            continuation.finish()
            return stream
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: watcher, queue: Self.releaseQueue)
        source.setEventHandler {
            if Self.readEvents(watcher).contains(where: matches) { continuation.yield() }
        }
        source.setCancelHandler { close(watcher) }
        source.resume()
        let handle = SourceHandle(source)
        continuation.onTermination = { _ in handle.cancel() }
        #else
        continuation.finish()
        #endif
        return stream
    }

    private static let releaseQueue = DispatchQueue(label: "TokenAuth.FileRefreshLock.releases")

    /// A dispatch source, cancelled once from whichever thread ends the stream.
    private final class SourceHandle: Sendable {
        private let source: Mutex<(any DispatchSourceRead)?>

        init(_ source: sending any DispatchSourceRead) {
            self.source = Mutex(source)
        }

        func cancel() {
            source.withLock { source in
                source?.cancel()
                source = nil
            }
        }
    }

    #if canImport(Glibc)
    /// The names in the inotify events waiting on `watcher` (it is non-blocking: reads until none is left).
    private static func readEvents(_ watcher: Int32) -> Set<String> {
        var names: Set<String> = []
        let capacity = 4096
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            // Retried when a signal interrupts it; `EAGAIN` (nothing left) or any other failure ends the reading.
            guard let count = try? systemCall({ read(watcher, buffer, capacity) }), count > 0 else { return names }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let end = min(offset + header + length, count)
                if length > 0 {
                    let bytes = UnsafeRawBufferPointer(start: buffer + offset + header, count: end - offset - header)
                    names.insert(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
                }
                offset = end
            }
        }
    }
    #endif
}
