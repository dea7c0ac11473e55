/// Why a JSON text was refused, with the byte offset where parsing stopped.
public enum JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    case unexpectedEnd(offset: Int)
    case unexpectedByte(offset: Int, expected: String)
    case invalidUTF8(offset: Int)
    case controlCharacterInString(offset: Int)
    case invalidEscape(offset: Int)
    case invalidNumber(offset: Int)
    case tooDeep(offset: Int, limit: Int)
    case tooLarge(size: Int, limit: Int)
    case duplicateKey(offset: Int, key: String)
    case trailingData(offset: Int)

    public var offset: Int {
        switch self {
        case .unexpectedEnd(let offset), .unexpectedByte(let offset, _), .invalidUTF8(let offset),
            .controlCharacterInString(let offset), .invalidEscape(let offset), .invalidNumber(let offset),
            .tooDeep(let offset, _), .duplicateKey(let offset, _), .trailingData(let offset):
            return offset
        case .tooLarge(_, let limit):
            return limit
        }
    }

    public var description: String {
        switch self {
        case .unexpectedEnd(let offset): return "unexpected end of JSON at byte \(offset)"
        case .unexpectedByte(let offset, let expected): return "expected \(expected) at byte \(offset)"
        case .invalidUTF8(let offset): return "invalid UTF-8 at byte \(offset)"
        case .controlCharacterInString(let offset): return "unescaped control character in string at byte \(offset)"
        case .invalidEscape(let offset): return "invalid escape sequence at byte \(offset)"
        case .invalidNumber(let offset): return "invalid number at byte \(offset)"
        case .tooDeep(let offset, let limit): return "nesting deeper than \(limit) at byte \(offset)"
        case .tooLarge(let size, let limit): return "JSON text of \(size) bytes exceeds the limit of \(limit)"
        case .duplicateKey(let offset, let key): return "duplicate key \"\(key)\" at byte \(offset)"
        case .trailingData(let offset): return "unexpected data after the JSON value at byte \(offset)"
        }
    }
}
