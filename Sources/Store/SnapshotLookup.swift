import Rules

/// Finds one user in a snapshot file without loading the others: the file is streamed and checked whole
/// (framing, counts, checksum) as recovery checks it, but only the record whose id is the user's is decoded.
enum SnapshotLookup {
    /// The user's context in the snapshot at `path`; `nil` when the snapshot does not hold the user.
    static func context(of user: [UInt8], in path: String, fileSystem: FileSystem) throws(HistoryReadError) -> UserContext? {
        var decoder = SnapshotDecoder(size: fileSystem.size(path))
        var found: UserContext?
        var failure: SnapshotFile.ReadFailure?
        do {
            try fileSystem.readChunks(path, chunkSize: SnapshotFile.readChunkSize) { chunk in
                do throws(SnapshotFile.ReadFailure) {
                    try decoder.feedRecords(chunk) { buffer, range, offset, index throws(SnapshotFile.ReadFailure) in
                        guard found == nil, holds(buffer[range], user: user) else { return }
                        var reader = BinaryReader(buffer, from: range.lowerBound, to: range.upperBound)
                        do throws(BinaryReader.Failure) {
                            let (_, context) = try ContextCodec.decode(&reader)
                            guard reader.isAtEnd else { throw .malformed }
                            found = context
                        } catch {
                            throw .corrupt(offset: offset, reason: "user \(index) is malformed (\(error))")
                        }
                    }
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            throw .unreadable(error)
        }
        if let failure { throw .corrupt(file: path, offset: failure.offset, reason: failure.reason) }
        do throws(SnapshotFile.ReadFailure) {
            _ = try decoder.finish()
        } catch {
            throw .corrupt(file: path, offset: error.offset, reason: error.reason)
        }
        return found
    }

    /// Whether a snapshot record's id (a varint length, then the bytes) is exactly `user`. Read in place: this runs
    /// once per user in the file.
    static func holds(_ record: ArraySlice<UInt8>, user: [UInt8]) -> Bool {
        // The same id prefix as a log record's payload: one reader for both.
        record.withUnsafeBytes { bytes in LogRecordFrame.payload(bytes, 0..<bytes.count, startsWithUser: user) }
    }
}
