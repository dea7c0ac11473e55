import Foundation
import HTTP
import Synchronization

/// The `Date` header, its text and its line made at most once a second.
final class DateCache: Sendable {
    private struct Cached {
        var text = ""
        var line = DateLine("")
        /// The monotonic instant at which the second they name ends.
        var until = MonotonicInstant(nanoseconds: .min)
    }

    private let cached = Mutex(Cached())

    /// The text for a response made now, for senders without a loop's reading (the listener's refusals, heads of
    /// streams).
    func current() -> String {
        cached.withLock { cache in
            Self.refresh(&cache, at: .now)
            return cache.text
        }
    }

    /// The `Date` line of a response made at `now`, an event loop's reading of the monotonic clock. The wall clock
    /// is read, and the line made, only when `now` has passed the end of the second the line names: a response
    /// costs no clock read and no formatting, where it read the wall clock each time. The line is the wall clock's
    /// second when it was made; as the loop's reading trails the clock by up to a pass, a line can outlive its
    /// second by that much (a millisecond or two, under load), and after the wall clock is set, by up to a second.
    func line(at now: MonotonicInstant) -> DateLine {
        lineAndEnd(at: now).line
    }

    /// The same line and the instant its second ends, until which it holds: a connection keeps both and asks
    /// again only past that instant. Asked for every response, the cache's lock and reference were four atomic
    /// operations each time, shared by every loop's thread.
    func lineAndEnd(at now: MonotonicInstant) -> (line: DateLine, end: MonotonicInstant) {
        cached.withLock { cache in
            Self.refresh(&cache, at: now)
            return (cache.line, cache.until)
        }
    }

    /// Makes both again once `now` has passed the end of their second (only the field asked for is copied out).
    private static func refresh(_ cache: inout Cached, at now: MonotonicInstant) {
        if now < cache.until { return }
        let wall = Date().timeIntervalSince1970
        let second = Int(wall.rounded(.down))
        // What is left of that second, rounded up: the line is never kept into the next one for want of a
        // nanosecond.
        let left = Int64((Double(second + 1) - wall) * 1e9) + 1
        let text = HTTPDate.format(unixSeconds: second)
        cache = Cached(text: text, line: DateLine(text), until: now.advanced(byNanoseconds: left))
    }
}
