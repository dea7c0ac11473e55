/// A flag in flagd's shape (DESIGN §9): named variants, a default variant, and JSON Logic targeting whose result
/// names the variant.
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
            return Evaluation(key: key, value: nil, reason: .error, matched: false, errorCode: .parseError,
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
            return Evaluation(key: key, value: nil, reason: .error, matched: false, errorCode: .general,
                              errorMessage: "targeting returned \(result.typeName), not a variant name")
        }
        guard let value = variants[name] else {
            return Evaluation(key: key, value: nil, reason: .error, matched: false, errorCode: .general,
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

/// Compiles flagd flag definitions: `{state, variants, defaultVariant, targeting, metadata}` with `$ref`s into
/// `$evaluators` resolved at load time.
struct FlagdCompiler {
    let evaluators: JSONObject
    let setMetadata: JSONObject

    static func isFlagd(_ definition: JSONValue) -> Bool { definition["state"] != nil }

    func compile(key: String, _ definition: JSONValue, specs: inout SpecCompiler) -> Flag? {
        let path = JSONPointer("/flags").appending(key)
        guard let fields = specs.fields(definition, at: path, required: ["state", "variants"],
                                        optional: ["defaultVariant", "targeting", "metadata", "description"]) else { return nil }
        guard case .string(let state) = fields["state"]!, state == "ENABLED" || state == "DISABLED" else {
            specs.error(path.appending("state"), "wrong_type", "state is ENABLED or DISABLED")
            return nil
        }
        guard case .object(let variants) = fields["variants"]!, !variants.isEmpty else {
            specs.error(path.appending("variants"), "wrong_type", "variants is a non-empty object")
            return nil
        }
        var defaultVariant: String?
        switch fields["defaultVariant"] {
        case nil, .null?: defaultVariant = nil
        case .string(let name)?:
            guard variants[name] != nil else {
                specs.error(path.appending("defaultVariant"), "unknown_default_variant", "no variant named '\(name)'")
                return nil
            }
            defaultVariant = name
        default:
            specs.error(path.appending("defaultVariant"), "wrong_type", "defaultVariant is a variant name or null")
            return nil
        }
        var missing: String?
        var targeting = fields["targeting"].map { resolve($0, missing: &missing, depth: 0) }
        if case .object(let object)? = targeting, object.isEmpty { targeting = nil }
        if targeting == .null { targeting = nil }
        var metadata = setMetadata
        if case .object(let own)? = fields["metadata"] { for (name, value) in own { metadata[name] = value } }
        let type: Flag.ValueType
        switch variants.values.first! {
        case .bool: type = .boolean
        case .string: type = .string
        case .number: type = .number
        default: type = .object
        }
        return Flag(key: key, body: .flagd(FlagdTargeting(targeting: targeting, variants: variants, defaultVariant: defaultVariant,
                                                         unresolvedReference: missing)),
                    enabled: state == "ENABLED", valueType: type, description: fields["description"]?.stringValue,
                    metadata: metadata, source: definition)
    }

    /// Replaces `{"$ref": name}` with the named evaluator, recursively (bounded, so cycles cannot hang a load).
    private func resolve(_ value: JSONValue, missing: inout String?, depth: Int) -> JSONValue {
        guard depth < 32 else { return .null }
        switch value {
        case .object(let object):
            if object.count == 1, case .string(let name)? = object["$ref"] {
                guard let target = evaluators[name] else {
                    missing = name
                    return .null
                }
                return resolve(target, missing: &missing, depth: depth + 1)
            }
            var resolved = JSONObject()
            for (key, member) in object { resolved[key] = resolve(member, missing: &missing, depth: depth + 1) }
            return .object(resolved)
        case .array(let items):
            return .array(items.map { resolve($0, missing: &missing, depth: depth + 1) })
        default:
            return value
        }
    }
}
