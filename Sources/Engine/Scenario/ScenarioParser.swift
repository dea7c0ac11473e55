import Rules

/// Reads a scenario document into a `Scenario`, checking everything a run would otherwise trip on: unknown fields,
/// wrong types, bad ids, ops, durations and instants, a clock that would go backwards, and every rule set named
/// (through `loadRules`, which resolves a path against the scenario's folder or compiles an inline set). The first
/// problem is thrown with its JSON path.
public struct ScenarioParser {
    /// Loads the rule set a `rules` or `reload` value names: a path (relative to the scenario) or an inline set.
    public typealias RuleLoader = (_ value: JSONValue, _ path: JSONPointer) throws(ScenarioError) -> RuleSet

    /// Bounds on what one file may ask for: a scenario is input too.
    public static let maxSteps = 10_000
    public static let maxTimes = 10_000
    public static let maxConfigurations = 100
    /// Actions a whole file may run, each donation of a `times` counted: `times` is bounded per action, and 600
    /// actions of 10 000 donations in one step (28 KB) took 25 s and 1.8 GB (found in review).
    public static let maxActions = 1_000_000

    let file: String
    let loadRules: RuleLoader
    private var mentioned: [String] = []
    /// Actions counted so far against `maxActions`.
    private var actionCount = 0
    private var mentionedSet: Set<ByteKey> = []

    public init(file: String, loadRules: @escaping RuleLoader) {
        self.file = file
        self.loadRules = loadRules
    }

    public static func parse(_ document: JSONValue, file: String, loadRules: @escaping RuleLoader) throws(ScenarioError) -> Scenario {
        var parser = ScenarioParser(file: file, loadRules: loadRules)
        return try parser.scenario(document)
    }

    private mutating func scenario(_ document: JSONValue) throws(ScenarioError) -> Scenario {
        let root = JSONPointer()
        let top = try object(document, at: root, allowed: ["name", "description", "start", "tz", "rules", "users", "configurations", "steps"])
        let name = try string(top, "name", at: root) ?? defaultName
        guard let startText = try string(top, "start", at: root) else {
            throw fail(root.appending("start"), "start is required (an ISO 8601 instant)")
        }
        guard let start = ISO8601.parse(startText) else { throw fail(root.appending("start"), "start must be an ISO 8601 instant") }
        let zone = try timeZone(top, "tz", at: root)
        guard let rulesValue = top["rules"] else { throw fail(root.appending("rules"), "rules is required (a path or an inline rule set)") }
        let rules = try loadRules(rulesValue, root.appending("rules"))

        var users: [Scenario.User] = []
        if let value = top["users"] {
            let path = root.appending("users")
            guard case .object(let listed) = value else { throw fail(path, "users must be an object of user id → context") }
            for (id, contextValue) in listed {
                let userPath = path.appending(id)
                try checkUser(id, at: userPath)
                guard case .object(var context) = contextValue else { throw fail(userPath, "a user's context must be an object") }
                if context["launchedAt"] == nil { context["launchedAt"] = .string(ISO8601.format(start)) }
                try checkContext(context, at: userPath)
                users.append(Scenario.User(id: id, context: context))
                mention(id)
            }
        }

        var configurations: [Scenario.Configuration] = []
        if let value = top["configurations"] {
            let path = root.appending("configurations")
            guard case .array(let items) = value, !items.isEmpty, items.count <= Self.maxConfigurations else {
                throw fail(path, "configurations must be a non-empty array of at most \(Self.maxConfigurations) objects")
            }
            var names: Set<String> = []
            for (index, item) in items.enumerated() {
                let itemPath = path.appending(index)
                let fields = try object(item, at: itemPath, allowed: ["name", "tz", "appVersion", "context"])
                let name = try string(fields, "name", at: itemPath) ?? "configuration \(index + 1)"
                guard names.insert(name).inserted else { throw fail(itemPath.appending("name"), "configuration '\(name)' is named twice") }
                var context: JSONObject?
                if let contextValue = fields["context"] {
                    guard case .object(let object) = contextValue else { throw fail(itemPath.appending("context"), "context must be an object") }
                    try checkContext(object, at: itemPath.appending("context"))
                    context = object
                }
                configurations.append(
                    Scenario.Configuration(
                        name: name, tz: try timeZone(fields, "tz", at: itemPath), appVersion: try appVersion(fields, at: itemPath),
                        context: context))
            }
        } else {
            configurations = [Scenario.Configuration(name: "default", tz: nil, appVersion: nil, context: nil)]
        }

        let stepsPath = root.appending("steps")
        guard case .array(let items)? = top["steps"], !items.isEmpty, items.count <= Self.maxSteps else {
            throw fail(stepsPath, "steps must be a non-empty array of at most \(Self.maxSteps) steps")
        }
        var steps: [Scenario.Step] = []
        var now = start
        var stepNames: Set<String> = []
        for (index, item) in items.enumerated() {
            let step = try self.step(item, at: stepsPath.appending(index), index: index, now: &now)
            guard stepNames.insert(step.name).inserted else { throw fail(step.path.appending("name"), "step '\(step.name)' is named twice") }
            steps.append(step)
        }
        return Scenario(
            name: name, file: file, start: start, tz: zone, rules: rules, users: users, mentionedUsers: mentioned, configurations: configurations,
            steps: steps)
    }

