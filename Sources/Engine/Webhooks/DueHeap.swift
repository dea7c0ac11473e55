import Rules

/// A binary min-heap of (instant, order, key): the webhook queue's next due lane in O(log n) instead of a scan over
/// every lane. Entries are never updated in place; a lane whose schedule changed is pushed again and its stale
/// entries are skipped by the caller's check when they surface (lazy deletion).
struct DueHeap<Key: Hashable> {
    struct Entry {
        let at: Instant
        let order: UInt64
        let key: Key
    }

    private var entries: [Entry] = []

    var count: Int { entries.count }
    var first: Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    @discardableResult
    mutating func popFirst() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, Self.precedes(entries[left], entries[smallest]) { smallest = left }
            if right < entries.count, Self.precedes(entries[right], entries[smallest]) { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }

    private static func precedes(_ a: Entry, _ b: Entry) -> Bool { (a.at, a.order) < (b.at, b.order) }
}
