import Rules

/// The webhook queue's lanes by when their head is next due, (instant, order, key): the next due lane in O(log n)
/// instead of a scan over every lane. Entries are never updated in place; a lane whose schedule changed is pushed
/// again and its stale entries are skipped by the caller's check when they surface (lazy deletion).
struct DueHeap<Key: Hashable> {
    struct Entry: Comparable {
        let at: Instant
        let order: UInt64
        let key: Key

        static func < (a: Entry, b: Entry) -> Bool { (a.at, a.order) < (b.at, b.order) }
        static func == (a: Entry, b: Entry) -> Bool { a.at == b.at && a.order == b.order }
    }

    private var heap = MinHeap<Entry>()

    var count: Int { heap.count }
    var first: Entry? { heap.first }

    mutating func push(_ entry: Entry) {
        heap.insert(entry)
    }

    @discardableResult
    mutating func popFirst() -> Entry? {
        guard let top = heap.first else { return nil }
        heap.removeFirst()
        return top
    }
}
