import Foundation
import Rules
import Store
import Testing

@testable import Store

/// Under the policies that sync, the log writes its records into zeros it reserved ahead (`FileSystem.reserve`),
/// so a data sync flushes data alone instead of also committing a new file size. A segment is then its records
/// followed by zeros; recovery, `check-data` and history read those zeros as the end, a restart cuts them from the
/// segment it appends to, and a retired segment is cut to its records.
@Suite(.serialized) struct ReservedSpaceTests {
    func open(_ directory: String, fsync: FsyncPolicy = .always, segmentLimit: Int? = nil) throws -> Database {
        var options = Database.Options(directory: directory, fsync: fsync, fsyncInterval: .milliseconds(5), snapshotEvery: 1_000_000)
        if let segmentLimit { options.segmentLimit = segmentLimit }
        return try Database(options: options)
    }

    func segments(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("segment-") }.sorted()
            .map { directory + "/" + $0 }
    }

    func bytes(_ path: String) -> [UInt8] { [UInt8](FileManager.default.contents(atPath: path)!) }

    /// Where the records of a segment end: the first offset from which the rest is zeros.
    func recordsEnd(_ path: String) -> Int {
        let content = bytes(path)
        var end = content.count
        while end > 0, content[end - 1] == 0 { end -= 1 }
        return end
    }

    func append(_ path: String, _ extra: [UInt8]) {
        let handle = FileHandle(forWritingAtPath: path)!
        handle.seekToEndOfFile()
        handle.write(Data(extra))
        try? handle.close()
    }

    func writeCounters(_ database: Database, _ count: Int, user: String = "u") throws {
        for index in 0..<count { _ = try database.writeAndWait(mutation(user, .increment(counter: "k", by: index + 1))) }
    }

    /// 200 durable writes in segments of 2 KiB, the log stopped: a directory of several segments.
    func severalSegments() throws -> String {
        let directory = temporaryDirectory()
        let database = try open(directory, segmentLimit: 2048)
        try writeCounters(database, 200)
        database.log.close()
        return directory
    }

    @Test func durableWrites_goIntoReservedZeros_andARestartCutsThemAndAppendsAfterTheRecords() throws {
        let directory = temporaryDirectory()
        let first = try open(directory)
        try writeCounters(first, 50)
        let segment = try segments(directory)[0]
        let written = first.log.writtenEnd!
        #expect(written.bytes == recordsEnd(segment))
        #expect(bytes(segment).count >= written.bytes + (1 << 20) - LogRecord.headerSize * 50 - 4096)
        #expect(LogRecord.isPadding(bytes(segment), from: written.bytes))
        first.log.close()
        // A clean stop cuts the zeros; a crash would leave them, as here, for the restart to cut.
        #expect(bytes(segment).count == written.bytes)
        append(segment, [UInt8](repeating: 0, count: 1 << 20))

        let second = try open(directory)
        #expect(second.recovery.warnings.isEmpty, "\(second.recovery.warnings)")
        #expect(second.recovery.replayedRecords == 50)
        #expect(bytes(segment).count == written.bytes)
        #expect(second.store.context(of: "u")?.counters["k"] == 1275)
        try writeCounters(second, 1)
        #expect(recordsEnd(segment) > written.bytes)
        second.log.close()

        let third = try open(directory)
        defer { third.log.close() }
        #expect(third.recovery.warnings.isEmpty)
        #expect(third.store.context(of: "u")?.counters["k"] == 1276)
    }

    @Test(arguments: [FsyncPolicy.never])
    func underAPolicyThatNeverSyncs_nothingIsReserved(policy: FsyncPolicy) throws {
        let directory = temporaryDirectory()
        let database = try open(directory, fsync: policy)
        defer { database.log.close() }
        try writeCounters(database, 20)
        let segment = try segments(directory)[0]
        #expect(bytes(segment).count == database.log.writtenEnd!.bytes)
    }

    /// Reopened, the directory of `severalSegments` starts without a warning and with every increment counted.
    func expectEveryRecordRecovers(_ directory: String) throws {
        let second = try open(directory, segmentLimit: 2048)
        defer { second.log.close() }
        #expect(second.recovery.warnings.isEmpty)
        #expect(second.store.context(of: "u")?.counters["k"] == 20_100)
    }

    @Test func retiredSegments_areCutToTheirRecords_andEveryRecordRecovers() throws {
        let directory = try severalSegments()
        let all = try segments(directory)
        #expect(all.count >= 2)
        for path in all.dropLast() {
            #expect(bytes(path).count == recordsEnd(path), "\(path) keeps its reserved zeros")
        }
        try expectEveryRecordRecovers(directory)
    }

    @Test func zerosLeftInAnEarlierSegment_readAsItsEnd() throws {
        let directory = try severalSegments()
        #expect(try segments(directory).count >= 2)
        // A crash between a rotation and the cut of the old segment leaves its zeros.
        append(try segments(directory)[0], [UInt8](repeating: 0, count: 5000))
        let check = try Recovery.run(directory: directory, fileSystem: PosixFileSystem(), repair: false, apply: { _ in }, loadSnapshot: { _ in })
        #expect(check.warnings.isEmpty)
        #expect(check.lastSeq == 200)
        try expectEveryRecordRecovers(directory)
    }

    @Test func zerosThenOtherBytes_areATornTailInTheLastSegment_andCorruptionInAnEarlierOne() throws {
        let directory = try severalSegments()
        var all = try segments(directory)
        #expect(all.count >= 2)
        let last = all.removeLast()
        let lastEnd = recordsEnd(last)
        // The zeros a record was being written into, then a stray byte: not padding, a tail that never completed.
        try PosixFileSystem().truncate(last, to: lastEnd)
        append(last, [UInt8](repeating: 0, count: 3000) + [7])
        let repaired = try open(directory, segmentLimit: 2048)
        #expect(repaired.recovery.warnings.count == 1)
        #expect(repaired.store.context(of: "u")?.counters["k"] == 20_100)
        repaired.log.close()

        append(all[0], [UInt8](repeating: 0, count: 3000) + [7])
        #expect(throws: Recovery.Failure.self) { try open(directory, segmentLimit: 2048) }
    }

    /// A flipped bit in an acknowledged record of the live segment is still damage, zeros reserved after it or not:
    /// only a record that shows a sector never written is a torn tail with valid records after it.
    @Test func aBitFlipBeforeTheRecordsEnd_stillRefusesToStart() throws {
        let directory = temporaryDirectory()
        let first = try open(directory)
        try writeCounters(first, 40)
        let segment = try segments(directory)[0]
        first.log.close()
        var content = bytes(segment)
        content[100] ^= 0x04
        #expect(FileManager.default.createFile(atPath: segment, contents: Data(content)))
        #expect(throws: Recovery.Failure.self) { try open(directory) }
    }

    /// A record being written into the zeros shows whole header and part of its payload, then zeros: read at the
    /// file's end it would be a record failing its checksum. History reads the live segment up to the records
    /// written, so a write in progress is never mistaken for damage.
    @Test func history_readsTheLiveSegmentUpToTheRecordsWritten() throws {
        let directory = temporaryDirectory()
        let database = try open(directory)
        defer { database.log.close() }
        try writeCounters(database, 30)
        let written = database.log.writtenEnd!
        // A record in progress past the records' end: a whole header, a payload cut short by zeros.
        var torn: [UInt8] = []
        let payload = MutationCodec.encode(mutation("u", .setAttribute(key: "note", value: .string(String(repeating: "x", count: 300)))))
        LogRecord.encode(seq: 31, payload: payload, into: &torn)
        let handle = FileHandle(forWritingAtPath: written.path)!
        handle.seek(toFileOffset: UInt64(written.bytes))
        handle.write(Data(torn.prefix(100)))
        try? handle.close()
        struct Count: UserLogVisitor {
            var records = 0
            mutating func start(baseSeq: UInt64, base: UserContext?) { records = 0 }
            mutating func visit(_ record: UserLog.Record, before: UserContext?, after: UserContext?) { records += 1 }
        }
        var count = Count()
        let log = try database.userLog(of: "u", baseBefore: nil, into: &count)
        #expect(count.records == 30)
        #expect(log.lastSeq == 30)
        // Read whole, as without the bound, the same bytes are damage: the bound is what keeps the read right.
        var unbounded = Count()
        #expect(throws: HistoryReadError.self) {
            _ = try HistoryReader(directory: directory, fileSystem: PosixFileSystem(), policy: HistoryPolicy())
                .userLog(of: "u", into: &unbounded)
        }
    }

    @Test func padding_isZerosToTheEnd_only() {
        #expect(LogRecord.isPadding([0, 0, 0], from: 0))
        #expect(LogRecord.isPadding([5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], from: 1))
        #expect(!LogRecord.isPadding([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], from: 0))
        #expect(!LogRecord.isPadding([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], from: 0))
        #expect(!LogRecord.isPadding([1, 2], from: 2))
        for length in 0..<40 {
            for position in 0..<length {
                var bytes = [UInt8](repeating: 0, count: length)
                bytes[position] = 0x80
                #expect(!LogRecord.isPadding(bytes, from: 0))
                #expect(LogRecord.isPadding(bytes, from: position + 1) == (position + 1 < length))
            }
        }
    }
}
