/// Version strings compared numerically per dot component, zero-padded: `1.2 == 1.2.0`, `1.10 > 1.9`.
///
/// Parsed on every request that carries an app version and on every version test of a stored donation, so the
/// common shape (up to four components) is kept inline: no array is allocated to parse or compare one.
public struct Version: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The first four components (a component has at most nine digits, so it fits 32 bits), zero past `count`.
    private let head: SIMD4<Int32>
    /// Components after trailing zeros are dropped (`1.2.0` has two); at least one.
    private let count: Int
    /// Components past the fourth, when there are any.
    private let tail: [Int32]

    /// Longer version strings are refused: a version is stored with every donation (first and last), so an
    /// unbounded one would let a client grow a user by a megabyte per request.
    public static let maxBytes = 64

    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    /// Whether `Version(text)` would parse, without building it: a request's version is checked where it is read
    /// and parsed once where it is evaluated, so the check makes no second parse. Dot-separated runs of one to nine
    /// digits, at most `maxBytes` bytes.
    public static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count <= maxBytes else { return false }
            var digits = 0
            for byte in bytes {
                if byte == UInt8(ascii: ".") {
                    guard digits > 0 else { return false }
                    digits = 0
                } else if byte >= 48, byte <= 57, digits < 9 {
                    digits += 1
                } else {
                    return false
                }
            }
            return digits > 0
        }
    }

    private init(head: SIMD4<Int32>, count: Int, tail: [Int32]) {
        self.head = head
        self.count = count
        self.tail = tail
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Version? {
        guard bytes.count <= maxBytes else { return nil }
        var head = SIMD4<Int32>()
        var tail: [Int32] = []
        var index = 0
        var value: Int32 = 0
        var digits = 0
        func store() {
            if index < 4 { head[index] = value } else { tail.append(value) }
            index += 1
        }
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return nil }
                store()
                value = 0
                digits = 0
            } else if byte >= 48, byte <= 57, digits < 9 {
                value = value * 10 + Int32(byte - 48)
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        store()
        // Trailing zeros do not count: `1.2.0` is `1.2` (one component stays: `0` is `0`).
        var count = index
        while count > 1, (count <= 4 ? head[count - 1] : tail[count - 5]) == 0 {
            count -= 1
            if count >= 4 { tail.removeLast() }
        }
        return Version(head: head, count: count, tail: tail)
    }

    /// Each component, trailing zeros dropped.
    public var components: [Int] { (0..<count).map { Int(component($0)) } }

    private func component(_ index: Int) -> Int32 {
        if index < 4 { return index < count ? head[index] : 0 }
        return index < count ? tail[index - 4] : 0
    }

    public static func < (lhs: Version, rhs: Version) -> Bool {
        for index in 0..<max(lhs.count, rhs.count) {
            let left = lhs.component(index)
            let right = rhs.component(index)
            if left != right { return left < right }
        }
        return false
    }

    public var description: String { components.map(String.init).joined(separator: ".") }
}
