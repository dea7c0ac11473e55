import Foundation
import HTTP
import Synchronization

/// The `Date` header text, formatted at most once a second.
final class DateCache: Sendable {
    private let cached = Mutex<(second: Int, text: String)>((-1, ""))

    func current() -> String {
        let second = Int(Date().timeIntervalSince1970)
        return cached.withLock { cache in
            if cache.second != second { cache = (second, HTTPDate.format(unixSeconds: second)) }
            return cache.text
        }
    }
}
