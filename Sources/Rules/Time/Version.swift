/// Version strings compared numerically per dot component, zero-padded: `1.2 == 1.2.0`, `1.10 > 1.9`.
public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let components: [Int]

    /// Longer version strings are refused: a version is stored with every donation (first and last), so an
    /// unbounded one would let a client grow a user by a megabyte per request.
    public static let maxBytes = 64

    public init?(_ text: String) {
        guard text.utf8.count <= Self.maxBytes else { return nil }
        var parts: [Int] = []
        var value = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return nil }
                parts.append(value)
                value = 0
                digits = 0
            } else if byte >= 48, byte <= 57, digits < 9 {
                value = value * 10 + Int(byte - 48)
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        parts.append(value)
        while parts.count > 1, parts.last == 0 { parts.removeLast() }
        components = parts
    }

    public static func < (lhs: Version, rhs: Version) -> Bool {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    public var description: String { components.map(String.init).joined(separator: ".") }
}
