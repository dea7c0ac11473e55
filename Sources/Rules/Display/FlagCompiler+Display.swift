extension FlagCompiler {
    static let displayFields = ["maxCount", "group", "invalidateOn"]

    /// A flag's `display`: `{"maxCount": n ≥ 1, "group": declared name, "invalidateOn": ["actionPerformed", "dismissed"]}`.
    /// Only for flags whose answers are booleans (a `when` flag, or a decision over booleans, which answers its
    /// fallback when held back): TipKit's tips are shown or not. `ok` is false when the field is invalid.
    mutating func compileDisplay(_ value: JSONValue?, valueType: Flag.ValueType) -> (ok: Bool, rule: DisplayRule?) {
        guard let value else { return (true, nil) }
        let at = path.appending("display")
        guard let fields = specs.fields(value, at: at, required: [], optional: Self.displayFields) else { return (false, nil) }
        var ok = true
        if valueType != .boolean {
            specs.error(at, "display_not_boolean", "display accounting is for flags that answer booleans; this one answers \(valueType.rawValue)s")
            ok = false
        }
        var maxCount: Int?
        if let limit = fields["maxCount"] {
            if let count = limit.numberValue?.int, count >= 1 {
                maxCount = count
            } else {
                specs.error(at.appending("maxCount"), "invalid_max_count", "maxCount is an integer of at least 1")
                ok = false
            }
        }
        var group: String?
        if let name = fields["group"] {
            if let text = name.stringValue, specs.display.groups[text] != nil {
                group = text
            } else {
                specs.error(at.appending("group"), "unknown_group", "no group named \(JSONWriter.string(name)) in groups")
                ok = false
            }
        }
        var invalidateOn: Set<DisplayState.Event> = []
        if let events = fields["invalidateOn"] {
            if case .array(let items) = events {
                for (index, item) in items.enumerated() {
                    if let text = item.stringValue, let event = DisplayState.Event(rawValue: text), event != .shown {
                        invalidateOn.insert(event)
                    } else {
                        specs.error(
                            at.appending("invalidateOn").appending(index), "invalid_value",
                            "invalidateOn lists \"actionPerformed\" and \"dismissed\"")
                        ok = false
                    }
                }
            } else {
                specs.error(at.appending("invalidateOn"), "wrong_type", "expected an array of display events")
                ok = false
            }
        }
        return ok ? (true, DisplayRule(maxCount: maxCount, invalidateOn: invalidateOn, group: group)) : (false, nil)
    }
}
