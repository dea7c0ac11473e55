/// flagd's custom JSON Logic operators (docs/rules.md, "flagd definitions and JSON Logic"): `fractional`, `sem_ver`,
/// `starts_with`, `ends_with`. Each answers `null` on bad input, which sends the flag to its default variant.
public enum FlagdOperators {
    public static let all: [String: JSONLogic.Operator] = [
        "fractional": fractional, "sem_ver": semanticVersion, "starts_with": startsWith, "ends_with": endsWith
    ]

    /// `{"fractional": [bucketBy?, [variant, weight?]...]}`: the bucketing hash over the bucketing string (default:
    /// flag key + targeting key), weights walked cumulatively; negative weights count as zero, and weights that are
    /// not numbers or do not sum within Int64 give null (the flag's default variant).
    static let fractional: JSONLogic.Operator = { arguments, data, logic in
        var distributions = arguments[...]
        var bucketBy: String
        if let first = arguments.first, first.arrayValue == nil {
            guard case .string(let text) = logic.apply(first, data) else { return .null }
            bucketBy = text
            distributions = arguments.dropFirst()
        } else {
            let flagKey = JSONLogic.lookup("$flagd.flagKey", in: data)?.stringValue ?? ""
            guard let key = JSONLogic.lookup("targetingKey", in: data).map(JSONLogic.string), !key.isEmpty else { return .null }
            bucketBy = flagKey + key
        }
        var entries: [(variant: JSONValue, weight: Int)] = []
        for distribution in distributions {
            guard case .array(let parts) = distribution, let first = parts.first else { return .null }
            let variant = logic.apply(first, data)
            var weight = 1
            if parts.count > 1 {
                // A weight is an integer (fractions truncated); one no Int holds, infinite included, is bad input.
                guard let number = JSONLogic.number(logic.apply(parts[1], data)), number.isFinite else { return .null }
                guard let integer = Int(exactly: max(0, number.rounded(.towardZero))) else { return .null }
                weight = integer
            }
            entries.append((variant, weight))
        }
        var total = 0
        for entry in entries {
            let (sum, overflow) = total.addingReportingOverflow(entry.weight)
            if overflow { return .null }
            total = sum
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

    /// `{"sem_ver": [version, op, version]}` with `= != < <= > >= ^ ~`; a leading `v` and missing minor/patch are
    /// accepted, build metadata is ignored, pre-releases order before their release.
    static let semanticVersion: JSONLogic.Operator = { arguments, data, logic in
        guard arguments.count == 3 else { return .null }
        let values = arguments.map { logic.apply($0, data) }
        guard case .string(let op) = values[1], let left = SemanticVersion(values[0]), let right = SemanticVersion(values[2]) else { return .null }
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

    static let startsWith: JSONLogic.Operator = { arguments, data, logic in
        guard arguments.count == 2, case .string(let text) = logic.apply(arguments[0], data),
            case .string(let prefix) = logic.apply(arguments[1], data)
        else { return .null }
        return .bool(text.hasPrefix(prefix))
    }

    static let endsWith: JSONLogic.Operator = { arguments, data, logic in
        guard arguments.count == 2, case .string(let text) = logic.apply(arguments[0], data),
            case .string(let suffix) = logic.apply(arguments[1], data)
        else { return .null }
        return .bool(text.hasSuffix(suffix))
    }
}
