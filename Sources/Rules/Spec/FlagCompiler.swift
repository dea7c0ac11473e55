/// Compiles one flag definition: the boolean form, cases with a fallback or without, or named variants.
struct FlagCompiler {
    let key: String
    let path: JSONPointer
    var specs: SpecCompiler
    private var valueType: Flag.ValueType?
    private var variants: JSONObject?

    init(key: String, path: JSONPointer, specs: SpecCompiler) {
        self.key = key
        self.path = path
        self.specs = specs
    }

    static let fieldNames = [
        "when", "cases", "fallback", "variants", "defaultVariant", "enabled", "description", "metadata", "pick", "display"
    ]

    mutating func compile(_ definition: JSONValue) -> Flag? {
        guard let fields = specs.fields(definition, at: path, required: [], optional: Self.fieldNames) else { return nil }
        let enabled = specs.boolean(fields, "enabled", at: path) ?? true
        let description = fields["description"]?.stringValue
        if let value = fields["description"], value.stringValue == nil {
            specs.error(path.appending("description"), "wrong_type", "expected a string")
        }
        let metadata = compileMetadata(fields["metadata"])
        let body: Flag.Body?
        if let when = fields["when"] {
            for other in ["cases", "fallback", "variants", "defaultVariant", "pick"] where fields[other] != nil {
                specs.error(path.appending(other), "unknown_field", "a boolean flag ('when') has no '\(other)'")
            }
            body = specs.compile(when, at: path.appending("when")).map { .boolean($0) }
            valueType = .boolean
        } else if fields["pick"] != nil {
            body = compilePick(fields)
        } else if fields["cases"] != nil || fields["variants"] != nil || fields["fallback"] != nil {
            body = compileCases(fields)
        } else {
            specs.error(path, "missing_field", "a flag needs 'when', 'cases' or 'variants'")
            return nil
        }
        guard let body, let valueType else { return nil }
        let display = compileDisplay(fields["display"], valueType: valueType)
        guard display.ok else { return nil }
        return Flag(
            key: key, body: body, enabled: enabled, valueType: valueType, description: description,
            metadata: metadata ?? [:], source: definition, display: display.rule)
    }

    private mutating func compileMetadata(_ value: JSONValue?) -> JSONObject? {
        guard let value else { return nil }
        guard case .object(let object) = value else { return specs.wrongType(path.appending("metadata"), "a flat object") }
        for (name, member) in object {
            switch member {
            case .string, .number, .bool: continue
            default: specs.error(path.appending("metadata").appending(name), "wrong_type", "metadata values are strings, numbers or booleans")
            }
        }
        return object
    }

    mutating func compileCases(_ fields: JSONObject) -> Flag.Body? {
        var ok = true
        if let value = fields["variants"] {
            guard case .object(let object) = value, !object.isEmpty else {
                return specs.wrongType(path.appending("variants"), "a non-empty object of variant values")
            }
            variants = object
            for (name, variant) in object where !record(variant, at: path.appending("variants").appending(name)) { ok = false }
        }
        var cases: [Flag.Case] = []
        if let value = fields["cases"] {
            guard case .array(let items) = value else { return specs.wrongType(path.appending("cases"), "an array of cases") }
            var alwaysSeenAt: Int?
            for (index, item) in items.enumerated() {
                let at = path.appending("cases").appending(index)
                if let earlier = alwaysSeenAt {
                    specs.warning(at, "unreachable_case", "case \(index) can never match: case \(earlier) always holds")
                }
                guard let compiled = compileCase(item, at: at) else {
                    ok = false
                    continue
                }
                if compiled.when == .always(true), alwaysSeenAt == nil { alwaysSeenAt = index }
                cases.append(compiled)
            }
        }
        var fallback: Flag.Outcome?
        if let name = fields["defaultVariant"] {
            guard variants != nil else {
                specs.error(path.appending("defaultVariant"), "unknown_default_variant", "defaultVariant needs 'variants'")
                return nil
            }
            if case .null = name {
                fallback = nil
            } else if let outcome = variantOutcome(name, at: path.appending("defaultVariant"), code: "unknown_default_variant") {
                fallback = outcome
            } else {
                ok = false
            }
            if fields["fallback"] != nil {
                specs.error(path.appending("fallback"), "unknown_field", "use defaultVariant with variants, not fallback")
                ok = false
            }
        } else if let value = fields["fallback"] {
            if record(value, at: path.appending("fallback")) { fallback = .value(value, variant: nil) } else { ok = false }
        }
        if valueType == nil {
            specs.error(path, "missing_field", "a decision needs cases with values, a fallback or variants")
            return nil
        }
        return ok ? .cases(cases, fallback: fallback) : nil
    }

