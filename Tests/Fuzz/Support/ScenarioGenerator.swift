/// Builds scenario documents from fuzz bytes: a generated rule set (inline), users with contexts, configurations,
/// and steps that move the clock and use every action and assertion kind, over a few user ids so that actions and
/// assertions meet. With chaos, some fields get wrong types, unknown keys or out-of-range values, so the parser's
/// refusals are exercised too.
struct ScenarioGenerator {
    var rules: RuleGenerator
    /// The scenario's first instant, once picked: `at` steps are drawn near it.
    var start = Instant(milliseconds: 0)

    init(_ input: FuzzInput) { rules = RuleGenerator(input, chaos: false) }

    static let users = ["u1", "u2", "caf\u{E9}", "cafe\u{301}"]
    static let starts = ["2026-01-01T09:00:00Z", "2026-03-29T00:30:00Z", "1970-01-01T00:00:00Z", "2099-12-31T23:59:59.999Z"]

    mutating func chaos() -> Bool { rules.input.byte() % 16 == 0 }

    mutating func user() -> JSONValue { .string(rules.input.pick(Self.users)) }

    mutating func step(_ index: Int) -> JSONValue {
        var step: JSONObject = ["name": .string("s\(index)")]
        // Clock moves stay within weeks: a run stops at every due instant on the way (an hourly flag over a century
        // is a million of them), which would make one input take seconds and hide the rest behind it.
        switch rules.input.byte() % 4 {
        case 0: step["advance"] = rules.input.pick(["1s", "30s", "5m", "1h", "1d", "7d", "30d", 0, 2.5])
        case 1:
            // Sometimes before the clock (a refusal), usually a little after the start.
            let offset = Int64(rules.input.int(-2...48)) * 3_600_000
            step["at"] = .string(ISO8601.format(start + offset))
        default: break
        }
        var actions: [JSONValue] = []
        for _ in 0..<rules.input.int(0...3) { actions.append(action()) }
        if !actions.isEmpty { step["do"] = .array(actions) }
        var expectations: [JSONValue] = []
        for _ in 0..<rules.input.int(0...3) { expectations.append(expectation()) }
        if !expectations.isEmpty { step["expect"] = .array(expectations) }
        if rules.input.byte() % 8 == 0 { step["snapshot"] = true }
        if chaos() { step[rules.input.pick(["advance", "at", "do", "expect", "bogus"])] = rules.value(depth: 1) }
        return .object(step)
    }

    mutating func action() -> JSONValue {
        switch rules.input.byte() % 7 {
        case 0, 1:
            var donate: JSONObject = ["donate": .string(rules.input.pick(RuleGenerator.events)), "user": user()]
            if rules.input.bool() { donate["times"] = .int(rules.input.int(1...4)) }
            if rules.input.bool() { donate["appVersion"] = rules.version() }
            return .object(donate)
        case 2:
            return ["user": user(), "ops": .array((0..<rules.input.int(1...3)).map { _ in op() })]
        case 3:
            var inline = op().objectValue ?? [:]
            inline["user"] = user()
            return .object(inline)
        case 4: return ["reset": .string(rules.input.pick(RuleGenerator.events)), "user": user()]
        case 5: return ["erase": user()]
        default:
            var generator = RuleGenerator(rules.input, chaos: false)
            let document = generator.document()
            rules.input = generator.input
            return ["reload": document]
        }
    }

