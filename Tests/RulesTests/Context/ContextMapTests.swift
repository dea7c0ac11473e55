import Rules
import TestRandom
import Testing

/// Context maps are keyed by bytes and stay consistent at any size; inline contexts are held to the per-user limits.
@Suite struct ContextMapTests {
    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"

    /// Below and above the size at which the maps add a hash index.
    @Test(arguments: [0, 40])
    func compactMap_nfcAndNfdSpellings_areTwoKeys(filler: Int) {
        var map = CompactMap<Int>()
        for index in 0..<filler { map["filler-\(index)"] = index }
        map[Self.nfc] = 1
        map[Self.nfd] = 2
        #expect(map.count == filler + 2)
        #expect(map[Self.nfc] == 1)
        #expect(map[Self.nfd] == 2)
        map[Self.nfc] = nil
        #expect(map[Self.nfc] == nil)
        #expect(map[Self.nfd] == 2)
    }

    /// The borrowed read answers what the subscript answers, key for key, in both layouts, spellings kept apart.
    @Test(arguments: [0, 40])
    func compactMap_withValue_readsWhatTheSubscriptReads(filler: Int) {
        var map = CompactMap<[Int]>()
        for index in 0..<filler { map["filler-\(index)"] = [index] }
        map[Self.nfc] = [1, 2]
        map[Self.nfd] = [3]
        for key in map.keys + ["missing", "caf"] {
            #expect(map.withValue(forKey: key) { $0.count } == map[key]?.count)
            #expect((map.withValue(forKey: key) { $0.first } ?? nil) == map[key]?.first)
        }
        #expect(map.withValue(forKey: Self.nfc) { $0 } == [1, 2])
        #expect(map.withValue(forKey: Self.nfd) { $0 } == [3])
        #expect(map.withValue(forKey: "missing") { _ in true } == nil)
    }

    @Test(arguments: [0, 40])
    func segmentSet_nfcAndNfdSpellings_areTwoMembers(filler: Int) {
        var set = SegmentSet()
        for index in 0..<filler { set.insert("filler-\(index)") }
        set.insert(Self.nfc)
        #expect(!set.contains(Self.nfd))
        set.insert(Self.nfd)
        #expect(set.count == filler + 2)
        set.remove(Self.nfc)
        #expect(!set.contains(Self.nfc))
        #expect(set.contains(Self.nfd))
    }

