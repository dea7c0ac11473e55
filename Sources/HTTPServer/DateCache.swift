import Foundation
import HTTP
import Synchronization

/// The `Date` header text, formatted at most once a second.
final class DateCache: Sendable {
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))
    /// The line `line(at:)` hands out, and the monotonic instant at which its second ends.
    private let lineCache = Mutex<(line: DateLine, until: MonotonicInstant)>((DateLine(""), MonotonicInstant(nanoseconds: .min)))

    func current() -> String {
        let second = Int(Date().timeIntervalSince1970)
        return cached.withLock { cache in
            if cache.second != second { cache = (second, HTTPDate.format(unixSeconds: second)) }
            return cache.text
        }
    }

    /// The `Date` line of a response made at `now`, an event loop's reading of the monotonic clock. The wall clock
    /// is read, and the line made, only when `now` has passed the end of the second the line names: a response
    /// costs no clock read and no formatting, where it read the wall clock each time. The line is the wall clock's
    /// second when it was made; as the loop's reading trails the clock by up to a pass, a line can outlive its
    /// second by that much (a millisecond or two, under load), and after the wall clock is set, by up to a second.
    func line(at now: MonotonicInstant) -> DateLine {
        lineCache.withLock { cache in
            if now < cache.until { return cache.line }
            let wall = Date().timeIntervalSince1970
            let second = Int(wall.rounded(.down))
            // What is left of that second, rounded up: the line is never kept into the next one for want of a
            // nanosecond.
            let left = Int64((Double(second + 1) - wall) * 1e9) + 1
            cache = (DateLine(HTTPDate.format(unixSeconds: second)), now.advanced(byNanoseconds: left))
            return cache.line
        }
    }
}
