/// A compiled flag or decision (docs/rules.md, "Flags and decisions"). A class, immutable: handing one out of the rule
/// set costs one retain instead of one per field.
public final class Flag: Sendable, Equatable {
    public enum ValueType: String, Sendable {
        case boolean, string, number, object
    }

    /// What a case (or the fallback) yields: one value, or a weighted split.
    public enum Outcome: Sendable, Equatable {
        case value(JSONValue, variant: String?)
        case split([SplitEntry], prefix: String)
    }

    public struct SplitEntry: Sendable, Equatable {
        public let weight: Int
        public let value: JSONValue
        public let variant: String?
    }

    public struct Case: Sendable, Equatable {
        public let when: Spec
        public let outcome: Outcome
    }

    public enum Body: Sendable, Equatable {
        /// `{"when": spec}`: true when it holds.
        case boolean(Spec)
        /// Cases in order, then the fallback (or none: `matched: false`).
        case cases([Case], fallback: Outcome?)
        /// A flagd definition: JSON Logic targeting naming a variant.
        case flagd(FlagdTargeting)
        /// `pick: "weighted"`: a deterministic weighted draw among the cases that hold.
        case pick(WeightedPick)
    }

    public let key: String
    public let body: Body
    public let enabled: Bool
    public let valueType: ValueType
    public let description: String?
    public let metadata: JSONObject
    /// `metadata` as JSON, written once here: every answer about this flag carries it, and the rule set is
    /// immutable. Empty when there is no metadata.
    public let metadataJSON: [UInt8]
    /// The definition as written, for `GET /v1/rules/{key}`.
    public let source: JSONValue
    /// Display accounting (`display` on a boolean flag), with its groups resolved.
    public let display: DisplayRule?
    /// The flag's place in its rule set's declaration order (`RuleSet.declaredFlags`): per-flag tallies index an
    /// array by it instead of hashing the key on every answer.
    public let position: Int

    public init(
        key: String, body: Body, enabled: Bool, valueType: ValueType, description: String?, metadata: JSONObject,
        source: JSONValue, display: DisplayRule? = nil, position: Int = 0
    ) {
        self.key = key
        self.body = body
        self.enabled = enabled
        self.valueType = valueType
        self.description = description
        self.metadata = metadata
        metadataJSON = metadata.isEmpty ? [] : JSONWriter.write(.object(metadata))
        self.source = source
        self.display = display
        self.position = position
    }

    /// The same flag with its display rule replaced (groups are resolved once every flag is known).
    func with(_ display: DisplayRule?) -> Flag {
        Flag(
            key: key, body: body, enabled: enabled, valueType: valueType, description: description, metadata: metadata, source: source,
            display: display, position: position)
    }

    /// The same flag at `position` in its rule set (the set numbers its flags once they are all known).
    func at(position: Int) -> Flag {
        Flag(
            key: key, body: body, enabled: enabled, valueType: valueType, description: description, metadata: metadata, source: source,
            display: display, position: position)
    }

    public static func == (lhs: Flag, rhs: Flag) -> Bool {
        lhs.key == rhs.key && lhs.body == rhs.body && lhs.enabled == rhs.enabled && lhs.source == rhs.source
            && lhs.display == rhs.display
    }

    /// Whether the flag has no targeting at all, so its answer is `STATIC`.
    public var isStatic: Bool {
        switch body {
        case .cases(let cases, _): return cases.isEmpty
        case .flagd(let flagd): return flagd.targeting == nil
        case .boolean: return false
        case .pick(let pick): return pick.cases.isEmpty
        }
    }
}