    mutating func op() -> JSONValue {
        let key = JSONValue.string(rules.input.pick(["a", "b", "views", "plan", "vip", "promo"]))
        switch rules.input.byte() % 10 {
        case 0: return ["op": "increment", "counter": key, "by": .int(rules.input.edgeInt())]
        case 1: return ["op": "decrement", "counter": key, "by": .int(abs(rules.input.int(0...1000)))]
        case 2: return ["op": "setCounter", "counter": key, "value": .int(rules.input.edgeInt())]
        case 3: return ["op": "recordEvent", "event": .string(rules.input.pick(RuleGenerator.events))]
        case 4: return ["op": "setFlag", "flag": key, "value": .bool(rules.input.bool())]
        case 5: return ["op": "setAttribute", "key": key, "value": rules.value(depth: 2)]
        case 6: return ["op": "addSegment", "segment": key]
        case 7: return ["op": "setTimeZone", "tz": .string(rules.input.pick(RuleGenerator.zones))]
        case 8: return ["op": "setLaunchedAt", "at": .string(rules.instantText())]
        default: return ["op": "clear", "scope": .string(rules.input.pick(["counters", "events", "flags", "attributes", "segments", "all"]))]
        }
    }

    mutating func expectation() -> JSONValue {
        var assertion: JSONObject = ["user": user()]
        if rules.input.bool() { assertion["label"] = .string(rules.input.key()) }
        switch rules.input.byte() % 5 {
        case 0, 1:
            assertion["flag"] = .string(rules.flagKeys.isEmpty ? "f0" : rules.input.pick(rules.flagKeys))
            switch rules.input.byte() % 5 {
            case 0: assertion["equals"] = rules.value(depth: 1)
            case 1: assertion["reason"] = .string(rules.input.pick(["STATIC", "TARGETING_MATCH", "DEFAULT", "DISABLED", "SPLIT", "ERROR"]))
            case 2: assertion["matched"] = .bool(rules.input.bool())
            case 3: assertion["validUntil"] = rules.input.bool() ? .null : .string(rules.instantText())
            default: assertion["variant"] = .string(rules.input.key())
            }
        case 2:
            assertion["fired"] = .string("t\(rules.input.int(0...1))")
            if rules.input.bool() { assertion["times"] = .int(rules.input.int(0...3)) }
        case 3:
            let kind = rules.input.pick(["counter", "event", "attribute", "segment", "donations"])
            assertion[kind] = .string(rules.input.pick(["a", "views", "vip", "appStarted", "e"]))
            assertion["equals"] = kind == "segment" ? .bool(rules.input.bool()) : rules.value(depth: 1)
        default:
            assertion["events"] = .array((0..<rules.input.int(0...2)).map { _ in ["type": .string(rules.input.pick(["flag", "trigger", "rules"]))] })
        }
        return .object(assertion)
    }

    /// A whole scenario document; `nil` when its generated rules do not compile (the evaluation target's way).
    mutating func document() -> JSONValue? {
        let ruleDocument = rules.document()
        guard compileValid(ruleDocument) != nil else { return nil }
        let startText = rules.input.pick(Self.starts)
        start = ISO8601.parse(startText) ?? Instant(milliseconds: 0)
        var root: JSONObject = ["name": "fuzz", "start": .string(startText), "rules": ruleDocument]
        if rules.input.bool() { root["tz"] = .string(rules.input.pick(RuleGenerator.zones)) }
        var users = JSONObject()
        for id in Self.users where rules.input.bool() {
            var context = JSONObject()
            if rules.input.bool() { context["segments"] = ["vip"] }
            if rules.input.bool() { context["counters"] = ["views": .int(rules.input.edgeInt())] }
            users[id] = .object(context)
        }
        if !users.isEmpty { root["users"] = .object(users) }
        if rules.input.bool() {
            root["configurations"] = .array(
                (0..<rules.input.int(1...2)).map { index in
                    var configuration: JSONObject = ["name": .string("c\(index)")]
                    if rules.input.bool() { configuration["appVersion"] = rules.version() }
                    if rules.input.bool() { configuration["tz"] = .string(rules.input.pick(RuleGenerator.zones)) }
                    return .object(configuration)
                })
        }
        root["steps"] = .array((0..<rules.input.int(1...6)).map { step($0) })
        if chaos() { root[rules.input.pick(["start", "users", "steps", "rules", "bogus"])] = rules.value(depth: 1) }
        return .object(root)
    }
}
