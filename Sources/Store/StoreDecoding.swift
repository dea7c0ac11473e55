import Rules

/// The store's decoders as entry points for fuzzing and tools: untrusted bytes in, a value or a typed error out.
/// None of them traps, and none allocates for a length or count that the bytes cannot hold.
public enum StoreDecoding {
    /// Why bytes were refused, with the offset where reading stopped.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let offset: Int
        public let reason: String

        public var description: String { "byte \(offset): \(reason)" }
    }

    /// A whole snapshot file.
    public static func snapshot(_ bytes: [UInt8]) throws(Failure) -> (seq: UInt64, users: [ByteKey: UserContext]) {
        do throws(SnapshotFile.ReadFailure) {
            return try SnapshotFile.read(bytes)
        } catch {
            throw Failure(offset: error.offset, reason: error.reason)
        }
    }

    /// One log record's payload.
    public static func mutation(_ bytes: [UInt8]) throws(Failure) -> Mutation {
        do throws(BinaryReader.Failure) {
            return try MutationCodec.decode(bytes)
        } catch {
            throw Failure(offset: 0, reason: "payload does not decode (\(error))")
        }
    }

    /// A segment file read as recovery does: the records in order up to the first one that does not check out
    /// (the rest is a torn tail or damage), each with its seq and decoded payload.
    public static func segment(_ bytes: [UInt8]) -> (records: [(seq: UInt64, mutation: Mutation?)], end: Int) {
        var records: [(seq: UInt64, mutation: Mutation?)] = []
        var offset = 0
        while case .record(let seq, let payload, let next) = LogRecord.scan(bytes, at: offset) {
            records.append((seq, try? MutationCodec.decode(bytes, from: payload.lowerBound, to: payload.upperBound)))
            offset = next
        }
        return (records, offset)
    }
}
