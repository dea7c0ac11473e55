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

    /// By value (`3 == 3.0`), and exactly past 2^53, where doubles round distinct integers together (2^53 + 1 equalled
    /// 2^53, so a flag's or a counter's change there went unseen). Never equal where the doubles differ, so hashing the
    /// double stays consistent; below 2^53 the double comparison is exact and no text is read.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        guard lhs.double == rhs.double else { return false }
        guard lhs.double.magnitude >= 9.007_199_254_740_992e15 else { return true }
        return NumberOrder.compare(NumberOrder.Value(lhs), NumberOrder.Value(rhs)) == 0
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(double) }
}
