/// Builds rule documents from fuzz bytes: every spec node, flag shape, trigger and flagd definition the compiler
/// knows, with the edge values that break arithmetic. With `chaos` off it sticks to well-formed shapes (for the
/// evaluation target, which needs sets that compile); with it on, it also writes wrong types, unknown keys and
/// scalars where objects belong.
struct RuleGenerator {
    var input: FuzzInput
    let chaos: Bool
    var specNames: [String] = []
    var flagKeys: [String] = []
    var evaluatorNames: [String] = []
    /// Flags that declare `display` (TipKit accounting), decided before any spec is built so `display` nodes can name
    /// them; and the display groups the document declares.
    var displayFlags: [String] = []
    var groupNames: [String] = []

    init(_ input: FuzzInput, chaos: Bool) {
        self.input = input
        self.chaos = chaos
    }

    /// NFC and NFD `café` too: two events, as every key is bytes.
    static let events = ["e", "appStarted", "purchase", "launch", "promo", "caf\u{E9}", "cafe\u{301}"]
    static let zones = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kathmandu", "Pacific/Chatham", "Australia/Lord_Howe"]
    static let attrOps = [
        "eq", "ne", "lt", "lte", "gt", "gte", "in", "notIn", "contains", "startsWith", "endsWith",
        "matches", "exists", "semverEq", "semverLt", "semverGte", "between", "tolerance"
    ]
    static let comparisons = ["lt", "lte", "eq", "ne", "gte", "gt"]

    mutating func chaotic() -> Bool { chaos && input.byte() % 8 == 0 }

    mutating func number() -> JSONValue {
        switch input.byte() % 6 {
        case 0:
            return .number(
                JSONNumber(
                    validatedText: input.pick([
                        "1e300", "-0", "-0.0", "1E2", "123456789012345678901234567890",
                        "0.1", "1e-300", "4.5", "1e15", "9007199254740993",
                        "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                        "1e19", "-1e19"
                    ])))
        case 1:
            let value = input.edgeDouble()
            return value.isFinite ? .double(value) : .int(0)
        default:
            return .number(JSONNumber(validatedText: String(input.edgeInt())))
        }
    }

    mutating func string() -> String {
        switch input.byte() % 8 {
        case 0: return input.pick(["Infinity", "-Infinity", "inf", "NaN", "nan", "-0", "1e300", "0x10", " 1", "1.2.3", "v2.0.0-beta.1"])
        case 1: return String(repeating: input.pick(["a", "é", "\u{1F600}", "1"]), count: input.length(upTo: 5000))
        case 2: return input.key()
        default: return input.pick(["a", "b", "vip", "free", "premium", "1.2", "2.10.0", "user@example.com", ""])
        }
    }

    /// Any JSON value, nesting up to `depth`.
    mutating func value(depth: Int) -> JSONValue {
        switch input.byte() % (depth > 0 ? 8 : 5) {
        case 0: return .null
        case 1: return .bool(input.bool())
        case 2: return number()
        case 3, 4: return .string(string())
        case 5, 6: return .array((0..<input.int(0...4)).map { _ in value(depth: depth - 1) })
        default:
            var object = JSONObject()
            for _ in 0..<input.int(0...4) { object[input.key()] = value(depth: depth - 1) }
            return .object(object)
        }
    }

    mutating func duration() -> JSONValue {
        switch input.byte() % 6 {
        case 0: return number()
        case 1: return .string("\(input.edgeInt())\(input.pick(["s", "m", "h", "d", "w", "y", ""]))")
        case 2: return .string(input.pick(["9223372036854775s", "153722867280912m", "106751991167d", "15250284452w", "0s", "-1s", "+5s"]))
        default: return .string("\(input.int(0...100))\(input.pick(["s", "m", "h", "d", "w"]))")
        }
    }

