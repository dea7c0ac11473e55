import Rules
import Testing

/// The lookups read through a map's address (`UserContext+Lookups`) answer as the maps' own subscripts do, at
/// every size (a large map is indexed), and leave every copy sharing the box as it was.
@Suite struct UserContextLookupTests {
    /// A context with `size` keys in each map, `key0` … `key<size-1>`.
    static func context(size: Int) -> UserContext {
        var context = UserContext()
        for index in 0..<size {
            let key = "key\(index)"
            context.counters[key] = index
            context.events[key] = Instant(milliseconds: Int64(index))
            context.flags[key] = index % 2 == 0
            context.attributes[key] = .string("value \(index)")
            context.display[key] = DisplayState(shownCount: index)
            context.triggerFires[key] = Instant(milliseconds: Int64(1000 + index))
            context.segments.insert(key)
            context.donations[key] = DonationSummary(count: index + 1)
        }
        return context
    }

    @Test(arguments: [0, 1, 5, 24, 25, 80])
    func lookups_answerAsTheSubscripts_presentAndMissing(size: Int) {
        let context = Self.context(size: size)
        let keys = (0..<(size + 3)).map { "key\($0)" } + ["", "KEY0", "key0 ", "k\u{E9}y"]
        for key in keys {
            #expect(context.counter(forKey: key) == context.counters[key], "\(key)")
            #expect(context.event(forKey: key) == context.events[key], "\(key)")
            #expect(context.flag(forKey: key) == context.flags[key], "\(key)")
            #expect(context.attribute(forKey: key) == context.attributes[key], "\(key)")
            #expect(context.display(forKey: key) == context.display[key], "\(key)")
            #expect(context.triggerFire(forKey: key) == context.triggerFires[key], "\(key)")
            #expect(context.isMember(of: key) == context.segments.contains(key), "\(key)")
            #expect(context.withDonations(of: key) { $0.count } == context.donations[key]?.count, "\(key)")
        }
    }

    /// Keys compared as bytes, as the maps compare them: a precomposed é and e + combining accent are two keys.
    @Test func lookups_compareKeysAsBytes() {
        var context = UserContext()
        context.counters["caf\u{E9}"] = 1
        #expect(context.counter(forKey: "caf\u{E9}") == 1)
        #expect(context.counter(forKey: "cafe\u{301}") == nil)
    }

    @Test func lookups_leaveEveryCopyAsItWas() {
        let original = Self.context(size: 30)
        var copy = original
        for index in 0..<30 { _ = copy.counter(forKey: "key\(index)") }
        _ = copy.withDonations(of: "key3") { $0.count }
        copy.counters["key0"] = 99
        #expect(original.counter(forKey: "key0") == 0)
        #expect(copy.counter(forKey: "key0") == 99)
        #expect(original == Self.context(size: 30))
    }

    /// One context read from several threads at once, as the store's shared values are.
    @Test func lookups_fromManyThreadsAtOnce_allAnswerAlike() async {
        let context = Self.context(size: 30)
        let wrong = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for step in 0..<5_000 {
                        let index = step % 33
                        if context.counter(forKey: "key\(index)") != (index < 30 ? index : nil) { wrong += 1 }
                        if context.withDonations(of: "key\(index)", { $0.count }) != (index < 30 ? index + 1 : nil) { wrong += 1 }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
    }
}
