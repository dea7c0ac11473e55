/// A compiled trigger (docs/rules.md, "Triggers"). Only the decision lives here; firing writes to the store, so it
/// is the engine's business. A class of constants, as `Flag` is: every donation visits its event's listeners
/// (twice: immediate fires, then delayed ones), and each visit copied the struct's fields out, retaining and
/// releasing each of them.
public final class Trigger: Sendable, Equatable {
    /// What a qualifying donation does while an earlier one's delayed fire is still pending (RuleKit schedules one
    /// fire per donation; the other two are the usual debounce and "first one wins").
    public enum DelayMode: String, Sendable, CaseIterable {
        /// Every qualifying donation schedules its own fire, each re-checked and throttled on its own.
        case each
        /// A new qualifying donation replaces the pending fire (a debounce).
        case restart
        /// While one is pending, later qualifying donations are ignored.
        case first
    }

    public let key: String
    /// Events that cause an evaluation; empty means every donation.
    public let on: [String]
    public let when: Spec
    public let throttle: CalendarPeriod?
    public let delay: Milliseconds?
    public let delayMode: DelayMode
    public let edge: Bool
    public let source: JSONValue

    public init(
        key: String, on: [String], when: Spec, throttle: CalendarPeriod?, delay: Milliseconds?, delayMode: DelayMode = .each, edge: Bool,
        source: JSONValue
    ) {
        self.key = key
        self.on = on
        self.when = when
        self.throttle = throttle
        self.delay = delay
        self.delayMode = delayMode
        self.edge = edge
        self.source = source
    }

    public static func == (lhs: Trigger, rhs: Trigger) -> Bool {
        lhs === rhs
            || (lhs.key == rhs.key && lhs.on == rhs.on && lhs.when == rhs.when && lhs.throttle == rhs.throttle && lhs.delay == rhs.delay
                && lhs.delayMode == rhs.delayMode && lhs.edge == rhs.edge && lhs.source == rhs.source)
    }

    /// Event names are bytes (README, "Users and keys"): an NFD spelling of an NFC name is another event.
    public func listens(to event: String) -> Bool { on.isEmpty || on.contains { sameUTF8($0, event) } }
}
