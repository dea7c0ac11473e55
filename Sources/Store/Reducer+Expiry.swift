import Rules

extension Reducer {
    /// Gives a value just written its expiry. One whose expiry is not after the write's instant is expired
    /// already: it reads as missing at once, so it is not kept (docs/api.md, "Expiring values").
    static func expire(_ kind: ValueExpiries.Kind, _ key: String, at expiresAt: Instant, now: Instant, in context: inout UserContext) {
        if expiresAt > now {
            context.expiries[kind, key] = expiresAt
        } else {
            context.removeValue(kind, key)
        }
    }

    /// A value set again without an expiry, removed or cleared loses its expiry: only the expiring actions
    /// (`setExpiringAttribute`, ...) leave one. Runs after the action succeeded, so a refused action changes nothing.
    static func clearExpiry(after action: Action, in context: inout UserContext) {
        switch action {
        case .setFlag(let flag, _), .toggleFlag(let flag):
            context.expiries[.flag, flag] = nil
        case .setAttribute(let key, _), .removeAttribute(let key):
            context.expiries[.attribute, key] = nil
        case .addSegment(let segment), .removeSegment(let segment):
            context.expiries[.segment, segment] = nil
        case .clear(let scope):
            switch scope {
            case .flags: context.expiries.removeAll(.flag)
            case .attributes: context.expiries.removeAll(.attribute)
            case .segments: context.expiries.removeAll(.segment)
            case .all: context.expiries.removeAll()
            case .counters, .events: break
            }
        default:
            break
        }
    }
}
