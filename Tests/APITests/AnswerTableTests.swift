import TestRandom
import Testing

@testable import API

/// The answer cache's open-addressing table against a dictionary, through inserts, replacements, removals by key
/// and by position, and random evictions: every key kept is found, none removed is, and the counts agree.
@Suite struct AnswerTableTests {
    static func key(_ number: Int, version: Bool) -> AnswerCache.Key {
        AnswerCache.Key(user: "user-\(number)", flag: number % 3 == 0 ? "promo-banner" : "f", appVersion: version ? "1.\(number % 4)" : nil)
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomOperations_agreeWithADictionary(seed: UInt64) {
        var generator = SplitMix(seed: seed)
        var table = AnswerTable<Int>(seed: seed)
        var model: [AnswerCache.Key: Int] = [:]
        // Few keys, many operations: the table grows, and runs of slots form, shift back and form again.
        for step in 0..<20_000 {
            let key = Self.key(generator.next(upTo: 300), version: generator.next(upTo: 2) == 0)
            switch generator.next(upTo: 10) {
            case 0..<5:
                #expect(table.updateValue(step, forKey: key) == model.updateValue(step, forKey: key))
            case 5..<7:
                #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
            case 7:
                if let position = table.randomPosition(excluding: key) {
                    #expect(table.key(at: position) != key)
                    let removed = table.remove(at: position)
                    #expect(model.removeValue(forKey: removed.key) == removed.value)
                } else {
                    #expect(model.keys.allSatisfy { $0 == key })
                }
            default:
                #expect(table.position(of: key).map { table.value(at: $0) } == model[key])
            }
            #expect(table.count == model.count)
            if step % 500 == 0 {
                for (key, value) in model { #expect(table.position(of: key).map { table.value(at: $0) } == value) }
            }
        }
        for (key, value) in model { #expect(table.position(of: key).map { table.value(at: $0) } == value) }
        // Emptied by position, always the first: the last entry keeps moving into the hole.
        while !table.isEmpty {
            let removed = table.remove(at: 0)
            #expect(model.removeValue(forKey: removed.key) == removed.value)
            for key in model.keys.prefix(20) { #expect(table.position(of: key) != nil) }
        }
        #expect(model.isEmpty)
    }

    @Test func randomPosition_neverDrawsTheExcludedKey_andDrawsEveryOther() {
        var table = AnswerTable<Int>(seed: 7)
        let kept = (0..<8).map { Self.key($0, version: false) }
        for (index, key) in kept.enumerated() { _ = table.updateValue(index, forKey: key) }
        var drawn = Set<Int>()
        for _ in 0..<2_000 {
            guard let position = table.randomPosition(excluding: kept[3]) else {
                Issue.record("nothing drawn")
                return
            }
            #expect(table.key(at: position) != kept[3])
            drawn.insert(position)
        }
        #expect(drawn.count == 7)
        var single = AnswerTable<Int>(seed: 7)
        _ = single.updateValue(0, forKey: kept[0])
        #expect(single.randomPosition(excluding: kept[0]) == nil)
        #expect(single.randomPosition(excluding: kept[1]) == 0)
    }
}

extension AnswerTableTests {
    /// Digests chosen to collide: equal digests for different keys, many keys sharing a few home slots, and homes
    /// at the end of the slots so runs wrap to the start; the same operations as above, reproducible by seed.
    @Test(arguments: [11, 12, 13])
    func collidingDigests_agreeWithADictionary(seed: UInt64) {
        var generator = SplitMix(seed: seed)
        var table = AnswerTable<Int>(seed: seed)
        var model: [AnswerCache.Key: Int] = [:]
        func key(_ number: Int) -> AnswerCache.Key {
            // Homes 13, 14, 15 (of 16 slots, then of 32 and 64 as it grows), two keys on each full digest.
            let digest: UInt64 = [13, 14, 15, 31, 63][number % 5] | UInt64(number / 10) << 40
            return AnswerCache.Key(user: "u\(number)", flag: "f", appVersion: nil, digest: digest)
        }
        for step in 0..<10_000 {
            let key = key(generator.next(upTo: 40))
            switch generator.next(upTo: 8) {
            case 0..<4: #expect(table.updateValue(step, forKey: key) == model.updateValue(step, forKey: key))
            case 4..<6: #expect(table.removeValue(forKey: key) == model.removeValue(forKey: key))
            case 6:
                if let position = table.randomPosition(excluding: key) {
                    let removed = table.remove(at: position)
                    #expect(model.removeValue(forKey: removed.key) == removed.value)
                }
            default: #expect(table.position(of: key).map { table.value(at: $0) } == model[key])
            }
            #expect(table.count == model.count)
            for (key, value) in model { #expect(table.position(of: key).map { table.value(at: $0) } == value) }
        }
    }
}