    private var defaultName: String {
        let base = file.split(separator: "/").last.map(String.init) ?? file
        return base.hasSuffix(".json") ? String(base.dropLast(5)) : base
    }

    // MARK: - Steps

    private mutating func step(_ value: JSONValue, at path: JSONPointer, index: Int, now: inout Instant) throws(ScenarioError) -> Scenario.Step {
        let fields = try object(value, at: path, allowed: ["name", "description", "advance", "at", "do", "expect", "snapshot"])
        let name = try string(fields, "name", at: path) ?? "step \(index + 1)"
        var move: Scenario.Move?
        if let advance = fields["advance"] {
            guard fields["at"] == nil else { throw fail(path, "a step moves the clock by 'advance' or to 'at', not both") }
            guard let milliseconds = DurationText.parse(advance) else {
                throw fail(path.appending("advance"), "advance is a duration like \"30s\", \"15m\", \"2h\", \"3d\", \"1w\" or a number of seconds")
            }
            move = .advance(milliseconds)
            now = now + milliseconds
        } else if fields["at"] != nil {
            guard let text = try string(fields, "at", at: path), let instant = ISO8601.parse(text) else {
                throw fail(path.appending("at"), "at must be an ISO 8601 instant")
            }
            guard instant >= now else {
                throw fail(path.appending("at"), "at \(text) is before the clock (\(ISO8601.format(now))): the clock never goes backwards")
            }
            move = .at(instant)
            now = instant
        }
        var actions: [Scenario.StepAction] = []
        if let value = fields["do"] {
            guard case .array(let items) = value else { throw fail(path.appending("do"), "do must be an array of actions") }
            for (index, item) in items.enumerated() { actions.append(try action(item, at: path.appending("do").appending(index), now: now)) }
        }
        var expectations: [Scenario.Expectation] = []
        if let value = fields["expect"] {
            guard case .array(let items) = value else { throw fail(path.appending("expect"), "expect must be an array of assertions") }
            for (index, item) in items.enumerated() {
                expectations.append(try expectation(item, at: path.appending("expect").appending(index)))
            }
        }
        var snapshot = false
        if let value = fields["snapshot"] {
            guard case .bool(let flag) = value else { throw fail(path.appending("snapshot"), "snapshot must be a boolean") }
            snapshot = flag
        }
        return Scenario.Step(name: name, path: path, move: move, actions: actions, expectations: expectations, snapshot: snapshot)
    }

    static let actionKinds = ["donate", "ops", "op", "reset", "erase", "reload", "display"]

