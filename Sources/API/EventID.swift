import Engine
import HTTPServer

/// An SSE event id: the log seq of the write that caused it, and an index for further events at the same seq
/// (several flags changed by one write, or clock-driven changes since it). Written `seq` or `seq-index`, ordered
/// as a pair, so ids stay monotonic across restarts because the seq does.
public struct EventID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let seq: UInt64
    public let index: Int

    public init(seq: UInt64, index: Int = 0) {
        self.seq = seq
        self.index = index
    }

    public init?(text: String) {
        let parts = text.split(separator: "-", maxSplits: 1)
        guard let seq = parts.first.flatMap({ UInt64($0) }) else { return nil }
        let index = parts.count == 2 ? Int(parts[1]) : 0
        guard let index, index >= 0 else { return nil }
        self.init(seq: seq, index: index)
    }

    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        (lhs.seq, lhs.index) < (rhs.seq, rhs.index)
    }

    public var description: String { index == 0 ? String(seq) : "\(seq)-\(index)" }

    /// `description.utf8.count`, without making the string.
    var textLength: Int {
        var count = 1
        var rest = seq / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        return index == 0 ? count : count + 1 + String(index).utf8.count
    }
}
