extension Flag.ValueType {
    /// The type of a flag value, `nil` for what no flag can answer (null, arrays).
    init?(of value: JSONValue) {
        switch value {
        case .bool: self = .boolean
        case .string: self = .string
        case .number: self = .number
        case .object: self = .object
        case .null, .array: return nil
        }
    }
}

extension Flag {
    /// Every type this flag can answer: one for specd flags (the validator holds them to one), each variant's for
    /// flagd ones, which may mix them.
    var answerTypes: Set<ValueType> {
        switch body {
        case .boolean: return [.boolean]
        case .cases, .pick: return [valueType]
        case .flagd(let flagd): return Set(flagd.variants.values.compactMap(ValueType.init(of:)))
        }
    }

    /// The variant names this flag can answer with (none for a boolean flag or plain values).
    var variantNames: [String] {
        switch body {
        case .boolean: return []
        case .cases, .pick: return source["variants"]?.objectValue?.keys ?? []
        case .flagd(let flagd): return flagd.variants.keys
        }
    }
}
