/// Builds store actions and batches from fuzz bytes: every action kind, edge amounts, colliding keys, valid and
/// invalid time zones, instants a client can write.
extension FuzzInput {
    /// An amount for counter actions, biased towards the edges of Int64 (overflow must refuse, never trap).
    mutating func amount() -> Int {
        edgeInt()
    }

    mutating func action() -> Action {
        let counter = pick(["a", "b", "views", key()])
        switch byte() % 23 {
        case 0: return .increment(counter: counter, by: amount())
        case 1: return .decrement(counter: counter, by: amount())
        case 2: return .setCounter(counter: counter, value: amount())
        case 3: return .resetCounter(counter: counter)
        case 4: return .recordEvent(event: pick(RuleGenerator.events + [key()]), at: instant())
        case 5: return .removeEvent(event: pick(RuleGenerator.events + [key()]))
        case 6: return .setFlag(flag: key(), value: bool())
        case 7: return .toggleFlag(flag: key())
        case 8: return .setAttribute(key: key(), value: attributeValue())
        case 9: return .removeAttribute(key: key())
        case 10: return .addSegment(key())
        case 11: return .removeSegment(key())
        case 12: return .setTimeZone(pick(RuleGenerator.zones + ["Nope/Zone", "", "utc", "Etc/GMT+12"]))
        case 13: return .setLaunchedAt(instant())
        case 14: return .clear(pick(Action.ClearScope.allCases))
        case 15, 16: return .donate(event: pick(RuleGenerator.events), at: instant(), appVersion: bool() ? pick(["1.2", "2.0", "", key()]) : nil)
        case 17: return .resetDonations(event: pick(RuleGenerator.events))
        case 18: return byte() % 4 == 0 ? .erase : .recordTriggerFire(trigger: key(), at: instant())
        case 19: return .setExpiringAttribute(key: key(), value: attributeValue(), expiresAt: instant())
        case 20: return .setExpiringFlag(flag: key(), value: bool(), expiresAt: instant())
        case 21: return .addExpiringSegment(key(), expiresAt: instant())
        default:
            guard bool() else {
                // A cancelled pending fire (log tag 24) changes no context and creates no user.
                return byte() % 2 == 0
                    ? .cancelPendingFire(trigger: pick(["t0", "t1", key()]), due: instant())
                    : .recordTriggerFire(trigger: pick(["t0", "t1"]), at: instant())
            }
            return .recordDisplay(
                flag: pick(["tip-a", "tip-b", key()]), event: pick(DisplayState.Event.allCases), at: instant(),
                maxCount: bool() ? nil : amount(), invalidates: bool())
        }
    }

    mutating func mutation(maxActions: Int = 6) -> Mutation {
        Mutation(user: key(), now: instant(), actions: (0..<int(1...maxActions)).map { _ in action() })
    }
}
