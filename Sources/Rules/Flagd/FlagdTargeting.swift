/// A flag in flagd's shape (docs/rules.md, "flagd definitions and JSON Logic"): named variants, a default variant, and
/// JSON Logic targeting whose result names the variant.
public struct FlagdTargeting: Sendable, Equatable {
    public let targeting: JSONValue?
    public let variants: JSONObject
    public let defaultVariant: String?
    /// A `$ref` to an evaluator that does not exist: every evaluation answers `PARSE_ERROR`, as flagd does.
    public let unresolvedReference: String?

    static let logic = JSONLogic(extensions: FlagdOperators.all)

    /// flagd semantics: no targeting → the default (`STATIC`); targeting → its result looked up as a variant name
    /// (`true` → "true"); `null` → the default (`DEFAULT`); an unknown name → `GENERAL` error.
    func evaluate(key: String, enabled: Bool, _ input: EvaluationInput) -> Evaluation {
        guard enabled else { return Evaluation(key: key, value: nil, reason: .disabled, matched: false) }
        if let unresolvedReference {
            return Evaluation(
                key: key, value: nil, reason: .error, matched: false, errorCode: .parseError,
                errorMessage: "targeting refers to a missing evaluator '\(unresolvedReference)'")
        }
        guard let targeting else { return defaultAnswer(key: key, reason: .staticValue) }
        let result = Self.logic.apply(targeting, data(key: key, input))
        let name: String
        switch result {
        case .null: return defaultAnswer(key: key, reason: .defaultValue)
        case .string(let text): name = text
        case .bool(let flag): name = flag ? "true" : "false"
        case .number(let number): name = number.text
        default:
            return Evaluation(
                key: key, value: nil, reason: .error, matched: false, errorCode: .general,
                errorMessage: "targeting returned \(result.typeName), not a variant name")
        }
        guard let value = variants[name] else {
            return Evaluation(
                key: key, value: nil, reason: .error, matched: false, errorCode: .general,
                errorMessage: "targeting chose '\(name)', which is not a variant")
        }
        return Evaluation(key: key, value: value, variant: name, reason: .targetingMatch, matched: true)
    }

    private func defaultAnswer(key: String, reason: Evaluation.Reason) -> Evaluation {
        guard let defaultVariant, let value = variants[defaultVariant] else {
            // No default: the caller's own default applies (OFREP answers without a value).
            return Evaluation(key: key, value: nil, reason: .defaultValue, matched: false)
        }
        return Evaluation(key: key, value: value, variant: defaultVariant, reason: reason, matched: true)
    }

    /// The JSON Logic data: the context's attributes, `targetingKey`, and `$flagd.{flagKey, timestamp}`.
    func data(key: String, _ input: EvaluationInput) -> JSONValue {
        var object = JSONObject()
        for (name, value) in input.context.attributes { object[name] = value }
        if !input.request.userID.isEmpty { object["targetingKey"] = .string(input.request.userID) }
        object["$flagd"] = ["flagKey": .string(key), "timestamp": .int(Int(input.now.unixSeconds))]
        return .object(object)
    }
}
