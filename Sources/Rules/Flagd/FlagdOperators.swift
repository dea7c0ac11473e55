/// flagd's custom JSON Logic operators (docs/rules.md, "flagd definitions and JSON Logic"): `fractional`, `sem_ver`,
/// `starts_with`, `ends_with`. Each answers `null` on bad input, which sends the flag to its default variant.
public enum FlagdOperators {
    public static let all: [String: JSONLogic.Operator] = [
        "fractional": fractional, "sem_ver": semanticVersion, "starts_with": startsWith, "ends_with": endsWith
    ]

    /// flagd's cap on one weight and on the sum of weights (its fractional specification: a signed 32-bit total).
    static let maximumWeight = Int(Int32.max)

    /// `{"fractional": [bucketBy?, [variant, weight?]...]}`, read as flagd reads it after evaluating every argument:
    /// a first argument that evaluates to a string is the bucketing value; one that evaluates to `null` is skipped;
    /// anything else (an array above all) is the first distribution, bucketed by flag key + targeting key. Variants
    /// are strings, booleans, numbers or null; weights are whole numbers (or null, meaning 1) up to 2^31-1 each and
    /// in total, negative weights counting as zero. Anything else answers null (the flag's default variant).
    static let fractional: JSONLogic.Operator = { arguments, data, logic throws(JSONLogic.Failure) in
        var distributions = try logic.evaluateAll(arguments, data)[...]
        guard let first = distributions.first else { return .null }
        let bucketBy: String
        if case .string(let text) = first {
            bucketBy = text
            distributions = distributions.dropFirst()
        } else {
            if first == .null { distributions = distributions.dropFirst() }
            guard case .string(let key)? = JSONLogic.lookup("targetingKey", in: data), !key.isEmpty else { return .null }
            let flagKey = JSONLogic.lookup("$flagd.flagKey", in: data)?.stringValue ?? ""
            bucketBy = flagKey + key
        }
        var entries: [(variant: JSONValue, weight: Int)] = []
        var total = 0
        for distribution in distributions {
            guard case .array(let parts) = distribution, let variant = parts.first else { return .null }
            switch variant {
            case .string, .bool, .number, .null: break
            default: return .null
            }
            var weight = 1
            if parts.count > 1, parts[1] != .null {
                guard case .number(let number) = parts[1], let whole = wholeWeight(number.double) else { return .null }
                weight = max(0, whole)
            }
            total += weight
            guard total <= maximumWeight else { return .null }
            entries.append((variant, weight))
        }
        guard total > 0 else { return .null }
        let bucket = Bucketing.bucket(bucketBy, totalWeight: UInt64(total))
        var end: UInt64 = 0
        for entry in entries {
            end += UInt64(entry.weight)
            if bucket < end { return entry.variant }
        }
        return .null
    }

    /// A weight as an integer no larger than `maximumWeight`; `nil` for fractions, infinities, NaN and anything
    /// larger. Negative weights of any size are returned clamped (they count as zero).
    static func wholeWeight(_ value: Double) -> Int? {
        guard value.isFinite, value == value.rounded(.towardZero), value <= Double(maximumWeight) else { return nil }
        return value < 0 ? 0 : Int(value)
    }

    /// `{"sem_ver": [version, op, version]}` with `= != < <= > >= ^ ~` over strict semantic versions (see
    /// `SemanticVersion`); a version that is not one, or an unknown operator, answers null.
    static let semanticVersion: JSONLogic.Operator = { arguments, data, logic throws(JSONLogic.Failure) in
        let values = try logic.evaluateAll(arguments, data)
        guard values.count == 3, case .string(let op) = values[1], let left = SemanticVersion(values[0]), let right = SemanticVersion(values[2])
        else { return .null }
        switch op {
        case "=": return .bool(left == right)
        case "!=": return .bool(left != right)
        case "<": return .bool(left < right)
        case "<=": return .bool(left <= right)
        case ">": return .bool(left > right)
        case ">=": return .bool(left >= right)
        case "^": return .bool(left.major == right.major)
        case "~": return .bool(left.major == right.major && left.minor == right.minor)
        default: return .null
        }
    }

    /// Prefix test over UTF-8 bytes: `"Jose\u{301}"` does not start with `"José"` (flagd compares bytes).
    static let startsWith: JSONLogic.Operator = { arguments, data, logic throws(JSONLogic.Failure) in
        let values = try logic.evaluateAll(arguments, data)
        guard values.count == 2, case .string(let text) = values[0], case .string(let prefix) = values[1] else { return .null }
        return .bool(text.utf8.starts(with: prefix.utf8))
    }

    /// Suffix test over UTF-8 bytes, as `startsWith`.
    static let endsWith: JSONLogic.Operator = { arguments, data, logic throws(JSONLogic.Failure) in
        let values = try logic.evaluateAll(arguments, data)
        guard values.count == 2, case .string(let text) = values[0], case .string(let suffix) = values[1] else { return .null }
        return .bool(text.utf8.reversed().starts(with: suffix.utf8.reversed()))
    }
}
