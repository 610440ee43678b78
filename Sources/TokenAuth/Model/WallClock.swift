#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The current wall-clock time, injected wherever expiry is decided.
///
/// Expiry is a wall-clock question: a laptop that sleeps for an hour must see that hour pass, which a
/// monotonic `Clock` does not. Tests pass a closure over a value they control.
public typealias WallClock = @Sendable () -> Date

/// The system's wall clock: the one place the library reads the current date.
public let systemWallClock: WallClock = { Date() }