    mutating func instantText() -> String {
        if input.byte() % 4 == 0 {
            return input.pick([
                "0000-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z", "1970-01-01", "2026-02-29", "2024-02-29T23:59:60+23:59",
                "2026-01-01T09:00:00-23:59", "not a date"
            ])
        }
        let year = input.int(0...9999), month = input.int(1...12), day = input.int(1...28)
        let hour = input.int(0...23), minute = input.int(0...59)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):00Z"
    }

    mutating func version() -> JSONValue {
        .string(input.pick(["1.2", "1.2.0", "1.10", "2", "v3.0.1", "$appVersion", "", "99999999999999999999.1", "1.-1", "1..2", "1.2.3.4.5.6"]))
    }

    mutating func comparison(into object: inout JSONObject) {
        let op = input.pick(Self.comparisons + ["between"])
        if op == "between" {
            object["between"] = .array([number(), number()])
        } else {
            object[op] = input.byte() % 4 == 0 ? .object(["$counter": .string(input.key())]) : number()
        }
    }

    /// One spec node (the vocabulary of docs/rules.md, "Spec nodes": combinators, counters, clocks, donations,
    /// versions, rollouts).
    mutating func spec(depth: Int) -> JSONValue {
        if chaotic() { return value(depth: 2) }
        let leafKinds = 23
        let kind = Int(input.byte()) % (depth > 0 ? leafKinds + 6 : leafKinds)
        var node = JSONObject()
        switch kind {
        case 0: node["always"] = .bool(input.bool())
        case 1:
            node["flag"] =
                input.bool() ? .string(input.key()) : ["key": .string(input.key()), "equals": .bool(input.bool()), "ifMissing": .bool(input.bool())]
        case 2:
            var counter: JSONObject = ["key": .string(input.key())]
            comparison(into: &counter)
            node["counter"] = .object(counter)
        case 3: node["maxCount"] = ["counter": .string(input.key()), "limit": number()]
        case 4: node["timeSince"] = ["event": .string(input.pick(Self.events)), "atLeast": duration()]
        case 5:
            var cooldown: JSONObject = ["event": .string(input.pick(Self.events)), "for": duration()]
            if input.byte() % 4 == 0 { cooldown["backoff"] = ["counter": .string(input.key()), "factor": number(), "max": duration()] }
            node["cooldown"] = .object(cooldown)
        case 6:
            node["sinceLaunch"] = input.bool() ? duration() : .object([input.pick(["gt", "gte", "lt", "lte"]): duration()])
        case 7: node["eventExists"] = .string(input.pick(Self.events))
        case 8:
            var date: JSONObject = ["event": .string(input.pick(Self.events))]
            if input.bool() { date["before"] = .string(instantText()) }
            if input.bool() || date.count == 1 { date["after"] = .string(instantText()) }
            node["eventDate"] = .object(date)
        case 9:
            var range = JSONObject()
            if input.bool() { range["from"] = .string(instantText()) }
            if input.bool() { range["to"] = .string(instantText()) }
            node["dateRange"] = .object(range)
        case 10:
            node["hourIn"] = .array([.int(input.int(-1...25)), .int(input.int(-1...25))])
            if input.bool() { node["tz"] = .string(input.pick(Self.zones)) }
        case 11:
            node["weekday"] = .array((0..<input.int(1...8)).map { _ in .int(input.int(0...8)) })
            if input.bool() { node["tz"] = .string(input.pick(Self.zones)) }
        case 12: node["segment"] = .string(input.key())
        case 13: node["segments"] = .object([input.pick(["any", "all"]): .array((0..<input.int(1...3)).map { _ in .string(input.key()) })])
        case 14: node["subscription"] = .string(string())
        case 15:
            var attr: JSONObject = ["key": .string(input.key())]
            let op = input.pick(Self.attrOps)
            switch op {
            case "in", "notIn": attr[op] = .array((0..<input.int(0...3)).map { _ in value(depth: 1) })
            case "exists": attr[op] = .bool(input.bool())
            case "between": attr[op] = .array([number(), number()])
            case "tolerance":
                attr["eq"] = number()
                attr["tolerance"] = number()
            case "matches": attr[op] = .string(input.pick(["^a", "(a+)+$", "[", "", ".*", "\\d{3}"]))
            default: attr[op] = input.byte() % 5 == 0 ? .object(["$attr": .string(input.key())]) : value(depth: 1)
            }
            node["attr"] = .object(attr)
        case 16:
            var donations: JSONObject = ["event": .string(input.pick(Self.events))]
            comparison(into: &donations)
            if input.bool() { donations["within"] = duration() }
            node["donations"] = .object(donations)
        case 17, 18:
            node[kind == 17 ? "lastDonation" : "firstDonation"] = [
                "event": .string(input.pick(Self.events)),
                input.pick(["within", "notWithin"]): duration()
            ]
        case 19:
            node[input.pick(["lastDonationVersion", "firstDonationVersion"])] = [
                "event": .string(input.pick(Self.events)),
                input.pick(Self.comparisons): version()
            ]
        case 20: node["appVersion"] = .object([input.pick(Self.comparisons): version()])
        case 21:
            var rollout: JSONObject = ["percent": number()]
            if input.bool() { rollout["salt"] = .string(string()) }
            if input.bool() { rollout["by"] = .string(input.key()) }
            node["rollout"] = .object(rollout)
        case 22:
            if specNames.isEmpty || input.byte() % 8 == 0 {
                node["history"] = [
                    "event": .string(input.pick(Self.events)), "over": duration(), "per": .string(input.pick(["day", "week", "hour"])),
                    "stat": .string(input.pick(["mean", "median", "p90", "max", "min", "activePeriods"])), input.pick(Self.comparisons): number()
                ]
            } else {
                node["ref"] = .string(input.pick(specNames))
            }
        case 23, 24: node[input.pick(["all", "any", "none"])] = .array((0..<input.int(1...3)).map { _ in spec(depth: depth - 1) })
        case 25: node["not"] = spec(depth: depth - 1)
        case 26: node["atLeast"] = ["n": .int(input.int(-1...4)), "of": .array((0..<input.int(1...3)).map { _ in spec(depth: depth - 1) })]
        case 27:
            if !displayFlags.isEmpty, input.bool() {
                node["display"] = displayNode()
            } else {
                node["prerequisite"] =
                    flagKeys.isEmpty
                    ? ["flag": .string("x"), "equals": .bool(true)]
                    : ["flag": .string(input.pick(flagKeys)), "equals": value(depth: 0)]
            }
        default: node["any"] = .array([spec(depth: depth - 1), spec(depth: depth - 1)])
        }
        if chaotic() { node[input.key()] = value(depth: 1) }
        return .object(node)
    }

    /// A JSON Logic expression as flagd targeting uses it, reading the context's attributes and `$flagd`.
    mutating func logic(depth: Int) -> JSONValue {
        if depth <= 0 || input.byte() % 4 == 0 {
            switch input.byte() % 5 {
            case 0:
                return [
                    "var": .string(input.pick(["email", "score", "plan", "targetingKey", "$flagd.timestamp", "$flagd.flagKey", "a.b", "a.0", ""]))
                ]
            case 1: return ["var": .array([.string(input.key()), value(depth: 0)])]
            default: return value(depth: 1)
            }
        }
        let ops = [
            "if", "==", "===", "!=", "!==", "<", "<=", ">", ">=", "and", "or", "!", "!!", "in", "cat", "substr",
            "+", "-", "*", "/", "%", "min", "max", "merge", "map", "filter", "reduce", "all", "none", "some",
            "missing", "missing_some", "fractional", "sem_ver", "starts_with", "ends_with", "var"
        ]
        let op = input.pick(ops)
        switch op {
        case "fractional":
            var arguments: [JSONValue] = input.bool() ? [logic(depth: depth - 1)] : []
            for _ in 0..<input.int(0...4) { arguments.append(.array([.string(input.pick(["on", "off", "a", "b"])), smallOrAny()])) }
            return [op: .array(arguments)]
        case "sem_ver":
            return [op: .array([logic(depth: depth - 1), .string(input.pick(["=", "!=", "<", "<=", ">", ">=", "^", "~", "?"])), version()])]
        case "substr":
            return [op: .array([logic(depth: depth - 1), smallOrAny(logic: depth - 1)] + (input.bool() ? [smallOrAny(logic: depth - 1)] : []))]
        case "missing_some":
            return [op: .array([smallOrAny(logic: depth - 1), .array((0..<input.int(0...3)).map { _ in .string(input.key()) })])]
        case "reduce":
            return [op: .array([logic(depth: depth - 1), ["+": [["var": "current"], ["var": "accumulator"]]], number()])]
        case "map", "filter", "all", "none", "some":
            return [op: .array([logic(depth: depth - 1), logic(depth: depth - 1)])]
        case "$ref":
            return ["$ref": .string(evaluatorNames.isEmpty ? "missing" : input.pick(evaluatorNames))]
        default:
            if input.byte() % 16 == 0, !evaluatorNames.isEmpty { return ["$ref": .string(input.pick(evaluatorNames))] }
            return [op: .array((0..<input.int(0...3)).map { _ in logic(depth: depth - 1) })]
        }
    }

    /// A count or weight: a small literal, an edge number or any expression.
    mutating func smallOrAny(logic depth: Int = 0) -> JSONValue {
        switch input.byte() % 3 {
        case 0: return .int(input.int(-20...100))
        case 1: return number()
        default: return logic(depth: depth)
        }
    }

    /// Values of one JSON type, as the validator requires within a flag.
    mutating func flagValue(type: Int) -> JSONValue {
        if chaotic() { return value(depth: 2) }
        switch type {
        case 0: return .bool(input.bool())
        case 1: return .string(string())
        case 2: return number()
        default: return .object(["k": value(depth: 2)])
        }
    }

    /// `{"display": {"flag", "shownCount": {op: n}}}` or `{"display": {"flag", "shownWithin": d}}`.
    mutating func displayNode() -> JSONValue {
        var node: JSONObject = ["flag": .string(input.pick(displayFlags))]
        if input.bool() {
            var count = JSONObject()
            comparison(into: &count)
            node["shownCount"] = .object(count)
        } else {
            node["shownWithin"] = duration()
        }
        if chaotic() { node[input.pick(["shownCount", "shownWithin", "flag", "bogus"])] = value(depth: 1) }
        return .object(node)
    }

    /// A flag's `display` block: `maxCount` (at the edges too), a declared group or none, the events that invalidate.
    mutating func display() -> JSONValue {
        var display = JSONObject()
        if input.byte() % 4 != 0 { display["maxCount"] = input.bool() ? .int(input.int(1...5)) : number() }
        if !groupNames.isEmpty, input.bool() { display["group"] = .string(input.pick(groupNames)) }
        if input.bool() {
            display["invalidateOn"] = .array(
                (0..<input.int(0...3)).map { _ in .string(input.pick(["actionPerformed", "dismissed", "shown", "bogus"])) })
        }
        if chaotic() { display[input.key()] = value(depth: 1) }
        return .object(display)
    }

    /// The document's display groups: TipKit frequencies (named or any duration) and orders, sometimes the global `*`.
    mutating func groups() -> JSONValue {
        var groups = JSONObject()
        for name in groupNames {
            var group = JSONObject()
            if input.bool() {
                group["frequency"] =
                    input.bool() ? .string(input.pick(["hourly", "daily", "weekly", "monthly", "immediate"])) : duration()
            }
            if input.bool() { group["order"] = .string(input.pick(["ordered", "firstAvailable"] + (chaos ? ["random"] : []))) }
            groups[name] = .object(group)
        }
        return .object(groups)
    }

    mutating func flag(_ key: String = "") -> JSONValue {
        // A display flag answers booleans: a `when` flag or a boolean decision (`display_not_boolean` otherwise).
        let isDisplay = displayFlags.contains(key)
        let type = isDisplay && !chaos ? 0 : input.int(0...3)
        var flag = JSONObject()
        if isDisplay { flag["display"] = display() }
        switch input.byte() % (isDisplay ? 3 : 5) {
        case 0:
            flag["when"] = spec(depth: 4)
        case 1, 2:
            var cases: [JSONValue] = []
            for _ in 0..<input.int(0...4) {
                var item: JSONObject = ["when": spec(depth: 3)]
                if input.byte() % 4 == 0 {
                    // Weights summing past Int.max once trapped in Bucketing.pick (Crashes/evaluation/split-weights-sum-overflow.json).
                    item["split"] = .array(
                        (0..<input.int(1...4)).map { _ in
                            ["weight": input.bool() ? .int(input.int(-1...1_000_000)) : number(), "value": flagValue(type: type)]
                        })
                } else {
                    item["value"] = flagValue(type: type)
                }
                cases.append(.object(item))
            }
            flag["cases"] = .array(cases)
            if input.bool() { flag["fallback"] = flagValue(type: type) }
        case 3:
            let names = (0..<input.int(1...4)).map { "v\($0)" }
            var variants = JSONObject()
            for name in names { variants[name] = flagValue(type: type) }
            flag["variants"] = .object(variants)
            flag["defaultVariant"] = .string(input.pick(names))
            flag["cases"] = .array((0..<input.int(0...3)).map { _ in ["when": spec(depth: 3), "variant": .string(input.pick(names))] })
        default:
            let names = input.pick([["on", "off"], ["a", "b", "c"], ["true", "false"]])
            var variants = JSONObject()
            for name in names { variants[name] = flagValue(type: type) }
            flag["state"] = .string(input.bool() || !chaos ? "ENABLED" : input.pick(["DISABLED", "enabled"]))
            flag["variants"] = .object(variants)
            flag["defaultVariant"] = input.byte() % 8 == 0 ? .null : .string(input.pick(names))
            if input.byte() % 4 != 0 {
                let targeting =
                    input.bool()
                    ? ["if": .array([logic(depth: 4), .string(input.pick(names)), .string(input.pick(names))])]
                    : logic(depth: 5)
                flag["targeting"] = targeting
            }
            return .object(flag)
        }
        if input.byte() % 8 == 0 { flag["enabled"] = .bool(false) }
        if input.byte() % 8 == 0 { flag["metadata"] = ["team": .string(string()), "n": number()] }
        if chaotic() { flag[input.key()] = value(depth: 1) }
        return .object(flag)
    }

    mutating func trigger() -> JSONValue {
        var trigger = JSONObject()
        if input.bool() { trigger["on"] = .array((0..<input.int(1...3)).map { _ in .string(input.pick(Self.events)) }) }
        if input.bool() { trigger["when"] = spec(depth: 3) }
        if input.bool() {
            let huge = ["9223372036854775807 years", "1000000 months", "\(input.edgeInt()) \(input.pick(["hours", "years"]))"]
            // Huge throttles once trapped in TimeZones.add (Crashes/evaluation/throttle-months-int64-trap.json).
            trigger["throttle"] = .string(input.pick(["hour", "day", "2 weeks", "month", "quarter", "year", "0 days", "-1 day"] + huge))
        }
        if input.bool() { trigger["delay"] = duration() }
        if input.bool() { trigger["edge"] = .bool(input.bool()) }
        return .object(trigger)
    }

    /// A whole rule document.
    mutating func document() -> JSONValue {
        var root = JSONObject()
        specNames = (0..<input.int(0...3)).map { "s\($0)" }
        flagKeys = (0..<input.int(1...5)).map { "f\($0)" }
        evaluatorNames = input.bool() ? ["ev"] : []
        if !evaluatorNames.isEmpty { root["$evaluators"] = ["ev": logic(depth: 3)] }
        displayFlags = flagKeys.filter { _ in input.byte() % 3 == 0 }
        groupNames = displayFlags.isEmpty ? [] : input.pick([[], ["g0"], ["g0", "g1"], ["*"], ["g0", "*"]])
        if !groupNames.isEmpty { root["groups"] = groups() }
        var specs = JSONObject()
        for name in specNames { specs[name] = spec(depth: 3) }
        if !specs.isEmpty { root["specs"] = .object(specs) }
        var flags = JSONObject()
        for key in flagKeys { flags[key] = flag(key) }
        root["flags"] = .object(flags)
        var triggers = JSONObject()
        for index in 0..<input.int(0...2) { triggers["t\(index)"] = trigger() }
        if !triggers.isEmpty { root["triggers"] = .object(triggers) }
        if chaotic() { root[input.pick(["metadata", "description", "bogus", "flags"])] = value(depth: 2) }
        return .object(root)
    }
}
