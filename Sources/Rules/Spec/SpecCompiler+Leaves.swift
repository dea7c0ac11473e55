extension SpecCompiler {
    mutating func compileLeaf(_ name: String, _ value: JSONValue, object: JSONObject, path: JSONPointer) -> Spec? {
        let at = path.appending(name)
        if Self.isRicherForm(name, value, object: object) { return compileRicherLeaf(name, value, object: object, path: path) }
        switch name {
        case "flag":
            if case .string(let key) = value { return .flag(key: key, equals: true, ifMissing: false) }
            guard let fields = fields(value, at: at, required: ["key"], optional: ["equals", "ifMissing"]),
                let key = string(fields, "key", at: at)
            else { return nil }
            let equals = boolean(fields, "equals", at: at) ?? true
            let ifMissing = boolean(fields, "ifMissing", at: at) ?? false
            return .flag(key: key, equals: equals, ifMissing: ifMissing)
        case "counter":
            guard let fields = fields(value, at: at, required: ["key"], optional: Comparison.Operator.allCases.map(\.rawValue)),
                let key = string(fields, "key", at: at), let comparison = comparison(fields, at: at)
            else { return nil }
            return .counter(key: key, comparison)
        case "maxCount":
            guard let fields = fields(value, at: at, required: ["counter", "limit"], optional: []),
                let counter = string(fields, "counter", at: at),
                let limit = integer(fields, "limit", at: at, minimum: 0)
            else { return nil }
            return .maxCount(counter: counter, limit: limit)
        case "timeSince", "cooldown":
            let field = name == "timeSince" ? "atLeast" : "for"
            guard let fields = fields(value, at: at, required: ["event", field], optional: []),
                let event = string(fields, "event", at: at),
                let length = duration(fields[field]!, at: at.appending(field))
            else { return nil }
            return .elapsedSince(operator: name, event: event, duration: length)
        case "sinceLaunch":
            return duration(value, at: at).map { .sinceLaunch($0) }
        case "eventExists":
            guard case .string(let event) = value, !event.isEmpty else { return wrongType(at, "an event name") }
            return .eventExists(event)
        case "eventDate":
            guard let fields = fields(value, at: at, required: ["event"], optional: ["before", "after"]),
                let event = string(fields, "event", at: at)
            else { return nil }
            guard fields["before"] != nil || fields["after"] != nil else {
                error(at, "missing_field", "eventDate needs 'before' or 'after'")
                return nil
            }
            let before = fields["before"].map { instant($0, at: at.appending("before")) }
            let after = fields["after"].map { instant($0, at: at.appending("after")) }
            if before == .some(nil) || after == .some(nil) { return nil }
            return .eventDate(event: event, before: before ?? nil, after: after ?? nil)
        case "dateRange":
            return compileDateRange(value, at: at)
        case "hourIn":
            return compileHourIn(value, zone: object["tz"], path: path)
        case "weekday":
            return compileWeekday(value, zone: object["tz"], path: path)
        case "segment":
            guard case .string(let segment) = value, !segment.isEmpty else { return wrongType(at, "a segment name") }
            return .segment(segment)
        case "segments":
            return compileSegments(value, at: at)
        case "subscription":
            guard case .string(let status) = value, !status.isEmpty else { return wrongType(at, "a subscription status") }
            return .subscription(status)
        case "attr":
            return compileAttribute(value, at: at)
        case "donations":
            guard let fields = fields(value, at: at, required: ["event"], optional: Comparison.Operator.allCases.map(\.rawValue) + ["within"]),
                let event = string(fields, "event", at: at), let comparison = comparison(fields, at: at)
            else { return nil }
            referencedEvents.insert(ByteKey(event))
            var window: Milliseconds?
            if let within = fields["within"] {
                guard let parsed = duration(within, at: at.appending("within")) else { return nil }
                window = parsed
            }
            return .donations(event: event, comparison, within: window)
        case "lastDonation", "firstDonation":
            guard let fields = fields(value, at: at, required: ["event"], optional: ["within", "notWithin"]),
                let event = string(fields, "event", at: at)
            else { return nil }
            referencedEvents.insert(ByteKey(event))
            guard (fields["within"] == nil) != (fields["notWithin"] == nil) else {
                error(
                    at, fields["within"] == nil ? "missing_field" : "multiple_operators",
                    "\(name) needs exactly one of 'within' or 'notWithin'")
                return nil
            }
            let inside = fields["within"] != nil
            let key = inside ? "within" : "notWithin"
            return duration(fields[key]!, at: at.appending(key)).map {
                .donationRecency(event: event, first: name == "firstDonation", window: $0, inside: inside)
            }
        case "lastDonationVersion", "firstDonationVersion":
            guard let fields = fields(value, at: at, required: ["event"], optional: VersionTest.Operator.allCases.map(\.rawValue)),
                let event = string(fields, "event", at: at), let test = versionTest(fields, at: at)
            else { return nil }
            referencedEvents.insert(ByteKey(event))
            return .donationVersion(event: event, first: name == "firstDonationVersion", test)
        case "appVersion":
            guard let fields = fields(value, at: at, required: [], optional: VersionTest.Operator.allCases.map(\.rawValue)),
                let test = versionTest(fields, at: at)
            else { return nil }
            return .appVersion(test)
        case "rollout":
            return compileRollout(value, at: at)
        case "prerequisite":
            return compilePrerequisite(value, at: at)
        case "display":
            return compileDisplay(value, at: at)
        default:
            error(at, "unknown_operator", "unknown operator '\(name)'")
            return nil
        }
    }

    mutating func boolean(_ object: JSONObject, _ key: String, at path: JSONPointer) -> Bool? {
        guard let value = object[key] else { return nil }
        guard case .bool(let flag) = value else { return wrongType(path.appending(key), "a boolean") }
        return flag
    }

    /// Exactly one of `lt lte eq ne gte gt between`.
    mutating func comparison(_ object: JSONObject, at path: JSONPointer) -> Comparison? {
        let present = Comparison.Operator.allCases.filter { object[$0.rawValue] != nil }
        guard present.count == 1, let op = present.first else {
            error(
                path, present.isEmpty ? "missing_field" : "multiple_operators",
                "exactly one comparison of lt, lte, eq, ne, gte, gt, between is required")
            return nil
        }
        let at = path.appending(op.rawValue)
        if op == .between {
            guard case .array(let bounds) = object["between"]!, bounds.count == 2,
                let low = bounds[0].numberValue?.int, let high = bounds[1].numberValue?.int
            else { return wrongType(at, "[low, high] integers") }
            guard low <= high else {
                error(at, "invalid_range", "between needs low <= high")
                return nil
            }
            return Comparison(.between, low, upper: high)
        }
        guard let number = object[op.rawValue]?.numberValue?.int else { return wrongType(at, "an integer") }
        return Comparison(op, number)
    }

    mutating func versionTest(_ object: JSONObject, at path: JSONPointer) -> VersionTest? {
        let present = VersionTest.Operator.allCases.filter { object[$0.rawValue] != nil }
        guard present.count == 1, let op = present.first else {
            error(path, present.isEmpty ? "missing_field" : "multiple_operators", "exactly one of eq, ne, lt, lte, gt, gte is required")
            return nil
        }
        let at = path.appending(op.rawValue)
        guard case .string(let text) = object[op.rawValue]! else { return wrongType(at, "a version string or \"$appVersion\"") }
        if text == "$appVersion" { return VersionTest(op, .requestAppVersion) }
        guard let version = Version(text) else {
            error(at, "invalid_version", "'\(text)' is not a dotted numeric version")
            return nil
        }
        return VersionTest(op, .literal(version))
    }

    private mutating func compileDateRange(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        guard let fields = fields(value, at: path, required: [], optional: ["from", "to"]) else { return nil }
        guard fields["from"] != nil || fields["to"] != nil else {
            error(path, "missing_field", "dateRange needs 'from', 'to' or both")
            return nil
        }
        let from = fields["from"].map { instant($0, at: path.appending("from")) }
        let to = fields["to"].map { instant($0, at: path.appending("to")) }
        if from == .some(nil) || to == .some(nil) { return nil }
        if let start = from ?? nil, let end = to ?? nil, start > end {
            error(path, "invalid_range", "dateRange 'from' is after 'to'")
            return nil
        }
        return .dateRange(from: from ?? nil, to: to ?? nil)
    }

    private mutating func compileHourIn(_ value: JSONValue, zone: JSONValue?, path: JSONPointer) -> Spec? {
        let at = path.appending("hourIn")
        let (zoneOK, zoneName) = timeZone(zone, at: path.appending("tz"))
        guard case .array(let bounds) = value, bounds.count == 2, let from = bounds[0].numberValue?.int,
            let to = bounds[1].numberValue?.int
        else { return wrongType(at, "[fromHour, toHour] integers") }
        for (index, hour) in [from, to].enumerated() where !(0...23).contains(hour) {
            error(at.appending(index), "hour_out_of_range", "hours are 0 to 23")
            return nil
        }
        return zoneOK ? .hourIn(from: from, to: to, timeZone: zoneName) : nil
    }

    private mutating func compileWeekday(_ value: JSONValue, zone: JSONValue?, path: JSONPointer) -> Spec? {
        let at = path.appending("weekday")
        let (zoneOK, zoneName) = timeZone(zone, at: path.appending("tz"))
        guard case .array(let items) = value, !items.isEmpty else { return wrongType(at, "a non-empty array of ISO weekdays 1-7") }
        var days: Set<Int> = []
        for (index, item) in items.enumerated() {
            guard let day = item.numberValue?.int, (1...7).contains(day) else {
                error(at.appending(index), "weekday_out_of_range", "ISO weekdays are 1 (Monday) to 7 (Sunday)")
                return nil
            }
            days.insert(day)
        }
        return zoneOK ? .weekday(days, timeZone: zoneName) : nil
    }

    private mutating func compileSegments(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        guard case .object(let object) = value, object.count == 1, let mode = object.keys.first, mode == "any" || mode == "all"
        else { return wrongType(path, "{\"any\": [...]} or {\"all\": [...]}") }
        guard case .array(let items) = object[mode]!, !items.isEmpty else {
            error(path.appending(mode), "empty_combinator", "a segment list needs at least one segment")
            return nil
        }
        let names = items.compactMap(\.stringValue)
        guard names.count == items.count else { return wrongType(path.appending(mode), "segment names") }
        return mode == "any" ? .segmentsAny(names) : .segmentsAll(names)
    }

    private mutating func compileAttribute(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        guard let fields = fields(value, at: path, required: ["key"], optional: AttributeTest.operatorNames),
            let key = string(fields, "key", at: path)
        else { return nil }
        let present = AttributeTest.operatorNames.filter { fields[$0] != nil }
        guard present.count == 1, let op = present.first, let operand = fields[op] else {
            error(path, present.isEmpty ? "missing_field" : "multiple_operators", "attr needs exactly one operator")
            return nil
        }
        let at = path.appending(op)
        let test: AttributeTest
        switch op {
        case "exists":
            guard case .bool(let expected) = operand else { return wrongType(at, "a boolean") }
            test = .exists(expected)
        case "eq", "ne":
            test = .equals(operand, negated: op == "ne")
        case "lt", "lte", "gt", "gte":
            guard operand.numberValue != nil || operand.stringValue != nil else { return wrongType(at, "a number or a string") }
            test = .order(AttributeTest.OrderOperator(rawValue: op)!, operand)
        case "in", "notIn":
            guard case .array(let candidates) = operand else { return wrongType(at, "an array") }
            test = .oneOf(candidates, negated: op == "notIn")
        case "contains":
            test = .contains(operand)
        case "startsWith", "endsWith":
            guard case .string(let text) = operand else { return wrongType(at, "a string") }
            test = op == "startsWith" ? .startsWith(text) : .endsWith(text)
        case "matches":
            guard case .string(let source) = operand else {
                error(at, "invalid_pattern", "expected a regular expression")
                return nil
            }
            guard let pattern = Pattern(source) else {
                let reason = if case .failure(let problem) = Pattern.check(source) { problem.message } else { "" }
                error(at, "invalid_pattern", "expected a regular expression: \(reason)")
                return nil
            }
            test = .matches(pattern)
        default:
            let versionOp = VersionTest.Operator(rawValue: String(op.dropFirst(6)).lowercased())!
            guard case .string(let text) = operand, let version = Version(text) else {
                error(at, "invalid_version", "expected a dotted numeric version")
                return nil
            }
            test = .semver(versionOp, version)
        }
        return .attribute(key: key, test)
    }

    private mutating func compileRollout(_ value: JSONValue, at path: JSONPointer) -> Spec? {
        guard let fields = fields(value, at: path, required: ["percent"], optional: ["salt", "by"]) else { return nil }
        guard let percent = fields["percent"]?.numberValue?.double, percent >= 0, percent <= 100,
            (percent * 100).rounded() == percent * 100
        else {
            error(path.appending("percent"), "invalid_percent", "percent is a number from 0 to 100 with at most two decimals")
            return nil
        }
        let salt = string(fields, "salt", at: path) ?? flagKey
        let by = string(fields, "by", at: path)
        return .rollout(basisPoints: Int((percent * 100).rounded()), prefix: salt + "/" + flagKey + "/", by: by == "userId" ? nil : by)
    }
}
