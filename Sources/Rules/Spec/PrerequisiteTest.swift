/// What a `prerequisite` node asks of the flag it names (docs/rules.md, "prerequisite"): a value, or a variant.
public enum PrerequisiteTest: Sendable, Equatable {
    /// The flag answers this value (numbers compare by value: `50` equals `50.0`).
    case equals(JSONValue)
    /// The flag answers with the variant of this name.
    case variant(String)

    /// Whether an answer of the prerequisite meets the test. A disabled prerequisite never does, whatever its
    /// fallback: "the feature this depends on is off" must not read as "on with its default".
    public func holds(_ evaluation: Evaluation) -> Bool {
        guard evaluation.reason != .disabled else { return false }
        switch self {
        case .equals(let expected): return evaluation.value == expected
        case .variant(let name): return evaluation.variant.map { $0.bytesEqual(name) } ?? false
        }
    }

    /// The test as explain shows it.
    public var text: String {
        switch self {
        case .equals(let value): return "equals " + JSONWriter.string(value)
        case .variant(let name): return "variant '\(name)'"
        }
    }
}
