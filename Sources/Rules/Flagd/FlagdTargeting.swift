/// A flag in flagd's shape (docs/rules.md, "flagd definitions and JSON Logic"): named variants, a default variant, and
/// JSON Logic targeting whose result names the variant.
public struct FlagdTargeting: Sendable, Equatable {
    public let targeting: JSONValue?
    public let variants: JSONObject
    public let defaultVariant: String?

    static let logic = JSONLogic(extensions: FlagdOperators.all)

    /// flagd semantics: no targeting → the default (`STATIC`); targeting → its result looked up as a variant name
    /// (`true` → "true", numbers as JavaScript prints them); `null` → the default (`DEFAULT`); an unknown name →
    /// `GENERAL`, as is an evaluation past its budget (`JSONLogic.maxSteps`); an operator that does not exist on the path taken, a `$ref` to a missing evaluator included, or a
    /// result JSON cannot write (NaN, infinities) → `PARSE_ERROR`.
    func evaluate(key: String, enabled: Bool, _ input: EvaluationInput) -> Evaluation {
        guard enabled else { return Evaluation(key: key, value: nil, reason: .disabled, matched: false) }
        guard let targeting else { return defaultAnswer(key: key, reason: .staticValue) }
        let result: JSONValue
        do {
            result = try Self.logic.evaluate(targeting, data(key: key, input))
        } catch {
            let message: String
            switch error {
            case .unknownOperator("$ref"): message = "targeting refers to a missing evaluator"
            case .unknownOperator(let name): message = "targeting uses '\(name)', which is no operator"
            case .overBudget:
                return Evaluation(
                    key: key, value: nil, reason: .error, matched: false, errorCode: .general,
                    errorMessage:
                        "targeting exceeded its evaluation budget (\(JSONLogic.maxSteps) steps, strings of \(JSONLogic.maxValueBytes) bytes, arrays of \(JSONLogic.maxElements) elements)"
                )
            }
            return Evaluation(key: key, value: nil, reason: .error, matched: false, errorCode: .parseError, errorMessage: message)
        }
        let name: String
        switch result {
        case .null: return defaultAnswer(key: key, reason: .defaultValue)
        case .string(let text): name = text
        case .bool(let flag): name = flag ? "true" : "false"
        case .number(let number) where number.double.isFinite: name = JSONLogic.string(result)
        case .number:
            // flagd writes the targeting result as JSON to read the variant name; NaN and the infinities have no
            // JSON form, so its evaluator fails there (PARSE_ERROR).
            return Evaluation(
                key: key, value: nil, reason: .error, matched: false, errorCode: .parseError,
                errorMessage: "targeting returned \(JSONLogic.string(result)), which JSON cannot write")
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

    /// The JSON Logic data: the context's attributes, `targetingKey`, and `$flagd.{flagKey, timestamp}`. A
    /// `targetingKey` the caller sent stays as sent, `""` included (flagd passes the context through); otherwise
    /// the request's user id stands for it.
    func data(key: String, _ input: EvaluationInput) -> JSONValue {
        var object = JSONObject()
        for (name, value) in input.context.attributes { object[name] = value }
        if object["targetingKey"] == nil, !input.request.userID.isEmpty { object["targetingKey"] = .string(input.request.userID) }
        object["$flagd"] = ["flagKey": .string(key), "timestamp": .int(Int(input.now.unixSeconds))]
        return .object(object)
    }
}
