import Foundation
import Rules
import TestRandom
import Testing

@testable import Store

/// The log and snapshot decoders take whatever bytes a disk (or a fuzzer) hands them: every refusal is a typed
/// error, nothing traps, and no length or count is trusted before the bytes it claims are there.
@Suite struct HostileInputTests {
    // MARK: - Building blocks

    static func varint(_ value: UInt64) -> [UInt8] {
        var writer = BinaryWriter()
        writer.unsigned(value)
        return writer.bytes
    }

    static func fixed32(_ value: UInt32) -> [UInt8] {
        var writer = BinaryWriter()
        writer.fixed32(value)
        return writer.bytes
    }

    static func fixed64(_ value: UInt64) -> [UInt8] {
        var writer = BinaryWriter()
        writer.fixed64(value)
        return writer.bytes
    }

    /// One user as the snapshot stores it, without its length prefix.
    static func user(_ id: String, _ context: UserContext = UserContext()) -> [UInt8] {
        var writer = BinaryWriter()
        ContextCodec.encode(user: id, context, into: &writer)
        return writer.bytes
    }

    /// An empty user's fields after the id: no launch, no zone, seven empty maps.
    static let emptyFields: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0]

    /// A snapshot with the given count and raw body, and a correct checksum, so the decoder gets past it.
    static func snapshot(seq: UInt64 = 1, count: UInt64, body: [UInt8]) -> [UInt8] {
        var bytes = SnapshotFile.magic + fixed64(seq) + fixed64(count) + body
        let crc = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        bytes += fixed32(crc)
        return bytes
    }

    static func framed(_ record: [UInt8]) -> [UInt8] { fixed32(UInt32(record.count)) + record }

    // MARK: - Snapshots

    struct HostileSnapshot: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    static let hostileSnapshots: [HostileSnapshot] = {
        let one = framed(user("a"))
        var badChecksum = snapshot(count: 1, body: one)
        badChecksum[badChecksum.count - 1] ^= 1
        return [
            HostileSnapshot(name: "empty file", bytes: []),
            HostileSnapshot(name: "magic only", bytes: SnapshotFile.magic),
            HostileSnapshot(name: "bad magic", bytes: Array("SPECDSN9".utf8) + [UInt8](repeating: 0, count: 20)),
            HostileSnapshot(name: "bad checksum", bytes: badChecksum),
            HostileSnapshot(name: "user count 2^64-1", bytes: snapshot(count: .max, body: one)),
            HostileSnapshot(name: "user count 2^32 in a small file", bytes: snapshot(count: 1 << 32, body: one)),
            HostileSnapshot(name: "user count 2, one user", bytes: snapshot(count: 2, body: one + [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])),
            HostileSnapshot(name: "record length 0xFFFFFFFF", bytes: snapshot(count: 1, body: fixed32(.max) + user("a"))),
            HostileSnapshot(name: "record length shorter than the user", bytes: snapshot(count: 1, body: fixed32(3) + user("a"))),
            HostileSnapshot(
                name: "record length longer than the user", bytes: snapshot(count: 1, body: fixed32(UInt32(user("a").count + 1)) + user("a") + [0])),
            HostileSnapshot(name: "id length 2^63", bytes: snapshot(count: 1, body: framed(varint(1 << 63) + Array("a".utf8) + emptyFields))),
            HostileSnapshot(name: "counter map count 2^40", bytes: snapshot(count: 1, body: framed([1, 0x61, 0, 0] + varint(1 << 40)))),
            HostileSnapshot(
                name: "eleven-byte varint",
                bytes: snapshot(count: 1, body: framed([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01] + emptyFields))),
            HostileSnapshot(
                name: "attribute that is not JSON",
                bytes: snapshot(count: 1, body: framed([1, 0x61, 0, 0, 0, 0, 0, 1, 1, 0x6B, 2, 0x7B, 0x7B, 0, 0, 0]))),
            HostileSnapshot(name: "same id twice", bytes: snapshot(count: 2, body: one + one)),
            HostileSnapshot(name: "bytes after the last user", bytes: snapshot(count: 1, body: one + [0, 0, 0, 0]))
        ]
    }()

    @Test(arguments: hostileSnapshots)
    func hostileSnapshot_isRefusedWithATypedError(_ input: HostileSnapshot) {
        #expect(throws: StoreDecoding.Failure.self) { _ = try StoreDecoding.snapshot(input.bytes) }
    }

    /// A well-formed snapshot still reads, so the table above fails for the reasons it names.
    @Test func wellFormedSnapshot_reads() throws {
        let decoded = try StoreDecoding.snapshot(Self.snapshot(seq: 7, count: 2, body: Self.framed(Self.user("a")) + Self.framed(Self.user("b"))))
        #expect(decoded.seq == 7)
        #expect(decoded.users.count == 2)
    }

    /// Donation histories are stored as deltas; instants at both ends of the range round-trip instead of trapping.
    @Test func donationHistory_atTheEndsOfTheInstantRange_roundTrips() throws {
        var context = UserContext()
        context.donations["e"] = DonationSummary(
            count: 3, recent: [Instant(milliseconds: .min), Instant(milliseconds: -1), Instant(milliseconds: .max)])
        let bytes = Self.snapshot(count: 1, body: Self.framed(Self.user("a", context)))
        #expect(try StoreDecoding.snapshot(bytes).users[ByteKey("a")] == context)
    }

    // MARK: - Log records

    struct HostilePayload: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    /// A payload starts: user, now, action count.
    static let prefix: [UInt8] = [1, 0x75, 0]

    static let hostilePayloads: [HostilePayload] = [
        HostilePayload(name: "empty", bytes: []),
        HostilePayload(name: "user length 2^63", bytes: varint(1 << 63) + [0x75]),
        HostilePayload(name: "user length 0xFFFFFFFF", bytes: varint(0xFFFF_FFFF) + [0x75, 0, 0]),
        HostilePayload(name: "action count 2^62", bytes: prefix + varint(1 << 62) + [18]),
        HostilePayload(name: "action count larger than the bytes", bytes: prefix + [5, 18]),
        HostilePayload(name: "unknown action tag 0", bytes: prefix + [1, 0]),
        HostilePayload(name: "unknown action tag 200", bytes: prefix + [1, 200]),
        HostilePayload(name: "clear scope 99", bytes: prefix + [1, 15, 99]),
        HostilePayload(name: "attribute length past the end", bytes: prefix + [1, 9, 1, 0x6B] + varint(1 << 40) + [0x31]),
        HostilePayload(name: "attribute that is not JSON", bytes: prefix + [1, 9, 1, 0x6B, 2, 0x7B, 0x7B]),
        HostilePayload(
            name: "attribute nested past the depth limit",
            bytes: prefix + [1, 9, 1, 0x6B, 200] + [UInt8](repeating: 0x5B, count: 100) + [UInt8](repeating: 0x5D, count: 100)),
        HostilePayload(
            name: "eleven-byte varint amount", bytes: prefix + [1, 1, 1, 0x6B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
        HostilePayload(name: "truncated mid-action", bytes: prefix + [1, 1, 1]),
        HostilePayload(name: "a byte after the last action", bytes: prefix + [1, 18, 0])
    ]

    @Test(arguments: hostilePayloads)
    func hostileLogPayload_isRefusedWithATypedError(_ input: HostilePayload) {
        #expect(throws: StoreDecoding.Failure.self) { _ = try StoreDecoding.mutation(input.bytes) }
    }

    @Test func wellFormedPayload_decodes() throws {
        #expect(try StoreDecoding.mutation(Self.prefix + [1, 18]) == Mutation(user: "u", now: Instant(milliseconds: 0), actions: [.erase]))
    }

    /// A record header claiming 4 GiB is damage, not a reason to read (or allocate) 4 GiB.
    @Test(arguments: [UInt32.max, UInt32(64 << 20) + 1, 1 << 31])
    func recordLengthBeyondTheLimit_isDamage(length: UInt32) {
        let bytes = Self.fixed32(length) + Self.fixed32(0) + Self.fixed64(1) + [1, 0x75, 0, 1, 18]
        #expect(LogRecord.scan(bytes, at: 0) == .damaged)
        #expect(StoreDecoding.segment(bytes).records.isEmpty)
    }

    // MARK: - Random bytes

    /// Random buffers, and valid encodings with random bytes changed (which get much further into the decoders):
    /// every one decodes or is refused, none traps.
    @Test func randomAndMutatedBytes_neverTrap() throws {
        var random = SplitMix(seed: 0x5EED)
        var context = UserContext()
        context.counters["c"] = 7
        context.attributes["a"] = ["x": [1, 2]]
        context.donations["d"] = DonationSummary(count: 2, first: .init(at: t0, appVersion: "1.0"), recent: [t0, t0 + 5])
        context.segments.insert("s")
        let validSnapshot = Self.snapshot(count: 2, body: Self.framed(Self.user("a", context)) + Self.framed(Self.user("b")))
        var validRecord: [UInt8] = []
        LogRecord.encode(
            seq: 1,
            payload: MutationCodec.encode(mutation("u", .setAttribute(key: "k", value: ["n": 1]), .donate(event: "e", at: t0, appVersion: "2"))),
            into: &validRecord)
        var refused = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            switch round % 4 {
            case 0: bytes = (0..<random.next(upTo: 200)).map { _ in UInt8(random.next(upTo: 256)) }
            case 1: bytes = validSnapshot
            default: bytes = validRecord
            }
            if round % 4 != 0 {
                for _ in 0...random.next(upTo: 4) { bytes[random.next(upTo: bytes.count)] = UInt8(random.next(upTo: 256)) }
            }
            // Re-seal the snapshot's checksum half the time, so the damage reaches the structure behind it.
            if round % 4 == 1, round % 8 == 1, bytes.count > 4 {
                let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<(bytes.count - 4)])) }
                bytes.replaceSubrange((bytes.count - 4)..., with: Self.fixed32(crc))
            }
            if (try? StoreDecoding.snapshot(bytes)) == nil { refused += 1 }
            if (try? StoreDecoding.mutation(bytes)) == nil { refused += 1 }
            if round % 4 >= 2 {
                // Payload damage behind an intact header: the decoder sees it even though the CRC would refuse it.
                _ = try? StoreDecoding.mutation(Array(bytes[16...]))
            }
            _ = StoreDecoding.segment(bytes)
        }
        #expect(refused > 30_000)
    }
}
