import Dispatch
import Foundation
import Rules

/// Loads a snapshot with its users decoded on several threads: at a million users, decoding is most of a cold
/// start, and each user's record is independent of the others.
///
/// The calling thread reads the file and checks what only it can check in order — framing, counts, lengths and the
/// checksum — and routes each record, undecoded, to the worker that owns the record's shard (`UserStore`'s spread
/// over the user id), in batches. Each worker decodes its batches on its own serial queue into the shard tables
/// only it touches, so no table is shared and none is copied at the end. A damaged file fails exactly as the
/// one-thread `load` fails: the earliest damage in file order is the one named.
struct SnapshotParallelLoad {
    typealias ReadFailure = SnapshotFile.ReadFailure

    /// Record bytes gathered for one worker before it is handed them: large enough that hand-offs are rare, small
    /// enough that the reading thread never waits long for a worker to start.
    static let batchBytes = 1 << 18

    /// Records for one worker: their bytes back to back, and where each starts and ends.
    struct Batch: Sendable {
        var bytes: [UInt8] = []
        var records: [Record] = []

        struct Record: Sendable {
            let start: Int
            let end: Int
            let offset: Int
            let index: UInt64
            let shard: Int
        }
    }

    /// What went wrong in a record, kept until the header's count is known for the message.
    enum Damage: Sendable {
        case malformed(BinaryReader.Failure)
        case refused(String)
    }

    /// One worker's state, touched only on its queue (and read after the group has finished).
    final class Worker: @unchecked Sendable {
        let queue = DispatchQueue(label: "specd.snapshot.decode")
        var tables: [[ByteKey: UserContext]]
        var interner = StringInterner()
        var failure: (offset: Int, index: UInt64, damage: Damage)?
        let reserve: Int

        init(shardCount: Int, reserve: Int) {
            tables = Array(repeating: [:], count: shardCount)
            self.reserve = reserve
        }

        func decode(_ batch: Batch) {
            guard failure == nil else { return }
            for record in batch.records {
                var reader = BinaryReader(batch.bytes, from: record.start, to: record.end)
                do throws(BinaryReader.Failure) {
                    let (user, context) = try ContextCodec.decode(&reader, interning: &interner)
                    guard reader.isAtEnd else { throw .malformed }
                    if tables[record.shard].isEmpty { tables[record.shard].reserveCapacity(reserve) }
                    do throws(ReadFailure) {
                        try SnapshotFile.add(ByteKey(user), context, to: &tables[record.shard])
                    } catch {
                        failure = (record.offset, record.index, .refused(error.reason))
                        return
                    }
                } catch {
                    failure = (record.offset, record.index, .malformed(error))
                    return
                }
            }
        }
    }

    /// The users spread over `shardCount` tables, decoded by `workers` threads.
    static func load(
        _ path: String, fileSystem: FileSystem, shardCount: Int, workers requested: Int
    ) throws(ReadFailure) -> (seq: UInt64, users: [[ByteKey: UserContext]]) {
        let shardCount = max(1, shardCount)
        let size = fileSystem.size(path) ?? 0
        let reserve = min(size / SnapshotFile.minimumUserBytes, 1 << 20) / shardCount
        let workers = (0..<max(1, min(requested, shardCount))).map { _ in Worker(shardCount: shardCount, reserve: reserve) }
        let group = DispatchGroup()
        var batches = [Batch](repeating: Batch(), count: workers.count)
        var decoder = SnapshotDecoder(size: size)
        var failure: ReadFailure?

        func handOff(_ index: Int) {
            let batch = batches[index]
            batches[index] = Batch()
            let worker = workers[index]
            group.enter()
            worker.queue.async {
                worker.decode(batch)
                group.leave()
            }
        }

        do throws(IOError) {
            try fileSystem.readChunks(path, chunkSize: SnapshotFile.readChunkSize) { chunk in
                do throws(ReadFailure) {
                    try decoder.feedRecords(chunk) { record, offset, index throws(ReadFailure) in
                        let shard = shardOf(record, shardCount: shardCount)
                        let owner = shard % workers.count
                        let start = batches[owner].bytes.count
                        batches[owner].bytes.append(contentsOf: record)
                        batches[owner].records.append(
                            Batch.Record(start: start, end: start + record.count, offset: offset, index: index, shard: shard))
                        if batches[owner].bytes.count >= batchBytes { handOff(owner) }
                    }
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
        } catch {
            failure = .corrupt(offset: 0, reason: "unreadable: \(error)")
        }
        var header: (seq: UInt64, count: Int)?
        if failure == nil {
            do throws(ReadFailure) {
                header = try decoder.finish()
            } catch {
                failure = error
            }
        }
        for index in batches.indices where !batches[index].records.isEmpty { handOff(index) }
        group.wait()
        // The earliest damage in the file is the one a one-thread load would have met first.
        let count = decoder.count
        for worker in workers {
            guard let damaged = worker.failure else { continue }
            if let earlier = failure, earlier.offset <= damaged.offset { continue }
            switch damaged.damage {
            case .malformed(let error):
                failure = .corrupt(offset: damaged.offset, reason: "user \(damaged.index) of \(count) is malformed (\(error))")
            case .refused(let reason):
                failure = .corrupt(offset: damaged.offset, reason: reason)
            }
        }
        if let failure { throw failure }
        guard let header else { throw .corrupt(offset: 0, reason: "no header") }
        var users = [[ByteKey: UserContext]](repeating: [:], count: shardCount)
        for shard in 0..<shardCount { swap(&users[shard], &workers[shard % workers.count].tables[shard]) }
        return (header.seq, users)
    }

    /// The shard of a record's user, read from the id at its start (`UserStore.shardIndex` over the id as decoding
    /// makes it); a record too damaged to hold an id goes to shard 0, whose worker then names the damage.
    static func shardOf(_ record: ArraySlice<UInt8>, shardCount: Int) -> Int {
        record.withUnsafeBufferPointer { bytes in
            // The id's length, a varint of at most ten bytes, then the id.
            var length: UInt64 = 0
            var shift: UInt64 = 0
            var position = 0
            while true {
                guard position < bytes.count, position < 10 else { return 0 }
                let byte = bytes[position]
                position += 1
                length |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            guard length <= UInt64(bytes.count - position) else { return 0 }
            let user = String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<(position + Int(length))]), as: UTF8.self)
            return UserStore.shardIndex(of: user, shardCount: shardCount)
        }
    }

}
