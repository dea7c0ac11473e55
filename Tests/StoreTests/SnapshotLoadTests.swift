import Foundation
import Rules
import StoreFixtures
import TestRandom
import Testing

@testable import Store

/// Startup keeps snapshot users as their checked records and decodes each on first touch (`EncodedContext`):
/// what it holds, and how it refuses a damaged file, must be exactly what decoding the whole file gives.
@Suite struct SnapshotLoadTests {
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

    /// Copies of a snapshot, each with one byte past the header changed at random.
    static func flippingOneByte(of whole: [UInt8], times: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix(seed: seed)
        return (0..<times).map { _ in
            var bytes = whole
            bytes[24 + random.next(upTo: bytes.count - 24)] ^= UInt8(1 + random.next(upTo: 255))
            return bytes
        }
    }

    static func randomUsers(_ count: Int, seed: UInt64) -> [(String, UserContext)] {
        var random = SplitMix(seed: seed)
        var users: [(String, UserContext)] = []
        let now = Instant(milliseconds: 1_773_144_000_000)
        for index in 0..<count {
            var context: UserContext? = UserContext()
            for _ in 0..<random.next(upTo: 12) {
                var action = random.action(now: now)
                if case .erase = action { continue }
                // Expiring values give records the trailing expiries section; some are past `now`.
                switch random.next(upTo: 12) {
                case 0:
                    let expiresAt = now + Int64(random.next(upTo: 20_000)) - 10_000
                    action = .setExpiringFlag(flag: "e\(random.next(upTo: 3))", value: true, expiresAt: expiresAt)
                case 1: action = .setExpiringAttribute(key: "x", value: ["deep": [1, "two", nil]], expiresAt: now + 60_000)
                default: break
                }
                _ = try? Reducer.applyInPlace(Mutation(user: "u", now: now - 20_000, actions: [action]), to: &context)
            }
            users.append((index % 7 == 0 ? "caf\u{E9}-\(index)" : "user-\(index)", context ?? UserContext()))
        }
        return users
    }

    /// Loads `bytes` as the daemon does: every user decoded afterwards for comparison.
    func load(_ bytes: [UInt8]) -> Result<[ByteKey: UserContext], SnapshotFile.ReadFailure> {
        let path = temporaryDirectory() + "/snapshot.snap"
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        do throws(SnapshotFile.ReadFailure) {
            let tables = try SnapshotFile.load(path, fileSystem: PosixFileSystem(), shardCount: 16).users
            return .success(tables.reduce(into: [:]) { all, table in all.merge(table.decodedUsers) { $1 } })
        } catch {
            return .failure(error)
        }
    }

    /// The whole file decoded at once (`SnapshotFile.read`, the tools' path).
    func read(_ bytes: [UInt8]) -> Result<[ByteKey: UserContext], SnapshotFile.ReadFailure> {
        do throws(SnapshotFile.ReadFailure) {
            return .success(try SnapshotFile.read(bytes).users)
        } catch {
            return .failure(error)
        }
    }

    @Test func load_ofAWholeSnapshot_holdsEveryUserAsDecodingTheFileGives() throws {
        let users = Self.randomUsers(3000, seed: 21)
        let bytes = Self.snapshotBytes(seq: 77, records: users.map { Self.record($0.0, $0.1) })
        let loaded = try load(bytes).get()
        #expect(loaded == (try read(bytes).get()))
        #expect(loaded.count == 3000)
        #expect(users.contains { !$0.1.expiries.isEmpty } && users.contains { !$0.1.display.isEmpty })
    }

    /// Every way of damaging the file gives the same refusal, at the same offset, for the same reason.
    @Test func load_ofADamagedSnapshot_failsAsDecodingTheFileFails() {
        let users = Self.randomUsers(400, seed: 22)
        let records = users.map { Self.record($0.0, $0.1) }
        let whole = Self.snapshotBytes(seq: 5, records: records)
        var damaged = Self.flippingOneByte(of: whole, times: 60, seed: 23)
        // Damage the checksum cannot see: a record that does not decode, and one id twice, in valid files.
        var broken = records
        broken[150] = Array(broken[150].prefix(broken[150].count / 2))
        damaged.append(Self.snapshotBytes(seq: 5, records: broken))
        var twice = records
        twice[300] = records[10]
        damaged.append(Self.snapshotBytes(seq: 5, records: twice))
        damaged.append(Array(whole.prefix(whole.count / 3)))
        for bytes in damaged {
            let loaded = load(bytes)
            let decoded = read(bytes)
            switch (loaded, decoded) {
            case (.success(let a), .success(let b)): #expect(a == b)
            case (.failure(let a), .failure(let b)): #expect(a == b)
            default: Issue.record("load: \(loaded), decoding: \(decoded)")
            }
        }
        if case .failure(let failure) = load(damaged[damaged.count - 2]) {
            #expect(failure.reason.contains("appears twice"))
        } else {
            Issue.record("a duplicate id was loaded")
        }
        if case .failure(let failure) = load(damaged[damaged.count - 3]) {
            #expect(failure.reason.contains("user 150 of 400 is malformed"))
        } else {
            Issue.record("a record cut in half was loaded")
        }
    }

