/// An event's recent donation instants, ascending: a long run shared between the states that hold it, and a short
/// tail of the newest.
///
/// A write keeps the state it replaces (its flags are evaluated on both), so the new state's history is a copy. As
/// one array, every donation copied all of it: up to the history policy's thousand instants, 8 KB a write, and a
/// write's CPU grew with its user's history. Here a donation copies the tail alone (at most `tailLimit` instants);
/// every `tailLimit` donations the tail joins the shared run in one copy, and the policy's oldest leave that run by
/// moving its start, not by shifting it. A donation that arrives backdated into the shared run rebuilds it.
///
/// `settled` is never changed in place: it is replaced whole, so a state that shares it keeps its instants.
public struct DonationHistory: Sendable {
    /// The older instants, from `settledStart` on.
    private var settled: [Instant]
    /// Instants at the front of `settled` the history no longer holds: the policy dropped them.
    private var settledStart: Int
    /// The newest instants, after the settled run.
    private var tail: [Instant]

    /// The most instants the tail holds before it joins the settled run. A donation copies up to this many, and a
    /// join copies the whole history: at 64, with the policy's thousand, both cost some 16 to 64 instants a
    /// donation, against a thousand.
    static let tailLimit = 64

    public init() {
        self.init(settled: [], tail: [])
    }

    /// A history of these instants, which must be ascending; the array is shared, not copied.
    public init(_ instants: [Instant]) {
        self.init(settled: instants, tail: [])
    }

    init(settled: [Instant], tail: [Instant]) {
        self.settled = settled
        self.settledStart = 0
        self.tail = tail
    }

    private var settledCount: Int { settled.count - settledStart }

    /// Adds an instant after every other; the caller keeps the order.
    public mutating func append(_ instant: Instant) {
        if tail.count >= Self.tailLimit { settle() }
        tail.append(instant)
    }

    /// Adds an instant at `position` (`0...count`).
    public mutating func insert(_ instant: Instant, at position: Int) {
        precondition(position >= 0 && position <= count, "DonationHistory.insert: position out of range")
        let inSettled = settledCount
        if position == count {
            append(instant)
        } else if position >= inSettled {
            tail.insert(instant, at: position - inSettled)
            if tail.count > Self.tailLimit { settle() }
        } else {
            // Backdated into the shared run (rare): one new run with the instant in place, the tail kept.
            var rebuilt: [Instant] = []
            rebuilt.reserveCapacity(inSettled + 1)
            rebuilt.append(contentsOf: settled[settledStart..<(settledStart + position)])
            rebuilt.append(instant)
            rebuilt.append(contentsOf: settled[(settledStart + position)...])
            settled = rebuilt
            settledStart = 0
        }
    }

    /// Drops the `k` oldest instants (`0...count`).
    public mutating func removeFirst(_ k: Int) {
        precondition(k >= 0 && k <= count, "DonationHistory.removeFirst: count out of range")
        let inSettled = settledCount
        if k < inSettled {
            settledStart += k
            // Many dropped at once (by age): the run is cut to what is left, so a history holds memory for the
            // instants it has, not for the most it ever had. One donation at a time at the cap drops one, and the
            // tail's join compacts the run long before this.
            if settledStart > Self.tailLimit, settledStart > settledCount {
                settled = Array(settled[settledStart...])
                settledStart = 0
            }
        } else {
            settled = []
            settledStart = 0
            if k > inSettled { tail.removeFirst(k - inSettled) }
        }
    }

    /// Drops the oldest instant; the history must not be empty.
    public mutating func removeFirst() {
        removeFirst(1)
    }

    /// Joins the tail to the settled run: the run is new (one copy of the history, with what the policy dropped
    /// left out), and the tail starts again empty.
    private mutating func settle() {
        if settledCount == 0 {
            // Nothing settled: the tail becomes the run as it is, with no copy.
            settled = tail
        } else {
            var joined: [Instant] = []
            joined.reserveCapacity(settledCount + tail.count)
            joined.append(contentsOf: settled[settledStart...])
            joined.append(contentsOf: tail)
            settled = joined
        }
        settledStart = 0
        tail = []
    }

    /// Whether both hold the same settled instants in the same memory: a history unchanged by a write is the
    /// same value.
    private func sharesStorage(with other: DonationHistory) -> Bool {
        settledStart == other.settledStart && settled.count == other.settled.count && sharesRun(with: other)
    }

    /// Whether both read their settled run from the same memory (what a donation is meant to leave shared).
    func sharesRun(with other: DonationHistory) -> Bool {
        settled.withUnsafeBufferPointer { mine in other.settled.withUnsafeBufferPointer { $0.baseAddress == mine.baseAddress } }
    }

    /// Instants of room held, used or not: what the history costs in memory.
    var storedCapacity: Int { settled.capacity + tail.capacity }
}

extension DonationHistory: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { settledCount + tail.count }
    public var count: Int { settledCount + tail.count }
    public var isEmpty: Bool { settledCount == 0 && tail.isEmpty }

    public subscript(position: Int) -> Instant {
        // Below 0 would read an instant the policy dropped; above the end the arrays trap on their own.
        precondition(position >= 0, "DonationHistory: index out of range")
        let inSettled = settledCount
        return position < inSettled ? settled[settledStart + position] : tail[position - inSettled]
    }

    public var last: Instant? { tail.last ?? (settledCount > 0 ? settled.last : nil) }
}

extension DonationHistory: Equatable {
    /// Equal instants, wherever they are held.
    public static func == (lhs: DonationHistory, rhs: DonationHistory) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.sharesStorage(with: rhs), lhs.tail.count == rhs.tail.count { return lhs.tail == rhs.tail }
        return lhs.elementsEqual(rhs)
    }
}

extension DonationHistory: ExpressibleByArrayLiteral {
    public init(arrayLiteral instants: Instant...) {
        self.init(instants)
    }
}

extension DonationHistory: CustomStringConvertible {
    public var description: String { Array(self).description }
}
