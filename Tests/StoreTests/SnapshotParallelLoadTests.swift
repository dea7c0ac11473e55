import Foundation
import Rules
import StoreFixtures
import TestRandom
import Testing

@testable import Store

/// Startup decodes snapshot users on several threads; what it loads, and how it refuses a damaged file, must be
/// exactly what the one-thread load gives.
@Suite struct SnapshotParallelLoadTests {
    /// A snapshot's bytes, made by hand so tests can put anything in it (two users with one id, say).
    static func snapshotBytes(seq: UInt64, records: [[UInt8]]) -> [UInt8] {
        var writer = BinaryWriter()
        writer.bytes = SnapshotFile.magic
        writer.fixed64(seq)
        writer.fixed64(UInt64(records.count))
        for record in records {
            writer.fixed32(UInt32(record.count))
            writer.bytes += record
        }
        let crc = writer.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        writer.fixed32(crc)
        return writer.bytes
    }

    static func record(_ user: String, _ context: UserContext) -> [UInt8] {
        var writer = BinaryWriter()
        ContextCodec.encode(user: user, context, into: &writer)
        return writer.bytes
    }

    static func randomUsers(_ count: Int, seed: UInt64) -> [(String, UserContext)] {
        var random = SplitMix(seed: seed)
        var users: [(String, UserContext)] = []
        let now = Instant(milliseconds: 1_773_144_000_000)
        for index in 0..<count {
            var context: UserContext? = UserContext()
            for _ in 0..<random.next(upTo: 12) {
                let action = random.action(now: now)
                if case .erase = action { continue }
                _ = try? Reducer.applyInPlace(Mutation(user: "u", now: now, actions: [action]), to: &context)
            }
            users.append((index % 7 == 0 ? "caf\u{E9}-\(index)" : "user-\(index)", context ?? UserContext()))
        }
        return users
    }

    func load(_ bytes: [UInt8], workers: Int) -> Result<[[ByteKey: UserContext]], SnapshotFile.ReadFailure> {
        let path = temporaryDirectory() + "/snapshot.snap"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        do throws(SnapshotFile.ReadFailure) {
            return .success(try SnapshotFile.load(path, fileSystem: PosixFileSystem(), shardCount: 16, workers: workers).users)
        } catch {
            return .failure(error)
        }
    }

    @Test(arguments: [2, 3, 8])
    func parallelLoad_ofAWholeSnapshot_equalsTheOneThreadLoad(workers: Int) throws {
        let users = Self.randomUsers(3000, seed: 21)
        let bytes = Self.snapshotBytes(seq: 77, records: users.map { Self.record($0.0, $0.1) })
        let one = try load(bytes, workers: 1).get()
        let many = try load(bytes, workers: workers).get()
        #expect(one == many)
        #expect(one.reduce(0) { $0 + $1.count } == 3000)
    }

    /// Every way of damaging the file gives the same refusal, at the same offset, for the same reason.
    @Test(arguments: [2, 3])
    func parallelLoad_ofADamagedSnapshot_failsAsTheOneThreadLoad(workers: Int) {
        let users = Self.randomUsers(400, seed: 22)
        let records = users.map { Self.record($0.0, $0.1) }
        let whole = Self.snapshotBytes(seq: 5, records: records)
        var random = SplitMix(seed: 23)
        var damaged: [[UInt8]] = []
        for _ in 0..<60 {
            var bytes = whole
            bytes[24 + random.next(upTo: bytes.count - 24)] ^= UInt8(1 + random.next(upTo: 255))
            damaged.append(bytes)
        }
        // Damage the checksum cannot see: a record that does not decode, and one id twice, in valid files.
        var broken = records
        broken[150] = Array(broken[150].prefix(broken[150].count / 2))
        damaged.append(Self.snapshotBytes(seq: 5, records: broken))
        var twice = records
        twice[300] = records[10]
        damaged.append(Self.snapshotBytes(seq: 5, records: twice))
        damaged.append(Array(whole.prefix(whole.count / 3)))
        for bytes in damaged {
            let one = load(bytes, workers: 1)
            let many = load(bytes, workers: workers)
            switch (one, many) {
            case (.success(let a), .success(let b)): #expect(a == b)
            case (.failure(let a), .failure(let b)): #expect(a == b)
            default: Issue.record("one thread: \(one), \(workers) workers: \(many)")
            }
        }
        if case .failure(let failure) = load(damaged[damaged.count - 2], workers: workers) {
            #expect(failure.reason.contains("appears twice"))
        } else {
            Issue.record("a duplicate id was loaded")
        }
    }
}
