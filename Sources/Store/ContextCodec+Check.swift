import Rules

extension ContextCodec {
    /// Walks a user's record exactly as `decode` reads it, building nothing, and returns the user's id and whether
    /// the record has trailing sections (expiries, display accounting). A record this accepts, `decode` accepts:
    /// startup keeps snapshot users as their bytes (`EncodedContext`) and decodes each on first touch, so every
    /// failure `decode` could meet must be met here, while the snapshot can still be refused whole.
    ///
    /// The common sections can fail only as the reader does (a length or count past the end, a varint too long, an
    /// attribute that is not JSON); the trailing sections check what the user holds and are rare, so a record with
    /// any is decoded here in full instead of walked, which keeps the two paths one.
    static func check(_ reader: inout BinaryReader) throws(BinaryReader.Failure) -> (user: String, trailing: Bool) {
        let start = reader.offset
        let user = try reader.string()
        if try reader.byte() == 1 { try reader.skipVarint() }
        try reader.skipOptionalString()
        for _ in 0..<(try reader.count()) {
            try reader.skipString()
            try reader.skipVarint()
        }
        for _ in 0..<(try reader.count()) {
            try reader.skipString()
            try reader.skipVarint()
        }
        for _ in 0..<(try reader.count()) {
            try reader.skipString()
            _ = try reader.byte()
        }
        for _ in 0..<(try reader.count()) {
            try reader.skipString()
            try reader.skipJSON()
        }
        for _ in 0..<(try reader.count()) { try reader.skipString() }
        for _ in 0..<(try reader.count()) {
            try reader.skipString()
            try reader.skipVarint()
            for _ in 0..<2 {
                guard try reader.byte() == 1 else { continue }
                try reader.skipVarint()
                try reader.skipOptionalString()
            }
            for _ in 0..<(try reader.count()) { try reader.skipVarint() }
        }
        for _ in 0..<(try reader.count()) {
            try reader.skipString()
            try reader.skipVarint()
        }
        guard !reader.isAtEnd else { return (user, false) }
        reader.offset = start
        _ = try decode(&reader)
        return (user, true)
    }
}
