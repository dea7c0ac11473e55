struct JSONReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    @inline(__always) mutating func skipWhitespace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    @inline(__always) func peek() throws(JSONError) -> UInt8 {
        guard index < bytes.count else { throw .unexpectedEnd(offset: index) }
        return bytes[index]
    }

    mutating func parseValue(depth: Int) throws(JSONError) -> JSONValue {
        switch try peek() {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw .unexpectedByte(offset: index, expected: "a JSON value")
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let length = literal.utf8CodeUnitCount
        guard index + length <= bytes.count else { throw .unexpectedEnd(offset: bytes.count) }
        for offset in 0..<length where bytes[index + offset] != literal.utf8Start[offset] {
            throw .unexpectedByte(offset: index + offset, expected: "'\(literal)'")
        }
        index += length
    }

    mutating func parseObject(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw .tooDeep(offset: index, limit: maxDepth) }
        index += 1
        var object = JSONObject()
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard try peek() == UInt8(ascii: "\"") else { throw .unexpectedByte(offset: index, expected: "a string key") }
            let key = try parseString()
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw .unexpectedByte(offset: index, expected: "':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            guard object[key] == nil else { throw .duplicateKey(offset: keyOffset, key: key) }
            object[key] = value
            skipWhitespace()
            let byte = try peek()
            index += 1
            if byte == UInt8(ascii: "}") { return .object(object) }
            guard byte == UInt8(ascii: ",") else { throw .unexpectedByte(offset: index - 1, expected: "',' or '}'") }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maxDepth else { throw .tooDeep(offset: index, limit: maxDepth) }
        index += 1
        var array: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return .array(array)
        }
        while true {
            skipWhitespace()
            array.append(try parseValue(depth: depth))
            skipWhitespace()
            let byte = try peek()
            index += 1
            if byte == UInt8(ascii: "]") { return .array(array) }
            guard byte == UInt8(ascii: ",") else { throw .unexpectedByte(offset: index - 1, expected: "',' or ']'") }
        }
    }

    mutating func parseNumber() throws(JSONError) -> JSONNumber {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw .invalidNumber(offset: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw .invalidNumber(offset: start) }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw .invalidNumber(offset: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw .invalidNumber(offset: start) }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        let number = JSONNumber(validatedText: text)
        guard number.double.isFinite else { throw .invalidNumber(offset: start) }
        return number
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    mutating func parseString() throws(JSONError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes, plain ASCII or valid UTF-8 copied in one go.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if slice.allSatisfy({ $0 < 0x80 }) { return String(decoding: slice, as: UTF8.self) }
                try validateUTF8(slice, base: start)
                return String(decoding: slice, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw .controlCharacterInString(offset: index) }
            index += 1
        }
        guard index < bytes.count else { throw .unexpectedEnd(offset: index) }
        var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
        try validateUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index]), base: start)
        var segmentStart = index
        while true {
            guard index < bytes.count else { throw .unexpectedEnd(offset: index) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                try appendValidated(from: segmentStart, to: index, into: &scalars)
                index += 1
                return String(decoding: scalars, as: UTF8.self)
            }
            if byte < 0x20 { throw .controlCharacterInString(offset: index) }
            if byte == UInt8(ascii: "\\") {
                try appendValidated(from: segmentStart, to: index, into: &scalars)
                try parseEscape(into: &scalars)
                segmentStart = index
                continue
            }
            index += 1
        }
    }

    mutating func appendValidated(from start: Int, to end: Int, into out: inout [UInt8]) throws(JSONError) {
        guard end > start else { return }
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        try validateUTF8(slice, base: start)
        out.append(contentsOf: slice)
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(JSONError) {
        let escapeStart = index
        index += 1
        guard index < bytes.count else { throw .unexpectedEnd(offset: index) }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4(escapeStart: escapeStart)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by an escaped low surrogate (RFC 8259 §7).
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw .invalidEscape(offset: escapeStart) }
                index += 2
                let low = try readHex4(escapeStart: escapeStart)
                guard (0xDC00...0xDFFF).contains(low) else { throw .invalidEscape(offset: escapeStart) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw .invalidEscape(offset: escapeStart)
            }
            out.append(contentsOf: String(Character(Unicode.Scalar(scalar)!)).utf8)
        default:
            throw .invalidEscape(offset: escapeStart)
        }
    }

    mutating func readHex4(escapeStart: Int) throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw .unexpectedEnd(offset: bytes.count) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            default: throw .invalidEscape(offset: escapeStart)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// Well-formed UTF-8 per Unicode table 3-7: no overlongs, no surrogates, nothing above U+10FFFF.
    func validateUTF8(_ slice: UnsafeBufferPointer<UInt8>, base: Int) throws(JSONError) {
        var position = 0
        let count = slice.count
        while position < count {
            let lead = slice[position]
            if lead < 0x80 {
                position += 1
                continue
            }
            let length: Int
            var lowerBound: UInt8 = 0x80
            var upperBound: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lowerBound = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upperBound = 0x9F
            case 0xF0:
                length = 4
                lowerBound = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upperBound = 0x8F
            default: throw .invalidUTF8(offset: base + position)
            }
            guard position + length <= count else { throw .invalidUTF8(offset: base + position) }
            let second = slice[position + 1]
            guard second >= lowerBound, second <= upperBound else { throw .invalidUTF8(offset: base + position) }
            for next in 2..<max(length, 2) where slice[position + next] & 0xC0 != 0x80 {
                throw .invalidUTF8(offset: base + position)
            }
            position += length
        }
    }
}