    private mutating func action(_ value: JSONValue, at path: JSONPointer, now: Instant) throws(ScenarioError) -> Scenario.StepAction {
        let action = try parseAction(value, at: path, now: now)
        if case .donate(_, _, let times, _) = action.kind { actionCount += times } else { actionCount += 1 }
        guard actionCount <= Self.maxActions else {
            throw fail(path, "the file asks for more than \(Self.maxActions) actions (each donation of a `times` counts)")
        }
        return action
    }

    private mutating func parseAction(_ value: JSONValue, at path: JSONPointer, now: Instant) throws(ScenarioError) -> Scenario.StepAction {
        guard case .object(let fields) = value else { throw fail(path, "an action must be an object") }
        let kinds = Self.actionKinds.filter { fields[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first else {
            throw fail(path, "an action has exactly one of: donate, ops (or one inline op), reset, erase, reload, display")
        }
        switch kind {
        case "donate":
            try only(fields, ["donate", "user", "times", "appVersion", "payload"], at: path)
            let event = try key(fields, "donate", at: path)
            let user = try requiredUser(fields, at: path)
            var times = 1
            if let value = fields["times"] {
                guard let count = value.numberValue?.int, value.numberValue?.isIntegerLiteral == true, (1...Self.maxTimes).contains(count) else {
                    throw fail(path.appending("times"), "times must be an integer from 1 to \(Self.maxTimes)")
                }
                times = count
            }
            if let payload = fields["payload"], payload.objectValue == nil { throw fail(path.appending("payload"), "payload must be an object") }
            return Scenario.StepAction(
                path: path, kind: .donate(user: user, event: event, times: times, appVersion: try appVersion(fields, at: path)))
        case "ops":
            try only(fields, ["ops", "user"], at: path)
            let user = try requiredUser(fields, at: path)
            guard case .array(let ops)? = fields["ops"] else { throw fail(path.appending("ops"), "ops must be an array of operations") }
            try checkOps(ops, at: path, field: "ops", now: now)
            return Scenario.StepAction(path: path, kind: .ops(user: user, ops))
        case "op":
            let user = try requiredUser(fields, at: path)
            var op = fields
            op["user"] = nil
            try checkOps([.object(op)], at: path, field: nil, now: now)
            return Scenario.StepAction(path: path, kind: .ops(user: user, [.object(op)]))
        case "reset":
            try only(fields, ["reset", "user"], at: path)
            return Scenario.StepAction(path: path, kind: .reset(user: try requiredUser(fields, at: path), event: try key(fields, "reset", at: path)))
        case "erase":
            try only(fields, ["erase"], at: path)
            guard case .string(let user)? = fields["erase"] else { throw fail(path.appending("erase"), "erase names a user id") }
            try checkUser(user, at: path.appending("erase"))
            mention(user)
            return Scenario.StepAction(path: path, kind: .erase(user: user))
        case "display":
            try only(fields, ["display", "user", "event"], at: path)
            let flag = try key(fields, "display", at: path)
            guard let text = fields["event"]?.stringValue, let event = DisplayState.Event(rawValue: text) else {
                throw fail(path.appending("event"), "event is \"shown\", \"dismissed\" or \"actionPerformed\"")
            }
            return Scenario.StepAction(path: path, kind: .display(user: try requiredUser(fields, at: path), flag: flag, event: event))
        default:
            try only(fields, ["reload"], at: path)
            return Scenario.StepAction(path: path, kind: .reload(try loadRules(fields["reload"]!, path.appending("reload"))))
        }
    }

    /// Decodes the ops as the API would, so a bad op is reported here with its path and not in the middle of a run.
    private func checkOps(_ ops: [JSONValue], at path: JSONPointer, field: String?, now: Instant) throws(ScenarioError) {
        guard !ops.isEmpty, ops.count <= 1000 else { throw fail(path.appending(field ?? "op"), "a batch holds 1 to 1000 operations") }
        for (index, op) in ops.enumerated() {
            let opPath = field.map { path.appending($0).appending(index) } ?? path
            do throws(InvalidField) {
                _ = try OperationDecoder.decode(op, at: field.map { "\($0)[\(index)]" } ?? "op", now: now)
            } catch {
                throw fail(opPath, error.message)
            }
        }
    }

    // MARK: - Assertions

    static let storedKinds = Scenario.StoredValue.allCases.map(\.rawValue)

    private mutating func expectation(_ value: JSONValue, at path: JSONPointer) throws(ScenarioError) -> Scenario.Expectation {
        guard case .object(let fields) = value else { throw fail(path, "an assertion must be an object") }
        let user = try requiredUser(fields, at: path)
        let given = try string(fields, "label", at: path)
        let kinds = (["flag", "fired", "events"] + Self.storedKinds).filter { fields[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first else {
            throw fail(path, "an assertion checks exactly one of: flag, fired, events, counter, event, attribute, segment, donations, display")
        }
        let check: Scenario.Expectation.Check
        var label: String
        switch kind {
        case "flag":
            try only(fields, ["flag", "user", "label", "equals", "variant", "reason", "matched", "validUntil"], at: path)
            let key = try self.key(fields, "flag", at: path)
            var checks: [Scenario.FlagField] = []
            var described: [String] = []
            if let value = fields["equals"] {
                checks.append(.equals(value))
                described.append("equals \(JSONWriter.string(value))")
            }
            if let value = fields["variant"] {
                guard value.stringValue != nil || value == .null else { throw fail(path.appending("variant"), "variant must be a string or null") }
                checks.append(.variant(value))
                described.append("variant \(JSONWriter.string(value))")
            }
            if let value = fields["reason"] {
                guard let reason = value.stringValue, Evaluation.Reason(rawValue: reason) != nil else {
                    throw fail(
                        path.appending("reason"), "reason must be one of STATIC, TARGETING_MATCH, DEFAULT, DISABLED, SPLIT, ERROR, INVALIDATED")
                }
                checks.append(.reason(reason))
                described.append("reason \(reason)")
            }
            if let value = fields["matched"] {
                guard case .bool(let matched) = value else { throw fail(path.appending("matched"), "matched must be a boolean") }
                checks.append(.matched(matched))
                described.append("matched \(matched)")
            }
            if let value = fields["validUntil"] {
                if value == .null {
                    checks.append(.validUntil(nil))
                } else {
                    guard let text = value.stringValue, let instant = ISO8601.parse(text) else {
                        throw fail(path.appending("validUntil"), "validUntil must be an ISO 8601 instant or null")
                    }
                    checks.append(.validUntil(instant))
                }
                described.append("validUntil \(JSONWriter.string(value))")
            }
            guard !checks.isEmpty else { throw fail(path, "a flag assertion checks at least one of: equals, variant, reason, matched, validUntil") }
            check = .flag(key: key, fields: checks)
            label = "flag \(key) for \(user): " + described.joined(separator: ", ")
        case "fired":
            try only(fields, ["fired", "user", "label", "times", "equals"], at: path)
            let trigger = try self.key(fields, "fired", at: path)
            var times: Int?
            if let value = fields["times"] {
                guard let count = value.numberValue?.int, value.numberValue?.isIntegerLiteral == true, count >= 0 else {
                    throw fail(path.appending("times"), "times must be a non-negative integer")
                }
                times = count
            }
            var expected = true
            if let value = fields["equals"] {
                guard case .bool(let flag) = value else { throw fail(path.appending("equals"), "equals must be a boolean") }
                expected = flag
            }
            if !expected, let times, times > 0 { throw fail(path.appending("times"), "times contradicts equals: false") }
            check = .fired(trigger: trigger, times: times, expected: expected)
            label = "\(trigger) " + (!expected || times == 0 ? "not fired" : times.map { "fired \($0) times" } ?? "fired") + " for \(user)"
        case "events":
            try only(fields, ["events", "user", "label"], at: path)
            guard case .array(let items)? = fields["events"] else { throw fail(path.appending("events"), "events must be an array of event objects") }
            var events: [JSONObject] = []
            for (index, item) in items.enumerated() {
                guard case .object(let event) = item else { throw fail(path.appending("events").appending(index), "each event is an object") }
                events.append(event)
            }
            check = .events(events)
            label = "stream of \(user): \(events.count) events"
        default:
            try only(fields, [kind, "user", "label", "equals"], at: path)
            let key = try self.key(fields, kind, at: path)
            guard let equals = fields["equals"] else { throw fail(path.appending("equals"), "equals is required") }
            if kind == "segment", equals.boolValue == nil { throw fail(path.appending("equals"), "a segment assertion's equals is true or false") }
            check = .stored(Scenario.StoredValue(rawValue: kind)!, key: key, equals: equals)
            label = "\(kind) \(key) of \(user) equals \(JSONWriter.string(equals))"
        }
        if let given { label = given }
        return Scenario.Expectation(label: label, path: path, user: user, check: check)
    }

    // MARK: - Fields

    private func fail(_ path: JSONPointer, _ message: String) -> ScenarioError {
        ScenarioError(file: file, path: path, message: message)
    }

    private func object(_ value: JSONValue, at path: JSONPointer, allowed: [String]) throws(ScenarioError) -> JSONObject {
        guard case .object(let fields) = value else { throw fail(path, "expected an object") }
        try only(fields, allowed, at: path)
        return fields
    }

    private func only(_ fields: JSONObject, _ allowed: [String], at path: JSONPointer) throws(ScenarioError) {
        for key in fields.keys where !allowed.contains(key) {
            throw fail(path.appending(key), "'\(key)' is not a field here (expected one of: \(allowed.joined(separator: ", ")))")
        }
    }

    private func string(_ fields: JSONObject, _ name: String, at path: JSONPointer) throws(ScenarioError) -> String? {
        guard let value = fields[name] else { return nil }
        guard case .string(let text) = value else { throw fail(path.appending(name), "\(name) must be a string") }
        return text
    }

    private func key(_ fields: JSONObject, _ name: String, at path: JSONPointer) throws(ScenarioError) -> String {
        guard let text = try string(fields, name, at: path), Identifier.isValidKey(text), text.utf8.count <= 256 else {
            throw fail(path.appending(name), "\(name) must be a non-empty name of at most 256 bytes without control characters")
        }
        return text
    }

    private func timeZone(_ fields: JSONObject, _ name: String, at path: JSONPointer) throws(ScenarioError) -> String? {
        guard let zone = try string(fields, name, at: path) else { return nil }
        guard TimeZones.isValid(zone) else { throw fail(path.appending(name), "'\(zone)' is not an IANA time zone") }
        return zone
    }

    /// An app version the daemon would accept: it answers 400 to any other, so a run with one tested nothing it serves.
    private func appVersion(_ fields: JSONObject, at path: JSONPointer) throws(ScenarioError) -> String? {
        guard let text = try string(fields, "appVersion", at: path) else { return nil }
        guard Version.isValid(text) else {
            throw fail(
                path.appending("appVersion"), "appVersion must be a dotted numeric version such as \"1.4.2\", at most \(Version.maxBytes) bytes")
        }
        return text
    }

    private mutating func requiredUser(_ fields: JSONObject, at path: JSONPointer) throws(ScenarioError) -> String {
        guard let user = try string(fields, "user", at: path) else { throw fail(path.appending("user"), "user is required") }
        try checkUser(user, at: path.appending("user"))
        mention(user)
        return user
    }

    private func checkUser(_ id: String, at path: JSONPointer) throws(ScenarioError) {
        guard Identifier.isValid(id) else { throw fail(path, "a user id is 1 to 256 bytes of UTF-8 without control characters") }
    }

    private func checkContext(_ context: JSONObject, at path: JSONPointer) throws(ScenarioError) {
        do throws(ContextJSON.FieldError) {
            _ = try ContextJSON.decode(.object(context), field: "context")
        } catch {
            throw fail(path, error.message)
        }
    }

    private mutating func mention(_ user: String) {
        if mentionedSet.insert(ByteKey(user)).inserted { mentioned.append(user) }
    }
}
