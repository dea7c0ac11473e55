import TestRandom
import Testing

@testable import Engine

/// The heap against a sorted array: every removal takes the least, whatever the inserts and filters before it.
@Suite struct MinHeapTests {
    @Test func randomInsertsRemovalsAndFilters_alwaysYieldTheLeastFirst() {
        var random = SplitMix(seed: 0xC0FF_EE11)
        for _ in 0..<200 {
            var heap = MinHeap<Int>()
            var model: [Int] = []
            for _ in 0..<300 {
                switch random.next(upTo: 10) {
                case 0..<6:
                    let value = random.next(upTo: 100)
                    heap.insert(value)
                    model.append(value)
                case 6..<9:
                    guard let least = model.min() else { continue }
                    #expect(heap.first == least)
                    heap.removeFirst()
                    model.remove(at: model.firstIndex(of: least)!)
                default:
                    let divisor = 2 + random.next(upTo: 3)
                    heap.retain { $0 % divisor != 0 }
                    model.removeAll { $0 % divisor == 0 }
                }
                #expect(heap.count == model.count)
                #expect(heap.first == model.min())
            }
        }
    }
}
