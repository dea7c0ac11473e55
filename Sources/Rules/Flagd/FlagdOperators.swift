/// flagd's custom JSON Logic operators (DESIGN §9): `fractional`, `sem_ver`, `starts_with`, `ends_with`. Each
/// answers `null` on bad input, which sends the flag to its default variant.
public enum FlagdOperators {
    public static let all: [String: JSONLogic.Operator] = [
        "fractional": fractional, "sem_ver": semanticVersion, "starts_with": startsWith, "ends_with": endsWith,
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
              case .string(let prefix) = logic.apply(arguments[1], data) else { return .null }
        return .bool(text.hasPrefix(prefix))
    }

    static let endsWith: JSONLogic.Operator = { arguments, data, logic in
        guard arguments.count == 2, case .string(let text) = logic.apply(arguments[0], data),
              case .string(let suffix) = logic.apply(arguments[1], data) else { return .null }
        return .bool(text.hasSuffix(suffix))
    }
}

/// A semantic version as flagd compares them.
struct SemanticVersion: Comparable {
    let major: Int
    let minor: Int
    let patch: Int
    let prerelease: [Substring]

    init?(_ value: JSONValue) {
        var text: String
        switch value {
        case .string(let string): text = string
        case .number(let number): text = number.text
        default: return nil
        }
        if text.hasPrefix("v") || text.hasPrefix("V") { text.removeFirst() }
        if let plus = text.firstIndex(of: "+") { text = String(text[..<plus]) }
        var prerelease: [Substring] = []
        if let dash = text.firstIndex(of: "-") {
            prerelease = text[text.index(after: dash)...].split(separator: ".")
            guard !prerelease.isEmpty else { return nil }
            text = String(text[..<dash])
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy(\.isASCII), let number = Int(part), number >= 0 else { return nil }
            numbers.append(number)
        }
        while numbers.count < 3 { numbers.append(0) }
        major = numbers[0]
        minor = numbers[1]
        patch = numbers[2]
        self.prerelease = prerelease
    }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if (lhs.major, lhs.minor, lhs.patch) != (rhs.major, rhs.minor, rhs.patch) {
            return (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }
        // A pre-release orders before its release; identifiers compare numerically when both are numbers.
        if lhs.prerelease.isEmpty || rhs.prerelease.isEmpty { return !lhs.prerelease.isEmpty && rhs.prerelease.isEmpty }
        for (a, b) in zip(lhs.prerelease, rhs.prerelease) where a != b {
            if let x = Int(a), let y = Int(b) { return x < y }
            return a < b
        }
        return lhs.prerelease.count < rhs.prerelease.count
    }

    static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) == (rhs.major, rhs.minor, rhs.patch) && lhs.prerelease == rhs.prerelease
    }
}
