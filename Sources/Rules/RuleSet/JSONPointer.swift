/// A JSON pointer under construction (RFC 6901 escaping).
public struct JSONPointer: Sendable, CustomStringConvertible {
    public private(set) var text: String

    public init(_ text: String = "") {
        self.text = text
    }

    public func appending(_ token: String) -> JSONPointer {
        JSONPointer(text + "/" + token.replacingOccurrences("~", "~0").replacingOccurrences("/", "~1"))
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
