/// A JSON pointer under construction (RFC 6901 escaping).
public struct JSONPointer: Sendable, CustomStringConvertible {
    public private(set) var text: String

    public init(_ text: String = "") {
        self.text = text
    }

    /// `token` escaped as RFC 6901 says: `~` as `~0`, then `/` as `~1`.
    public func appending(_ token: String) -> JSONPointer {
        // The compiler builds a pointer for every node it visits: a byte scan keeps the common case (nothing to
        // escape) off Foundation's locale-aware string search, which dominated compiling small rule files.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            return JSONPointer(text + "/" + token)
        }
        return JSONPointer(text + "/" + token.replacingOccurrences("~", "~0").replacingOccurrences("/", "~1"))
    }

    public func appending(_ index: Int) -> JSONPointer { JSONPointer(text + "/" + String(index)) }

    public var description: String { text }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        guard contains(target) else { return self }
        return split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
