import Engine
import HTTP
import HTTPServer
import Rules
import Store
/// Turns `{"ops": [...]}` (docs/api.md, "Context updates") into actions, naming the exact field at fault (`ops[2].by`).
enum OperationDecoder {
    static func decode(_ body: JSONValue, now: Instant) throws(APIError) -> [Action] {
        guard case .object(let object) = body else { throw APIError.invalidField("ops", "the body must be an object with an 'ops' array") }
        for key in object.keys where key != "ops" { throw APIError.invalidField(key, "\(key) is not a field of a context update") }
        guard case .array(let items)? = object["ops"] else { throw APIError.invalidField("ops", "ops must be an array of operations") }
        guard !items.isEmpty else { throw APIError.invalidField("ops", "ops must not be empty") }
        guard items.count <= 1000 else { throw APIError.invalidField("ops", "ops holds at most 1000 operations") }
        var actions: [Action] = []
        for (index, item) in items.enumerated() { actions.append(try decode(item, at: "ops[\(index)]", now: now)) }
        return actions
    }

    static let fields: [String: [String]] = [
        "increment": ["counter", "by"], "decrement": ["counter", "by"], "setCounter": ["counter", "value"],
        "resetCounter": ["counter"], "recordEvent": ["event", "at"], "removeEvent": ["event"], "setFlag": ["flag", "value"],
        "toggleFlag": ["flag"], "setAttribute": ["key", "value"], "removeAttribute": ["key"], "addSegment": ["segment"],
        "removeSegment": ["segment"], "setTimeZone": ["tz"], "setLaunchedAt": ["at"], "clear": ["scope"],
    ]

    static func decode(_ item: JSONValue, at path: String, now: Instant) throws(APIError) -> Action {
        guard case .object(let op) = item else { throw APIError.invalidField(path, "\(path) must be an object") }
        guard case .string(let name)? = op["op"] else { throw APIError.invalidField(path + ".op", "\(path).op must name an operation") }
        guard let allowed = fields[name] else {
            throw APIError.invalidField(path + ".op", "\(path).op '\(name)' is not one of \(fields.keys.sorted().joined(separator: ", "))")
        }
        for key in op.keys where key != "op" && !allowed.contains(key) {
            throw APIError.invalidField("\(path).\(key)", "\(path).\(key) is not a field of \(name)")
        }
        let reader = FieldReader(object: op, path: path)
        switch name {
        case "increment": return .increment(counter: try reader.key("counter"), by: try reader.integer("by", default: 1))
        case "decrement":
            let amount = try reader.integer("by", default: 1)
            guard amount >= 0 else { throw APIError.invalidField(path + ".by", "\(path).by must not be negative") }
            return .decrement(counter: try reader.key("counter"), by: amount)
        case "setCounter": return .setCounter(counter: try reader.key("counter"), value: try reader.integer("value"))
        case "resetCounter": return .resetCounter(counter: try reader.key("counter"))
        case "recordEvent": return .recordEvent(event: try reader.key("event"), at: try reader.instant("at") ?? now)
        case "removeEvent": return .removeEvent(event: try reader.key("event"))
        case "setFlag": return .setFlag(flag: try reader.key("flag"), value: try reader.boolean("value"))
        case "toggleFlag": return .toggleFlag(flag: try reader.key("flag"))
        case "setAttribute":
            guard let value = op["value"] else { throw APIError.invalidField(path + ".value", "\(path).value is required") }
            return .setAttribute(key: try reader.key("key"), value: value)
        case "removeAttribute": return .removeAttribute(key: try reader.key("key"))
        case "addSegment": return .addSegment(try reader.key("segment"))
        case "removeSegment": return .removeSegment(try reader.key("segment"))
        case "setTimeZone":
            let zone = try reader.key("tz")
            guard TimeZones.isValid(zone) else { throw APIError.invalidField(path + ".tz", "\(path).tz '\(zone)' is not an IANA time zone") }
            return .setTimeZone(zone)
        case "setLaunchedAt":
            guard let at = try reader.instant("at") else { throw APIError.invalidField(path + ".at", "\(path).at is required") }
            return .setLaunchedAt(at)
        default:
            let scope = try reader.key("scope")
            guard let parsed = Action.ClearScope(rawValue: scope) else {
                throw APIError.invalidField(path + ".scope", "\(path).scope must be one of counters, events, flags, attributes, segments, all")
            }
            return .clear(parsed)
        }
    }
}

/// Typed reads of one operation's fields, each error naming `ops[i].field`.
struct FieldReader {
    let object: JSONObject
    let path: String

    /// A counter, event, flag, attribute or segment name. Its length is a configurable limit (`limits.maxKeyBytes`),
    /// which the store enforces on the write (422 `limit_exceeded`); here only its shape is checked.
    func key(_ name: String) throws(APIError) -> String {
        guard case .string(let text)? = object[name] else { throw APIError.invalidField("\(path).\(name)", "\(path).\(name) must be a string") }
        guard Identifier.isValidKey(text) else {
            throw APIError.invalidField("\(path).\(name)", "\(path).\(name) must be non-empty UTF-8 without control characters")
        }
        return text
    }

    func integer(_ name: String, default fallback: Int? = nil) throws(APIError) -> Int {
        guard let value = object[name] else {
            if let fallback { return fallback }
            throw APIError.invalidField("\(path).\(name)", "\(path).\(name) is required")
        }
        guard let number = value.numberValue, number.isIntegerLiteral, let integer = number.int else {
            throw APIError.invalidField("\(path).\(name)", "\(path).\(name) must be an integer")
        }
        return integer
    }

    func boolean(_ name: String) throws(APIError) -> Bool {
        guard case .bool(let value)? = object[name] else { throw APIError.invalidField("\(path).\(name)", "\(path).\(name) must be a boolean") }
        return value
    }

    func instant(_ name: String) throws(APIError) -> Instant? {
        guard let value = object[name] else { return nil }
        guard case .string(let text) = value, let instant = ISO8601.parse(text) else {
            throw APIError.invalidField("\(path).\(name)", "\(path).\(name) must be an ISO 8601 date-time")
        }
        return instant
    }
}

/// User ids: 1–256 bytes of UTF-8, no control characters (README, "Users and keys"). Keys (counter, event, flag,
/// attribute and segment names) have the same shape, but their length limit is configurable and checked by the store.
enum Identifier {
    static func isValid(_ text: String) -> Bool {
        text.utf8.count <= 256 && isValidKey(text)
    }

    static func isValidKey(_ text: String) -> Bool {
        // Control characters are Unicode's Cc: C0, DEL and C1 (U+0080–U+009F).
        !text.utf8.isEmpty && !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}
