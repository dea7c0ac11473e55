/// The context as JSON (docs/api.md, "Contexts"): what `GET /v1/users/{u}` answers and `POST /v1/evaluate` accepts.
public enum ContextJSON {
    /// A field the inline context got wrong, named as the API reports it (`context.counters.k`).
    public struct FieldError: Error, Equatable, Sendable {
        public let field: String
        public let message: String
        /// Refused for a size limit (`limit_exceeded`) rather than for its shape (`invalid_field`).
        public let isLimit: Bool

        init(field: String, message: String, isLimit: Bool = false) {
            self.field = field
            self.message = message
            self.isLimit = isLimit
        }

        static func limit(_ field: String, _ limit: ContextLimits.Limit, _ value: Int) -> FieldError {
            FieldError(field: field, message: "\(field): " + ContextLimits.describe(limit, value), isLimit: true)
        }
    }

    /// `includeRecent: false` leaves each donation's history out (stream `context` events: sent after every write
    /// and retained for resume, they must not grow with a history of up to a thousand instants per event).
    public static func encode(user: String, _ context: UserContext, includeRecent: Bool = true) -> JSONValue {
        var object: JSONObject = ["user": .string(user)]
        if let launchedAt = context.launchedAt { object["launchedAt"] = .string(ISO8601.format(launchedAt)) }
        if let zone = context.timeZone { object["tz"] = .string(zone) }
        object["counters"] = .object(JSONObject(context.counters.sorted.map { ($0.key, JSONValue.int($0.value)) }))
        object["events"] = .object(JSONObject(context.events.sorted.map { ($0.key, JSONValue.string(ISO8601.format($0.value))) }))
        object["flags"] = .object(JSONObject(context.flags.sorted.map { ($0.key, JSONValue.bool($0.value)) }))
        object["attributes"] = .object(JSONObject(context.attributes.sorted.map { ($0.key, $0.value) }))
        object["segments"] = .array(context.segments.sorted().map(JSONValue.string))
        object["donations"] = .object(JSONObject(context.donations.sorted.map { ($0.key, summary($0.value, includeRecent: includeRecent)) }))
        if !context.triggerFires.isEmpty {
            object["triggers"] = .object(JSONObject(context.triggerFires.sorted.map { ($0.key, JSONValue.string(ISO8601.format($0.value))) }))
        }
        if !context.expiries.isEmpty { object["expires"] = expires(context.expiries) }
        if !context.display.isEmpty { object["display"] = .object(JSONObject(context.display.sorted.map { ($0.key, $0.value.json) })) }
        return .object(object)
    }

    /// `includeRecent: false` gives the short form donation answers carry (count, first, last: docs/api.md,
    /// "Donations"); the history can hold a thousand instants, too many to format on every donation.
    public static func summary(_ summary: DonationSummary, includeRecent: Bool = true) -> JSONValue {
        var object: JSONObject = ["count": .int(summary.count)]
        object["first"] = summary.first.map(mark) ?? .null
        object["last"] = summary.last.map(mark) ?? .null
        if includeRecent { object["recent"] = .array(summary.recent.map { .string(ISO8601.format($0)) }) }
        return .object(object)
    }

    static func mark(_ mark: DonationSummary.Mark) -> JSONValue {
        ["at": .string(ISO8601.format(mark.at)), "appVersion": mark.appVersion.map(JSONValue.string) ?? .null]
    }

