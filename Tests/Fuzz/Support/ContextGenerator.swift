/// Builds user contexts from fuzz bytes: every field, extreme numbers (1e300, -0, Int.max, 20-digit literals),
/// strings that look like numbers ("Infinity", "inf", "NaN"), long strings and deep nesting. Instants stay within
/// what ISO 8601 text can say (years 0000-9999), because that is all a client can send.
extension FuzzInput {
    static let firstInstant: Int64 = -62_167_219_200_000
    static let lastInstant: Int64 = 253_402_300_799_999

    mutating func instant() -> Instant {
        switch byte() % 4 {
        case 0: return Instant(milliseconds: pick([Self.firstInstant, Self.lastInstant, 0, -1, 1_767_225_600_000]))
        case 1: return Instant(milliseconds: 1_767_225_600_000 + Int64(int(-1_000_000...1_000_000)) * 1000)
        default: return Instant(milliseconds: Int64(int(Int(Self.firstInstant)...Int(Self.lastInstant))))
        }
    }

    mutating func deepValue() -> JSONValue {
        var value: JSONValue = .string("core")
        for _ in 0..<int(1...30) { value = byte() & 1 == 0 ? .array([value]) : .object(["n": value]) }
        return value
    }

    /// An attribute value: what the OFREP context or a stored attribute may hold.
    mutating func attributeValue() -> JSONValue {
        var generator = RuleGenerator(self, chaos: false)
        defer { self = generator.input }
        switch generator.input.byte() % 6 {
        case 0: return generator.input.deepValue()
        case 1: return .string(String(repeating: generator.input.pick(["x", "1", "é"]), count: generator.input.length(upTo: 20_000)))
        default: return generator.value(depth: 3)
        }
    }

    mutating func userContext() -> UserContext {
        var context = UserContext()
        if bool() { context.launchedAt = instant() }
        if bool() { context.timeZone = pick(RuleGenerator.zones) }
        for _ in 0..<int(0...4) { context.counters[key()] = edgeInt() }
        for _ in 0..<int(0...3) { context.events[pick(RuleGenerator.events + [key()])] = instant() }
        for _ in 0..<int(0...3) { context.flags[key()] = bool() }
        for _ in 0..<int(0...4) { context.attributes[pick(["email", "score", "plan", "a", key()])] = attributeValue() }
        for _ in 0..<int(0...3) { context.segments.insert(key()) }
        for _ in 0..<int(0...2) {
            let recent = (0..<int(0...6)).map { _ in instant() }.sorted()
            let first = bool() ? DonationSummary.Mark(at: instant(), appVersion: bool() ? pick(["1.2", "2.0", "x", ""]) : nil) : nil
            let last =
                bool()
                ? DonationSummary.Mark(at: instant(), appVersion: bool() ? pick(["1.2", "2.0", "v9"]) : nil)
                : recent.last.map { .init(at: $0, appVersion: nil) }
            context.donations[pick(RuleGenerator.events)] = DonationSummary(count: max(0, edgeInt()), first: first, last: last, recent: recent)
        }
        for _ in 0..<int(0...1) { context.triggerFires["t\(int(0...1))"] = instant() }
        // Display state as the reducer keeps it, for the generated display flags (f0...) and others.
        for _ in 0..<int(0...2) {
            var state = DisplayState()
            for _ in 0..<int(0...3) {
                state.record(
                    pick(DisplayState.Event.allCases), at: instant(), maxCount: bool() ? nil : int(1...3), invalidates: byte() % 4 == 0)
            }
            if byte() % 8 == 0 { state.shownCount = edgeInt() }
            context.display[pick(["f0", "f1", "f2", key()])] = state
        }
        // Expiries name values the context holds (the reducer's invariant), at any instant: past, now or to come.
        if byte() % 4 == 0 {
            var entries: [ValueExpiries.Entry] = []
            for key in context.attributes.keys where bool() { entries.append(.init(kind: .attribute, key: key, at: instant())) }
            for key in context.flags.keys where bool() { entries.append(.init(kind: .flag, key: key, at: instant())) }
            for key in context.segments where bool() { entries.append(.init(kind: .segment, key: key, at: instant())) }
            context.expiries = ValueExpiries(entries)
        }
        return context
    }
}
