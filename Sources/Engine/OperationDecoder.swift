import Rules
import Store

/// Turns `{"ops": [...]}` (docs/api.md, "Context updates") into actions, naming the exact field at fault (`ops[2].by`).
public enum OperationDecoder {
    public static func decode(_ body: JSONValue, now: Instant) throws(InvalidField) -> [Action] {
        guard case .object(let object) = body else { throw InvalidField("ops", "the body must be an object with an 'ops' array") }
        for key in object.keys where key != "ops" { throw InvalidField(key, "\(key) is not a field of a context update") }
        guard case .array(let items)? = object["ops"] else { throw InvalidField("ops", "ops must be an array of operations") }
        guard !items.isEmpty else { throw InvalidField("ops", "ops must not be empty") }
        guard items.count <= 1000 else { throw InvalidField("ops", "ops holds at most 1000 operations") }
        var actions: [Action] = []
        for (index, item) in items.enumerated() { actions.append(try decode(item, at: "ops[\(index)]", now: now)) }
        return actions
    }

    public static let fields: [String: [String]] = [
        "increment": ["counter", "by"], "decrement": ["counter", "by"], "setCounter": ["counter", "value"],
        "resetCounter": ["counter"], "recordEvent": ["event", "at"], "removeEvent": ["event"], "setFlag": ["flag", "value", "ttl", "expiresAt"],
        "toggleFlag": ["flag"], "setAttribute": ["key", "value", "ttl", "expiresAt"], "removeAttribute": ["key"],
        "addSegment": ["segment", "ttl", "expiresAt"],
        "removeSegment": ["segment"], "setTimeZone": ["tz"], "setLaunchedAt": ["at"], "clear": ["scope"]
    ]

    public static func decode(_ item: JSONValue, at path: String, now: Instant) throws(InvalidField) -> Action {
        guard case .object(let op) = item else { throw InvalidField(path, "\(path) must be an object") }
        guard case .string(let name)? = op["op"] else { throw InvalidField(path + ".op", "\(path).op must name an operation") }
        guard let allowed = fields[name] else {
            throw InvalidField(path + ".op", "\(path).op '\(name)' is not one of \(fields.keys.sorted().joined(separator: ", "))")
        }
        for key in op.keys where key != "op" && !allowed.contains(key) {
            throw InvalidField("\(path).\(key)", "\(path).\(key) is not a field of \(name)")
        }
        let reader = FieldReader(object: op, path: path)
        switch name {
        case "increment": return .increment(counter: try reader.key("counter"), by: try reader.integer("by", default: 1))
        case "decrement":
            let amount = try reader.integer("by", default: 1)
            guard amount >= 0 else { throw InvalidField(path + ".by", "\(path).by must not be negative") }
            return .decrement(counter: try reader.key("counter"), by: amount)
        case "setCounter": return .setCounter(counter: try reader.key("counter"), value: try reader.integer("value"))
        case "resetCounter": return .resetCounter(counter: try reader.key("counter"))
        case "recordEvent": return .recordEvent(event: try reader.key("event"), at: try reader.instant("at") ?? now)
        case "removeEvent": return .removeEvent(event: try reader.key("event"))
        case "setFlag":
            let (flag, value) = (try reader.key("flag"), try reader.boolean("value"))
            if let expiresAt = try expiry(reader, now: now) { return .setExpiringFlag(flag: flag, value: value, expiresAt: expiresAt) }
            return .setFlag(flag: flag, value: value)
        case "toggleFlag": return .toggleFlag(flag: try reader.key("flag"))
        case "setAttribute":
            guard let value = op["value"] else { throw InvalidField(path + ".value", "\(path).value is required") }
            let key = try reader.key("key")
            if let expiresAt = try expiry(reader, now: now) { return .setExpiringAttribute(key: key, value: value, expiresAt: expiresAt) }
            return .setAttribute(key: key, value: value)
        case "removeAttribute": return .removeAttribute(key: try reader.key("key"))
        case "addSegment":
            let segment = try reader.key("segment")
            if let expiresAt = try expiry(reader, now: now) { return .addExpiringSegment(segment, expiresAt: expiresAt) }
            return .addSegment(segment)
        case "removeSegment": return .removeSegment(try reader.key("segment"))
        case "setTimeZone":
            let zone = try reader.key("tz")
            guard TimeZones.isValid(zone) else { throw InvalidField(path + ".tz", "\(path).tz '\(zone)' is not an IANA time zone") }
            return .setTimeZone(zone)
        case "setLaunchedAt":
            guard let at = try reader.instant("at") else { throw InvalidField(path + ".at", "\(path).at is required") }
            return .setLaunchedAt(at)
        default:
            let scope = try reader.key("scope")
            guard let parsed = Action.ClearScope(rawValue: scope) else {
                throw InvalidField(path + ".scope", "\(path).scope must be one of counters, events, flags, attributes, segments, all")
            }
            return .clear(parsed)
        }
    }
}