    /// Reads an inline context; every field is optional. Unknown fields are errors, so typos do not pass silently.
    /// `limits` holds an inline context to the per-user caps a stored one has, so one request cannot make an
    /// evaluation work on a context no user could have.
    public static func decode(
        _ value: JSONValue, field base: String = "context", limits: ContextLimits = .unlimited
    ) throws(FieldError) -> UserContext {
        guard case .object(let object) = value else { throw FieldError(field: base, message: "\(base) must be an object") }
        var context = UserContext()
        var expires: JSONValue?
        for (key, member) in object {
            let field = base + "." + key
            switch key {
            case "user", "appVersion":
                continue
            case "launchedAt":
                context.launchedAt = try instant(member, field)
            case "tz":
                guard case .string(let zone) = member, TimeZones.isValid(zone) else {
                    throw FieldError(field: field, message: "\(field) must be an IANA time zone")
                }
                context.timeZone = zone
            case "counters":
                for (name, count) in try members(member, field, .counters, limits) {
                    guard let integer = count.numberValue?.int else {
                        throw FieldError(field: field + "." + name, message: "\(field).\(name) must be an integer")
                    }
                    context.counters[name] = integer
                }
            case "events":
                for (name, at) in try members(member, field, .events, limits) { context.events[name] = try instant(at, field + "." + name) }
            case "flags":
                for (name, flag) in try members(member, field, .flags, limits) {
                    guard case .bool(let on) = flag else {
                        throw FieldError(field: field + "." + name, message: "\(field).\(name) must be a boolean")
                    }
                    context.flags[name] = on
                }
            case "attributes":
                let checksSize = limits.maxAttributeValueBytes < .max
                for (name, attribute) in try members(member, field, .attributes, limits) {
                    if checksSize, JSONWriter.write(attribute).count > limits.maxAttributeValueBytes {
                        throw .limit(field + "." + name, .attributeValueBytes, limits.maxAttributeValueBytes)
                    }
                    context.attributes[name] = attribute
                }
            case "segments":
                guard case .array(let items) = member else { throw FieldError(field: field, message: "\(field) must be an array of strings") }
                for (index, item) in items.enumerated() {
                    guard case .string(let segment) = item else {
                        throw FieldError(field: "\(field)[\(index)]", message: "\(field)[\(index)] must be a string")
                    }
                    if segment.utf8.count > limits.maxKeyBytes { throw .limit("\(field)[\(index)]", .keyBytes, limits.maxKeyBytes) }
                    context.segments.insert(segment)
                    if context.segments.count > limits.maxSegments { throw .limit(field, .segments, limits.maxSegments) }
                }
            case "donations":
                for (event, summary) in try members(member, field, .donationEvents, limits) {
                    context.donations[event] = try donation(summary, field + "." + event)
                }
            case "triggers":
                for (name, at) in try members(member, field) { context.triggerFires[name] = try instant(at, field + "." + name) }
            case "expires":
                expires = member
            case "display":
                for (flag, state) in try members(member, field, .flags, limits) {
                    context.display[flag] = try displayState(state, field + "." + flag)
                }
            default:
                throw FieldError(field: field, message: "\(field) is not a context field")
            }
        }
        if let expires { try decodeExpires(expires, field: base + ".expires", into: &context) }
        return context
    }

    static func members(_ value: JSONValue, _ field: String) throws(FieldError) -> JSONObject {
        guard case .object(let object) = value else { throw FieldError(field: field, message: "\(field) must be an object") }
        return object
    }

    /// A context map's members, held to its cap and the key length.
    static func members(_ value: JSONValue, _ field: String, _ limit: ContextLimits.Limit, _ limits: ContextLimits) throws(FieldError) -> JSONObject {
        let object = try members(value, field)
        if object.count > limits[limit] { throw .limit(field, limit, limits[limit]) }
        for key in object.keys where key.utf8.count > limits.maxKeyBytes { throw .limit(field + "." + key, .keyBytes, limits.maxKeyBytes) }
        return object
    }

    static func instant(_ value: JSONValue, _ field: String) throws(FieldError) -> Instant {
        guard case .string(let text) = value, let instant = ISO8601.parse(text) else {
            throw FieldError(field: field, message: "\(field) must be an ISO 8601 date-time")
        }
        return instant
    }

    static func donation(_ value: JSONValue, _ field: String) throws(FieldError) -> DonationSummary {
        let object = try members(value, field)
        var summary = DonationSummary()
        for (key, member) in object {
            switch key {
            case "count":
                guard let count = member.numberValue?.int, count >= 0 else {
                    throw FieldError(field: field + ".count", message: "\(field).count must be a non-negative integer")
                }
                summary.count = count
            case "first", "last":
                if member.isNull { continue }
                let markObject = try members(member, field + "." + key)
                guard let at = markObject["at"] else { throw FieldError(field: field + "." + key + ".at", message: "\(field).\(key).at is required") }
                let version = markObject["appVersion"]?.stringValue
                let mark = DonationSummary.Mark(at: try instant(at, field + "." + key + ".at"), appVersion: version)
                if key == "first" { summary.first = mark } else { summary.last = mark }
            case "recent":
                guard case .array(let items) = member else { throw FieldError(field: field + ".recent", message: "\(field).recent must be an array") }
                let instants = try items.enumerated().map { index, item throws(FieldError) in try instant(item, "\(field).recent[\(index)]") }
                summary.recent = DonationHistory(instants.sorted())
            default:
                throw FieldError(field: field + "." + key, message: "\(field).\(key) is not a donation field")
            }
        }
        if summary.last == nil, let latest = summary.recent.last { summary.last = .init(at: latest, appVersion: nil) }
        return summary
    }
}
