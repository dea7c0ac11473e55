import Rules

/// A scenario file (README, "Testing rules: `specd test`"), parsed and checked: named steps that move a virtual
/// clock, run actions and check labelled assertions — the flow-testing seed's shape, over the daemon's own engine.
/// Every rule set it names is already loaded and validated, so a run cannot fail on a file.
public struct Scenario: Sendable {
    public var name: String
    /// The file it came from, for reports.
    public var file: String
    public var start: Instant
    /// The zone of listed users that name none (a configuration's `tz` comes first).
    public var tz: String?
    public var rules: RuleSet
    /// Users created at `start`, in file order, with their contexts (`launchedAt = start` filled in where the file
    /// leaves it out; the zone and a configuration's `context` are applied when it runs).
    public var users: [User]
    /// Every user the scenario mentions (listed or not), in first-mention order: each has a stream from `start`.
    public var mentionedUsers: [String]
    /// At least one: a file without `configurations` runs once, as "default".
    public var configurations: [Configuration]
    public var steps: [Step]

    public struct User: Sendable {
        public var id: String
        public var context: JSONObject
    }

    public struct Configuration: Sendable {
        public var name: String
        public var tz: String?
        public var appVersion: String?
        public var context: JSONObject?
    }

    public struct Step: Sendable {
        public var name: String
        /// `/steps/3`: where the step is in the file.
        public var path: JSONPointer
        public var move: Move?
        public var actions: [StepAction]
        public var expectations: [Expectation]
        public var snapshot: Bool
    }

    /// How a step moves the clock before its actions.
    public enum Move: Sendable, Equatable {
        case advance(Milliseconds)
        case at(Instant)
    }

    /// One `do` entry of a step (named apart from the store's `Action`, which the runner turns it into).
    public struct StepAction: Sendable {
        public var path: JSONPointer
        public var kind: Kind

        public enum Kind: Sendable {
            case donate(user: String, event: String, times: Int, appVersion: String?)
            /// §4 operations, decoded again at the instant they run (`recordEvent` without `at` means "now").
            case ops(user: String, [JSONValue])
            case reset(user: String, event: String)
            case erase(user: String)
            case reload(RuleSet)
            /// A display event for a display flag, at the step's instant.
            case display(user: String, flag: String, event: DisplayState.Event)
        }
    }

    public struct Expectation: Sendable {
        public var label: String
        public var path: JSONPointer
        public var user: String
        public var check: Check

        public enum Check: Sendable {
            /// A flag's answer for the user now; each given field must match.
            case flag(key: String, fields: [FlagField])
            /// Fires of `trigger` during the step: `times` when given, else at least one; `expected == false`: none.
            case fired(trigger: String, times: Int?, expected: Bool)
            /// A stored context value.
            case stored(StoredValue, key: String, equals: JSONValue)
            /// Exactly the events the user's stream received during the step, in order, each a partial match.
            case events([JSONObject])
        }
    }

    public enum FlagField: Sendable {
        case equals(JSONValue)
        case variant(JSONValue)
        case reason(String)
        case matched(Bool)
        /// An ISO instant, or `null` when no clock-driven change is expected.
        case validUntil(Instant?)
    }

    public enum StoredValue: String, Sendable, CaseIterable {
        case counter, event, attribute, segment, donations, display
    }
}
