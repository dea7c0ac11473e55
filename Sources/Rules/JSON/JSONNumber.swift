/// A JSON number as written, with its numeric readings.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The lexical form, exactly as parsed or as formatted for a computed value.
    public let text: String
    public let double: Double

    public init(_ value: Int) {
        text = String(value)
        double = Double(value)
    }

    public init(_ value: Double) {
        if value.isFinite, value == value.rounded(.towardZero), abs(value) < 1e15 {
            text = String(Int(value))
        } else if value.isFinite {
            text = "\(value)"
        } else {
            text = "null"
        }
        double = value
    }

    /// Trusts `text` to be a valid JSON number (the parser's own use).
    init(validatedText text: String) {
        self.text = text
        self.double = Double(text) ?? .nan
    }

    /// The value as an integer when it is one exactly (`3`, `3.0`, `3e0`), else `nil`.
    public var int: Int? {
        // Integer literals convert exactly over the whole Int range; others only when the double is exact.
        if isIntegerLiteral { return Int(text) }
        guard double.isFinite, double == double.rounded(.towardZero), abs(double) <= 9.007_199_254_740_992e15 else {
            return nil
        }
        return Int(double)
    }

    /// Written without a fraction or exponent.
    public var isIntegerLiteral: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }

    public var description: String { text }

    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool { lhs.double == rhs.double }
    public func hash(into hasher: inout Hasher) { hasher.combine(double) }
}
