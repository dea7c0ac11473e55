/// A binary min-heap: the clock's schedules (`ClockScheduler`), the delayed fires (`PendingFires`) and the webhook
/// lanes (`DueHeap`) each keep one, with entries left behind by what was cancelled skipped when they reach the top
/// (and, for the first two, dropped by `retain`).
/// Pure and single-threaded: its owner holds it under its lock.
struct MinHeap<Element: Comparable> {
    private var elements: [Element] = []

    var count: Int { elements.count }
    /// The least element.
    var first: Element? { elements.first }

    mutating func insert(_ element: Element) {
        elements.append(element)
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child] < elements[parent] else { return }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes the least element.
    mutating func removeFirst() {
        elements.swapAt(0, elements.count - 1)
        elements.removeLast()
        siftDown(0)
    }

    /// Keeps only the elements `keep` accepts, then restores the order (bottom-up, linear).
    mutating func retain(where keep: (Element) -> Bool) {
        elements.removeAll { !keep($0) }
        for index in stride(from: elements.count / 2, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < elements.count, elements[left] < elements[smallest] { smallest = left }
            if right < elements.count, elements[right] < elements[smallest] { smallest = right }
            guard smallest != parent else { return }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
