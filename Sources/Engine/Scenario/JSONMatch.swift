import Rules

/// How scenario assertions compare JSON: numbers by value (`3` matches `3.0`; integers exactly over the whole Int
/// range, as `JSONNumber`'s `==` compares them, not as doubles), and for partial matches every member
/// the author listed must match, recursively; members they left out are not compared.
enum JSONMatch {
    static func equal(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        switch (expected, actual) {
        case (.number(let left), .number(let right)): return left == right
        case (.array(let left), .array(let right)): return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count && left.allSatisfy { key, value in right[key].map { equal(value, $0) } ?? false }
        default: return expected == actual
        }
    }

    static func partial(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
        guard case .object(let wanted) = expected else { return equal(expected, actual) }
        guard case .object(let have) = actual else { return false }
        return wanted.allSatisfy { key, value in have[key].map { partial(value, $0) } ?? (value == JSONValue.null) }
    }
}
