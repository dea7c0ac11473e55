/// A strict RFC 8259 parser: validates UTF-8, refuses duplicate keys, bounds depth and size, and reports the byte
/// offset of the first problem. Numbers are kept in their lexical form.
public struct JSONParser: Sendable {
    public var maxDepth: Int
    public var maxBytes: Int

    public init(maxDepth: Int = 32, maxBytes: Int = 1 << 20) {
        self.maxDepth = maxDepth
        self.maxBytes = maxBytes
    }

    public func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    public func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        guard bytes.count <= maxBytes else { throw .tooLarge(size: bytes.count, limit: maxBytes) }
        return try bytes.withUnsafeBufferPointer { buffer throws(JSONError) in
            var reader = JSONReader(bytes: buffer, maxDepth: maxDepth)
            reader.skipWhitespace()
            let value = try reader.parseValue(depth: 0)
            reader.skipWhitespace()
            guard reader.index == buffer.count else { throw .trailingData(offset: reader.index) }
            return value
        }
    }
}