    private mutating func compileCase(_ item: JSONValue, at path: JSONPointer) -> Flag.Case? {
        guard let fields = specs.fields(item, at: path, required: ["when"], optional: ["value", "variant", "split"]) else { return nil }
        let present = ["value", "variant", "split"].filter { fields[$0] != nil }
        guard present.count == 1 else {
            specs.error(path, present.isEmpty ? "missing_field" : "multiple_operators", "a case has exactly one of value, variant, split")
            return nil
        }
        let when = specs.compile(fields["when"]!, at: path.appending("when"))
        let outcome: Flag.Outcome?
        switch present[0] {
        case "value":
            outcome = record(fields["value"]!, at: path.appending("value")) ? .value(fields["value"]!, variant: nil) : nil
        case "variant":
            outcome = variantOutcome(fields["variant"]!, at: path.appending("variant"), code: "unknown_variant")
        default:
            outcome = compileSplit(fields["split"]!, at: path.appending("split"))
        }
        guard let when, let outcome else { return nil }
        return Flag.Case(when: when, outcome: outcome)
    }

    private mutating func compileSplit(_ value: JSONValue, at path: JSONPointer) -> Flag.Outcome? {
        guard case .array(let items) = value, !items.isEmpty else { return specs.wrongType(path, "a non-empty array of {weight, value|variant}") }
        var entries: [Flag.SplitEntry] = []
        var ok = true
        for (index, item) in items.enumerated() {
            let at = path.appending(index)
            guard let fields = specs.fields(item, at: at, required: ["weight"], optional: ["value", "variant"]) else {
                ok = false
                continue
            }
            guard let weight = fields["weight"]?.numberValue?.int, weight > 0 else {
                specs.error(at.appending("weight"), "non_positive_weight", "split weights are positive integers")
                ok = false
                continue
            }
            if let value = fields["value"], fields["variant"] == nil {
                if record(value, at: at.appending("value")) { entries.append(.init(weight: weight, value: value, variant: nil)) } else { ok = false }
            } else if let name = fields["variant"], fields["value"] == nil,
                case .value(let value, let variant)? = variantOutcome(name, at: at.appending("variant"), code: "unknown_variant")
            {
                entries.append(.init(weight: weight, value: value, variant: variant))
            } else {
                specs.error(at, "missing_field", "a split entry has exactly one of value or variant")
                ok = false
            }
        }
        var total = 0
        for entry in entries {
            let (sum, overflow) = total.addingReportingOverflow(entry.weight)
            if overflow {
                specs.error(path, "weight_overflow", "split weights must sum to at most \(Int.max)")
                ok = false
                break
            }
            total = sum
        }
        // The split salts with "<key>/split" so that rollout membership and variant choice stay independent.
        return ok ? .split(entries, prefix: key + "/split/" + key + "/") : nil
    }

    private mutating func variantOutcome(_ name: JSONValue, at path: JSONPointer, code: String) -> Flag.Outcome? {
        guard case .string(let variant) = name, let value = variants?[variant] else {
            specs.error(path, code, "no variant named \(JSONWriter.string(name)) in variants")
            return nil
        }
        return .value(value, variant: variant)
    }

    /// Checks a value's type against the flag's: one JSON type per flag (bool, string, number, object).
    private mutating func record(_ value: JSONValue, at path: JSONPointer) -> Bool {
        let type: Flag.ValueType
        switch value {
        case .bool: type = .boolean
        case .string: type = .string
        case .number: type = .number
        case .object: type = .object
        case .null, .array:
            specs.error(path, "wrong_type", "flag values are booleans, strings, numbers or objects")
            return false
        }
        if let existing = valueType, existing != type {
            specs.error(path, "mixed_value_types", "this flag's values are \(existing.rawValue)s; this one is a \(type.rawValue)")
            return false
        }
        valueType = type
        return true
    }
}
