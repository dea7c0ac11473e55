import Rules
import Store

/// A logged action as JSON in the API's own words (docs/api.md, "Context updates"): the inverse of
/// `OperationDecoder` for the ops a client sends, and named ops for what other routes and the clock log (`donate`,
/// `resetDonations`, `erase`, `recordTriggerFire`, `recordDisplay`, `cancelPendingFire`). Expiring values show
/// their resolved `expiresAt`, as the log holds it.
public enum ActionJSON {
    public static func encode(_ action: Action) -> JSONValue {
        switch action {
        case .increment(let counter, let amount): return ["op": "increment", "counter": .string(counter), "by": .int(amount)]
        case .decrement(let counter, let amount): return ["op": "decrement", "counter": .string(counter), "by": .int(amount)]
        case .setCounter(let counter, let value): return ["op": "setCounter", "counter": .string(counter), "value": .int(value)]
        case .resetCounter(let counter): return ["op": "resetCounter", "counter": .string(counter)]
        case .recordEvent(let event, let at): return ["op": "recordEvent", "event": .string(event), "at": instant(at)]
        case .removeEvent(let event): return ["op": "removeEvent", "event": .string(event)]
        case .setFlag(let flag, let value): return ["op": "setFlag", "flag": .string(flag), "value": .bool(value)]
        case .toggleFlag(let flag): return ["op": "toggleFlag", "flag": .string(flag)]
        case .setAttribute(let key, let value): return ["op": "setAttribute", "key": .string(key), "value": value]
        case .removeAttribute(let key): return ["op": "removeAttribute", "key": .string(key)]
        case .addSegment(let segment): return ["op": "addSegment", "segment": .string(segment)]
        case .removeSegment(let segment): return ["op": "removeSegment", "segment": .string(segment)]
        case .setTimeZone(let zone): return ["op": "setTimeZone", "tz": .string(zone)]
        case .setLaunchedAt(let at): return ["op": "setLaunchedAt", "at": instant(at)]
        case .clear(let scope): return ["op": "clear", "scope": .string(scope.rawValue)]
        case .donate(let event, let at, let appVersion):
            var object: JSONObject = ["op": "donate", "event": .string(event), "at": instant(at)]
            if let appVersion { object["appVersion"] = .string(appVersion) }
            return .object(object)
        case .resetDonations(let event): return ["op": "resetDonations", "event": .string(event)]
        case .erase: return ["op": "erase"]
        case .recordTriggerFire(let trigger, let at): return ["op": "recordTriggerFire", "trigger": .string(trigger), "at": instant(at)]
        case .setExpiringAttribute(let key, let value, let expiresAt):
            return ["op": "setAttribute", "key": .string(key), "value": value, "expiresAt": instant(expiresAt)]
        case .setExpiringFlag(let flag, let value, let expiresAt):
            return ["op": "setFlag", "flag": .string(flag), "value": .bool(value), "expiresAt": instant(expiresAt)]
        case .addExpiringSegment(let segment, let expiresAt):
            return ["op": "addSegment", "segment": .string(segment), "expiresAt": instant(expiresAt)]
        case .recordDisplay(let flag, let event, let at, _, _):
            return ["op": "recordDisplay", "flag": .string(flag), "event": .string(event.rawValue), "at": instant(at)]
        case .cancelPendingFire(let trigger, let due):
            return ["op": "cancelPendingFire", "trigger": .string(trigger), "due": instant(due)]
        }
    }

    private static func instant(_ value: Instant) -> JSONValue { .string(ISO8601.format(value)) }
}
