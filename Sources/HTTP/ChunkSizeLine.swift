/// The size of one chunk from its line, `chunk-size [ chunk-ext ]` without the CRLF (RFC 9112 §7.1), shared by the
/// request and the response parser. Extensions are checked for stray bytes and otherwise ignored.
enum ChunkSizeLine {
    /// `nil` for anything that is not a chunk-size line; 15 hex digits at most, so a size can never wrap.
    static func size(_ bytes: ArraySlice<UInt8>) -> Int? {
        var size = 0
        var index = bytes.startIndex
        while index < bytes.endIndex, let digit = ASCII.hexValue(bytes[index]) {
            guard index - bytes.startIndex < 15 else { return nil }
            size = size << 4 | digit
            index += 1
        }
        guard index > bytes.startIndex else { return nil }
        while index < bytes.endIndex, bytes[index] == ASCII.space || bytes[index] == ASCII.tab { index += 1 }
        if index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: ";"), bytes[index...].allSatisfy(ASCII.isFieldValueByte) else { return nil }
        }
        return size
    }
}