    @Test(arguments: [0, 40])
    func jsonObject_nfcAndNfdSpellings_areTwoMembers(filler: Int) throws {
        let members = (0..<filler).map { #""filler-\#($0)": 0, "# }.joined()
        let value = try JSONParser().parse(#"{\#(members)"\#(Self.nfc)": 1, "\#(Self.nfd)": 2}"#)
        let object = try #require(value.objectValue)
        #expect(object.count == filler + 2)
        #expect(object[Self.nfc] == 1)
        #expect(object[Self.nfd] == 2)
    }

    @Test func inlineContext_nfcAndNfdSpellings_areTwoKeysInEveryMap() throws {
        let json = #"""
            {"counters": {"\#(Self.nfc)": 1, "\#(Self.nfd)": 2}, "flags": {"\#(Self.nfc)": true, "\#(Self.nfd)": false},
             "attributes": {"\#(Self.nfc)": "a", "\#(Self.nfd)": "b"}, "segments": ["\#(Self.nfc)", "\#(Self.nfd)"],
             "events": {"\#(Self.nfc)": "2026-01-01T00:00:00Z", "\#(Self.nfd)": "2026-01-02T00:00:00Z"}}
            """#
        let context = try ContextJSON.decode(try JSONParser().parse(json))
        #expect(context.counters[Self.nfc] == 1 && context.counters[Self.nfd] == 2)
        #expect(context.flags[Self.nfc] == true && context.flags[Self.nfd] == false)
        #expect(context.attributes[Self.nfc] == "a" && context.attributes[Self.nfd] == "b")
        #expect(context.segments.count == 2)
        #expect(context.events.count == 2)
    }

    /// Flag keys are bytes too: two canonically equivalent keys are two flags (a String-keyed table trapped).
    @Test func ruleSet_withNfcAndNfdFlagKeys_loadsTwoFlags() throws {
        let set = try ruleSet(#"{"flags": {"\#(Self.nfc)": {"when": {"always": true}}, "\#(Self.nfd)": {"when": {"always": false}}}}"#)
        #expect(set.flagKeys.count == 2)
        #expect(set.evaluate(Self.nfc, input(UserContext())).value == true)
        #expect(set.evaluate(Self.nfd, input(UserContext())).value == false)
    }

    @Test func changedInputs_tellNfcFromNfd() {
        var before = UserContext()
        before.counters[Self.nfc] = 1
        var after = before
        after.counters[Self.nfd] = 1
        #expect(UserContext.changedInputs(from: before, to: after) == [.counter(Self.nfd)])
    }

    /// Random inserts and removals across the index threshold agree with a byte-keyed dictionary.
    @Test func compactMap_randomOperations_matchADictionary() {
        var generator = SplitMix(seed: 11)
        var map = CompactMap<Int>()
        var model: [ByteKey: Int] = [:]
        let keys = (0..<200).flatMap { ["k\($0)", "caf\u{E9}\($0)", "cafe\u{301}\($0)"] }
        for step in 0..<20_000 {
            let key = keys[generator.next(upTo: keys.count)]
            if generator.next(upTo: 3) == 0 {
                #expect(map.removeValue(forKey: key) == model.removeValue(forKey: ByteKey(key)))
            } else {
                #expect(map.updateValue(step, forKey: key) == model.updateValue(step, forKey: ByteKey(key)))
            }
            #expect(map.count == model.count)
        }
        for (key, value) in model { #expect(map[key.string] == value) }
    }

    /// Copies are values at every size, the indexed layout (a shared box, copied on write) and changes in place
    /// (`withValue`) included: a copy kept every 500 steps still matches the model as it was then.
    @Test func compactMap_copies_keepTheirValues_acrossTheIndexThreshold() {
        var generator = SplitMix(seed: 13)
        var map = CompactMap<Int>()
        var model: [ByteKey: Int] = [:]
        var kept: [(CompactMap<Int>, [ByteKey: Int])] = []
        let keys = (0..<60).map { "key-\($0)" }
        for step in 0..<10_000 {
            let key = keys[generator.next(upTo: keys.count)]
            switch generator.next(upTo: 3) {
            case 0:
                map[key] = nil
                model[ByteKey(key)] = nil
            case 1:
                map[key] = step
                model[ByteKey(key)] = step
            default:
                // In place: the value as it was comes in, the changed one stays, and kept copies see none of it.
                let seen = map.withValue(forKey: key, default: { -1 }) { value in
                    defer { value += 1_000_000 }
                    return value
                }
                #expect(seen == model[ByteKey(key)] ?? -1)
                model[ByteKey(key)] = seen + 1_000_000
            }
            #expect(map.count == model.count)
            if step % 500 == 0 { kept.append((map, model)) }
        }
        for (copy, expected) in kept {
            #expect(copy.count == expected.count)
            for (key, value) in expected { #expect(copy[key.string] == value) }
        }
    }

    /// A map is one reference (8 bytes), so a context's box stays small; the context itself is one reference, so
    /// copying it retains one buffer and a users-table slot is a word.
    @Test func compactMap_isOneWord_andAContextIsOneWord() {
        #expect(MemoryLayout<CompactMap<Int>>.size == 8)
        #expect(MemoryLayout<SegmentSet>.size == 8)
        #expect(MemoryLayout<UserContext>.size == 8)
    }

    @Test func segmentSet_randomOperations_matchASet() {
        var generator = SplitMix(seed: 12)
        var set = SegmentSet()
        var model: Set<ByteKey> = []
        let names = (0..<100).flatMap { ["s\($0)", "caf\u{E9}\($0)", "cafe\u{301}\($0)"] }
        for _ in 0..<10_000 {
            let name = names[generator.next(upTo: names.count)]
            if generator.next(upTo: 3) == 0 {
                set.remove(name)
                model.remove(ByteKey(name))
            } else {
                set.insert(name)
                model.insert(ByteKey(name))
            }
            #expect(set.count == model.count)
        }
        let members: [ByteKey] = set.map { ByteKey($0) }
        #expect(Set(members) == model)
        let sorted: [ByteKey] = set.sorted().map { ByteKey($0) }
        #expect(sorted == model.sorted())
    }

    static let small = ContextLimits(
        maxCounters: 2, maxEvents: 2, maxFlags: 2, maxAttributes: 2, maxSegments: 2, maxDonationEvents: 2,
        maxAttributeValueBytes: 8, maxKeyBytes: 4)

    /// Each map of an inline context over its cap is refused, naming the limit and its value.
    @Test(arguments: [
        (#"{"counters": {"a": 1, "b": 2, "c": 3}}"#, "context.counters", "limits.maxCountersPerUser"),
        (#"{"events": {"a": "2026-01-01", "b": "2026-01-01", "c": "2026-01-01"}}"#, "context.events", "limits.maxEventsPerUser"),
        (#"{"flags": {"a": true, "b": true, "c": true}}"#, "context.flags", "limits.maxFlagsPerUser"),
        (#"{"attributes": {"a": 1, "b": 2, "c": 3}}"#, "context.attributes", "limits.maxAttributesPerUser"),
        (#"{"segments": ["a", "b", "c"]}"#, "context.segments", "limits.maxSegmentsPerUser"),
        (#"{"donations": {"a": {"count": 1}, "b": {"count": 1}, "c": {"count": 1}}}"#, "context.donations", "limits.maxDonationEventsPerUser"),
        (#"{"attributes": {"a": "123456789"}}"#, "context.attributes.a", "limits.maxAttributeValueBytes"),
        (#"{"counters": {"abcde": 1}}"#, "context.counters.abcde", "limits.maxKeyBytes"),
        (#"{"segments": ["abcde"]}"#, "context.segments[0]", "limits.maxKeyBytes")
    ])
    func inlineContext_overALimit_isRefusedNamingIt(json: String, field: String, limit: String) throws {
        let value = try JSONParser().parse(json)
        #expect(throws: ContextJSON.FieldError.self) { try ContextJSON.decode(value, limits: Self.small) }
        do throws(ContextJSON.FieldError) {
            _ = try ContextJSON.decode(value, limits: Self.small)
        } catch {
            #expect(error.field == field)
            #expect(error.isLimit)
            #expect(error.message.contains(limit), "\(error.message)")
        }
    }

    @Test func inlineContext_atTheLimits_isAccepted() throws {
        let json = #"{"counters": {"a": 1, "b": 2}, "segments": ["a", "b", "a"], "attributes": {"abcd": "123456"}}"#
        let context = try ContextJSON.decode(try JSONParser().parse(json), limits: Self.small)
        #expect(context.counters.count == 2)
        #expect(context.segments.count == 2)
    }
}
