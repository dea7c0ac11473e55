extension ContextJSON {
    /// One flag's display state as `GET /v1/users/{u}` answers it, read back (`POST /v1/evaluate`, scenario users):
    /// `{"shownCount": 1, "firstShown": ISO, "lastShown": ISO, "invalidated": {"reason": "...", "at": ISO} | null}`.
    static func displayState(_ value: JSONValue, _ field: String) throws(FieldError) -> DisplayState {
        var state = DisplayState()
        for (key, member) in try members(value, field) {
            let at = field + "." + key
            switch key {
            case "shownCount":
                guard let count = member.numberValue?.int, count >= 0 else {
                    throw FieldError(field: at, message: "\(at) must be a non-negative integer")
                }
                state.shownCount = count
            case "firstShown", "lastShown":
                if member.isNull { continue }
                let instant = try instant(member, at)
                if key == "firstShown" { state.firstShown = instant } else { state.lastShown = instant }
            case "invalidated":
                if member.isNull { continue }
                let object = try members(member, at)
                guard let text = object["reason"]?.stringValue, let reason = DisplayState.InvalidationReason(rawValue: text) else {
                    throw FieldError(field: at + ".reason", message: "\(at).reason must be actionPerformed, dismissed or displayCountExceeded")
                }
                guard let when = object["at"] else { throw FieldError(field: at + ".at", message: "\(at).at is required") }
                for extra in object.keys where extra != "reason" && extra != "at" {
                    throw FieldError(field: at + "." + extra, message: "\(at).\(extra) is not a field of an invalidation")
                }
                state.invalidated = DisplayState.Invalidation(reason: reason, at: try instant(when, at + ".at"))
            default:
                throw FieldError(field: at, message: "\(at) is not a display field")
            }
        }
        return state
    }
}
