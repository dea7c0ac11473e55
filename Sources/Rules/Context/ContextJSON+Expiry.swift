extension ContextJSON {
    /// `{"attributes": {k: ISO}, "flags": {...}, "segments": {...}}`: each pending expiry, the sections with none
    /// left out. `GET /v1/users/{u}` shows it as `expires`, and an inline context may carry it back.
    public static func expires(_ expiries: ValueExpiries) -> JSONValue {
        var object = JSONObject()
        for kind in ValueExpiries.Kind.allCases {
            let entries = expiries.sorted.filter { $0.kind == kind }
            guard !entries.isEmpty else { continue }
            object[kind.section] = .object(JSONObject(entries.map { ($0.key, JSONValue.string(ISO8601.format($0.at))) }))
        }
        return .object(object)
    }

    /// Reads an inline context's `expires` once its values are read: every expiry must name a value the same
    /// context holds (an expiry of nothing could only mislead `validUntil`).
    static func decodeExpires(_ value: JSONValue, field: String, into context: inout UserContext) throws(FieldError) {
        for (section, member) in try members(value, field) {
            guard let kind = ValueExpiries.Kind.allCases.first(where: { $0.section == section }) else {
                throw FieldError(field: field + "." + section, message: "\(field).\(section) is not attributes, flags or segments")
            }
            for (key, at) in try members(member, field + "." + section) {
                let name = field + "." + section + "." + key
                guard context.holds(kind, key) else {
                    throw FieldError(field: name, message: "\(name) names no value of context.\(section)")
                }
                context.expiries[kind, key] = try instant(at, name)
            }
        }
    }
}