    /// A just-written snapshot is checked record by record (`SnapshotFile.verify`), not decoded: it must refuse
    /// every file decoding refuses — damage the checksum cannot see included — and pass every file decoding reads.
    @Test func verify_refusesExactlyTheFilesDecodingRefuses() throws {
        let users = Self.randomUsers(400, seed: 26)
        let records = users.map { Self.record($0.0, $0.1) }
        let whole = Self.snapshotBytes(seq: 9, records: records)
        var files = [whole] + Self.flippingOneByte(of: whole, times: 60, seed: 27)
        var cut = records
        cut[150] = Array(cut[150].prefix(cut[150].count / 2))
        files.append(Self.snapshotBytes(seq: 9, records: cut))
        // An attribute whose JSON does not parse, in a record whose lengths and checksum are all sound.
        var context = UserContext()
        context.attributes["list"] = [1]
        var unparsable = Self.record("user-json", context)
        let open = try #require(unparsable.firstIndex(of: UInt8(ascii: "[")))
        unparsable[open] = UInt8(ascii: "{")
        var withBadJSON = records
        withBadJSON[200] = unparsable
        files.append(Self.snapshotBytes(seq: 9, records: withBadJSON))
        let path = temporaryDirectory() + "/verify.snap"
        var refused = 0
        for (index, bytes) in files.enumerated() {
            _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
            let verified = Result { () throws(IOError) in try SnapshotFile.verify(path, seq: 9, users: 400, fileSystem: PosixFileSystem()) }
            let decoded = read(bytes)
            switch (verified, decoded) {
            case (.success, .success): break
            case (.failure(let failure), .failure(let reason)):
                #expect(failure.detail == reason.description, "file \(index)")
                refused += 1
            default: Issue.record("file \(index): verify \(verified), decoding \(decoded)")
            }
        }
        #expect(refused > 30)
        _ = FileManager.default.createFile(atPath: path, contents: Data(files[files.count - 1]))
        #expect(throws: IOError.self) { try SnapshotFile.verify(path, seq: 9, users: 400, fileSystem: PosixFileSystem()) }
    }

    /// The promise `EncodedContext.decode` rests on: `check` accepts a record exactly when `decode` does, and
    /// stops where it stops. Records are cut, and have bytes flipped, inserted and removed, at random.
    @Test func check_acceptsExactlyTheRecordsDecodeAccepts() {
        let users = Self.randomUsers(300, seed: 24)
        var random = SplitMix(seed: 25)
        var accepted = 0
        var refused = 0
        for round in 0..<20_000 {
            let (user, context) = users[round % users.count]
            var bytes = Self.record(user, context)
            switch random.next(upTo: 4) {
            case 0: bytes[random.next(upTo: bytes.count)] ^= UInt8(1 + random.next(upTo: 255))
            case 1: bytes = Array(bytes.prefix(random.next(upTo: bytes.count + 1)))
            case 2: bytes.insert(UInt8(random.next(upTo: 256)), at: random.next(upTo: bytes.count + 1))
            default: bytes.remove(at: random.next(upTo: bytes.count))
            }
            var checking = BinaryReader(bytes)
            var decoding = BinaryReader(bytes)
            let checked = Result { () throws(BinaryReader.Failure) in try ContextCodec.check(&checking).user }
            let decoded = Result { () throws(BinaryReader.Failure) in try ContextCodec.decode(&decoding).0 }
            switch (checked, decoded) {
            case (.success(let a), .success(let b)):
                #expect(a.bytesEqual(b) && checking.offset == decoding.offset, "round \(round)")
                accepted += 1
            case (.failure(let a), .failure(let b)):
                #expect(a == b, "round \(round)")
                refused += 1
            default:
                Issue.record("round \(round): check \(checked), decode \(decoded)")
                return
            }
        }
        #expect(accepted > 1000 && refused > 1000)
    }
}
