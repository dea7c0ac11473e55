import Foundation
import Rules
import Store
import StoreFixtures
import Synchronization
import TestRandom
import Testing

@Suite(.serialized) struct DurabilityTests {
    func open(
        _ directory: String, fsync: FsyncPolicy = .never, snapshotEvery: Int = 1_000_000,
        fileSystem: FileSystem = PosixFileSystem(), segmentLimit: Int? = nil
    ) throws -> Database {
        var options = Database.Options(directory: directory, fsync: fsync, fsyncInterval: .milliseconds(5), snapshotEvery: snapshotEvery)
        if let segmentLimit { options.segmentLimit = segmentLimit }
        return try Database(options: options, fileSystem: fileSystem)
    }

    /// Random mutations applied live, then the same directory recovered: identical state.
    @Test(arguments: [false, true])
    func replay_recoversExactlyTheLiveState(snapshotInTheMiddle: Bool) throws {
        let directory = temporaryDirectory()
        let database = try open(directory)
        var generator = SplitMix(seed: snapshotInTheMiddle ? 11 : 12)
        var applied = 0
        var actions = 0
        while actions < 10_000 {
            let count = 1 + generator.next(upTo: 3)
            let now = t0 + Int64(actions) * 1000
            let batch = (0..<count).map { _ in generator.action(now: now) }
            actions += count
            if (try? database.store.apply(Mutation(user: "user-\(generator.next(upTo: 50))", now: now, actions: batch))) != nil { applied += 1 }
            if snapshotInTheMiddle, actions >= 5000, actions - count < 5000 { try database.takeSnapshot() }
        }
        let live = database.store.allUsers
        database.log.close()
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.store.allUsers == live)
        #expect(recovered.recovery.replayedRecords == (snapshotInTheMiddle ? applied - Int(recovered.recovery.snapshotSeq) : applied))
        #expect(applied > 3000)
    }

    @Test func restart_continuesSeqAndAppendsToTheSameLog() throws {
        let directory = temporaryDirectory()
        let first = try open(directory)
        for index in 0..<10 { _ = try first.writeAndWait(mutation("u", .increment(counter: "k", by: index))) }
        first.log.close()
        let second = try open(directory)
        let applied = try second.writeAndWait(mutation("u", .increment(counter: "k", by: 1)))
        #expect(applied.seq == 11)
        second.log.close()
        let third = try open(directory)
        defer { third.log.close() }
        #expect(third.store.context(of: "u")?.counters["k"] == 46)
    }

    /// Cut the last record at every byte offset: the daemon starts with every complete record.
    @Test func tornTail_atEveryOffset_isTruncatedWithAWarning() throws {
        let directory = temporaryDirectory()
        let database = try open(directory)
        for index in 1...5 { _ = try database.writeAndWait(mutation("u", .setCounter(counter: "k", value: index))) }
        database.log.close()
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasPrefix("segment-") })
        let path = directory + "/" + segment
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let lastRecordLength = 16 + MutationCodecProbe.payloadLength(mutation("u", .setCounter(counter: "k", value: 5)))
        let lastStart = whole.count - lastRecordLength
        for cut in lastStart..<whole.count {
            let copy = temporaryDirectory()
            try whole.prefix(cut).write(to: URL(fileURLWithPath: copy + "/" + segment))
            let recovered = try open(copy)
            #expect(recovered.store.context(of: "u")?.counters["k"] == 4, "cut at \(cut)")
            #expect(recovered.recovery.warnings.count == (cut == lastStart ? 0 : 1))
            // The truncated log keeps working.
            #expect(try recovered.writeAndWait(mutation("u", .setCounter(counter: "k", value: 9))).seq == 5)
            recovered.log.close()
            #expect(try open(copy).store.context(of: "u")?.counters["k"] == 9)
        }
    }

    /// A single flipped bit in any record but the last refuses to start and names the file and offset.
    @Test func bitFlipBeforeTheTail_refusesNamingTheOffset() throws {
        let directory = temporaryDirectory()
        let database = try open(directory)
        for index in 1...4 { _ = try database.writeAndWait(mutation("user-\(index)", .setCounter(counter: "k", value: index))) }
        database.log.close()
        let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: directory).first { $0.hasPrefix("segment-") })
        let whole = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + segment)))
        let recordLength = whole.count / 4
        for byte in 0..<(recordLength * 3) {
            for bit in [0, 3, 7] {
                var damaged = whole
                damaged[byte] ^= UInt8(1 << bit)
                let copy = temporaryDirectory()
                try Data(damaged).write(to: URL(fileURLWithPath: copy + "/" + segment))
                do {
                    _ = try open(copy)
                    Issue.record("flip at byte \(byte) bit \(bit) was accepted")
                } catch {
                    guard case .corrupt(let file, let offset, _)? = error as? Recovery.Failure else {
                        Issue.record("unexpected \(error)")
                        continue
                    }
                    #expect(file.hasSuffix(segment))
                    #expect(offset == byte / recordLength * recordLength, "flip at \(byte)")
                }
            }
        }
    }

    @Test func secondSnapshotAfterAnErase_compactsSegmentsAndErasedUsersLeaveTheDisk() throws {
        let directory = temporaryDirectory()
        let database = try open(directory)
        _ = try database.writeAndWait(mutation("secret-user-id", .setAttribute(key: "email", value: "private@example.com")))
        _ = try database.writeAndWait(mutation("keeper", .increment(counter: "k", by: 1)))
        _ = try database.writeAndWait(mutation("secret-user-id", .erase))
        #expect(database.store.context(of: "secret-user-id") == nil)
        // The first snapshot after the erase keeps the log before it as the way back; the second drops it.
        try database.takeSnapshot()
        _ = try database.writeAndWait(mutation("keeper", .increment(counter: "k", by: 1)))
        try database.takeSnapshot()
        database.log.close()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            #expect(bytes.range(of: Data("secret-user-id".utf8)) == nil, "\(name) still holds the erased user")
        }
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.store.context(of: "secret-user-id") == nil)
        #expect(recovered.store.context(of: "keeper")?.counters["k"] == 2)
    }

    /// Inline writers on many threads, segments rotating every few records and snapshots taken meanwhile: the
    /// log stays in seq order across segments and replays to exactly the live state.
    @Test(arguments: [FsyncPolicy.interval, .never])
    func inlineWriters_rotatingSegments_replayExactly(policy: FsyncPolicy) throws {
        let directory = temporaryDirectory()
        let database = try open(directory, fsync: policy, segmentLimit: 2048)
        let group = DispatchGroup()
        for writer in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                for index in 0..<400 {
                    _ = try? database.writeAndWait(mutation("user-\(writer)-\(index % 7)", .increment(counter: "k", by: 1)))
                    if writer == 0, index % 100 == 50 { _ = try? database.takeSnapshot() }
                }
                group.leave()
            }
        }
        group.wait()
        #expect(database.log.failed == nil)
        let live = database.store.allUsers
        database.log.close()
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.store.allUsers == live)
        #expect(recovered.recovery.lastSeq == 1600)
        #expect(recovered.recovery.warnings.isEmpty)
    }

    /// Records written while a snapshot is taken go to the new segment, so compaction can drop the old one and an
    /// erased user is gone from disk (two snapshots after the erase) even while other writers keep going.
    @Test func erasedUser_leavesTheDisk_whileOthersKeepWriting() throws {
        let directory = temporaryDirectory()
        let database = try open(directory, fsync: .interval)
        _ = try database.writeAndWait(mutation("secret-user-id", .setAttribute(key: "email", value: "private@example.com")))
        let running = Atomic<Bool>(true)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while running.load(ordering: .relaxed) { _ = try? database.writeAndWait(mutation("keeper", .increment(counter: "k", by: 1))) }
            done.signal()
        }
        _ = try database.writeAndWait(mutation("secret-user-id", .erase))
        try database.takeSnapshot()
        try database.takeSnapshot()
        running.store(false, ordering: .relaxed)
        done.wait()
        database.log.close()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            #expect(bytes.range(of: Data("secret-user-id".utf8)) == nil, "\(name) still holds the erased user")
        }
    }

    /// The second snapshot after an erase may find nothing new since the first (no write came in between): it
    /// still counts as the second, so the segments holding the erased user go — and the directory still recovers.
    @Test(arguments: [FsyncPolicy.never, .interval, .always])
    func erasedUser_leavesTheDisk_whenNothingIsWrittenBetweenTheTwoSnapshots(policy: FsyncPolicy) throws {
        let directory = temporaryDirectory()
        let database = try open(directory, fsync: policy)
        _ = try database.writeAndWait(mutation("keeper", .increment(counter: "k", by: 1)))
        _ = try database.writeAndWait(mutation("secret-user-id", .setAttribute(key: "email", value: "private@example.com")))
        _ = try database.writeAndWait(mutation("keeper", .increment(counter: "k", by: 1)))
        let erased = try database.writeAndWait(mutation("secret-user-id", .erase)).seq
        let first = try database.takeSnapshot()
        let second = try database.takeSnapshot()
        #expect(first == erased && second == erased)
        database.log.close()
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            #expect(bytes.range(of: Data("secret-user-id".utf8)) == nil, "\(name) still holds the erased user")
        }
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.recovery.snapshotSeq == erased)
        #expect(recovered.store.context(of: "secret-user-id") == nil)
        #expect(recovered.store.context(of: "keeper")?.counters["k"] == 2)
    }

    /// An event loop ends a round with `flush(handingOffAbove:)`: a small batch is written on the spot, a large one
    /// by the writer thread — and either way every record is acknowledged.
    @Test func roundEndFlush_writesSmallBatchesInPlace_andHandsLargeOnesOff() throws {
        let directory = temporaryDirectory()
        let database = try open(directory, fsync: .interval)
        defer { database.log.close() }
        // `store.apply` only queues; nothing is written until a flush.
        var last: UInt64 = 0
        for index in 0..<2 { last = try database.store.apply(mutation("u", .setCounter(counter: "k", value: index))).seq }
        database.log.flush(handingOffAbove: 4)
        let inPlace = Atomic<Bool>(false)
        database.log.whenAcknowledged(last) { _ in inPlace.store(true, ordering: .relaxed) }
        let acknowledgedInPlace = inPlace.load(ordering: .relaxed)
        #expect(acknowledgedInPlace, "a small batch is acknowledged before flush returns")

        for index in 0..<10 { last = try database.store.apply(mutation("u", .setCounter(counter: "k", value: 10 + index))).seq }
        database.log.flush(handingOffAbove: 4)
        let done = DispatchSemaphore(value: 0)
        database.log.whenAcknowledged(last) { result in
            if case .success = result { done.signal() }
        }
        #expect(done.wait(timeout: .now() + 5) == .success, "the writer thread writes a handed-off batch")
        database.log.close()
        let recovered = try open(directory)
        defer { recovered.log.close() }
        #expect(recovered.store.context(of: "u")?.counters["k"] == 19)
    }

    /// Under `always`, a batch that straddles a snapshot's cut is acknowledged only once both segments it went
    /// to are fsynced — the old one too, before it is retired.
    @Test func always_recordsBeforeARotationCut_areFsyncedBeforeTheirAck() throws {
        let directory = temporaryDirectory()
        let journaling = FaultyFileSystem()
        let gated = GatedFileSystem(journaling)
        let log = try AppendLog(directory: directory, fileSystem: gated, policy: .always, nextSeq: 1)
        defer { log.close() }
        let firstSegment = directory + "/" + AppendLog.segmentName(firstSeq: 1)
        // The writer takes record 1 and stops inside its write; 2 and 3, the cut and 4 then form one batch.
        _ = try log.append([1])
        gated.waitUntilBlocked()
        _ = try log.append([2])
        let beforeCut = try log.append([3])
        log.requestRotation()
        let afterCut = try log.append([4])
        let seen = Mutex<[String]?>(nil)
        log.whenAcknowledged(beforeCut) { _ in seen.withLock { $0 = journaling.journal } }
        gated.release()
        try log.waitAcknowledged(afterCut)
        let journal = try #require(seen.withLock { $0 })
        let secondWrite = try #require(journal.indices.filter { journal[$0] == "write \(firstSegment)" }.dropFirst().first)
        #expect(journal[secondWrite...].contains("fsync \(firstSegment)"), "acknowledged before the old segment was fsynced: \(journal)")
    }

    @Test func groupCommit_concurrentWritersShareFsyncs() throws {
        let directory = temporaryDirectory()
        let database = try open(directory, fsync: .always)
        defer { database.log.close() }
        let writers = 16
        let perWriter = 50
        // Real threads, not concurrentPerform (which runs only one per core): writers must wait on fsyncs together.
        let group = DispatchGroup()
        for writer in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                for index in 0..<perWriter {
                    _ = try? database.writeAndWait(mutation("user-\(writer)", .setCounter(counter: "k", value: index)))
                }
                group.leave()
            }
        }
        group.wait()
        #expect(database.log.lastSeq == UInt64(writers * perWriter))
        #expect(database.log.fsyncs < writers * perWriter)
    }

    @Test func failedWrite_refusesEveryLaterWrite() throws {
        let directory = temporaryDirectory()
        let faulty = FaultyFileSystem(failAt: 4, fault: .error(EIO))
        let database = try open(directory, fsync: .always, fileSystem: faulty)
        defer { database.log.close() }
        var outcomes: [Bool] = []
        for index in 0..<5 { outcomes.append((try? database.writeAndWait(mutation("u", .setCounter(counter: "k", value: index)))) != nil) }
        #expect(outcomes.contains(false))
        let firstFailure = outcomes.firstIndex(of: false)!
        #expect(outcomes[firstFailure...].allSatisfy { !$0 })
        #expect(database.log.failed != nil)
    }

    /// Fail each mutating call of a write + snapshot cycle in turn: every acknowledged write survives, nothing
    /// unacknowledged is half-applied, and the directory always recovers.
    /// Under `always` the writer thread writes; under `interval` and `never` the callers write inline.
    @Test(arguments: [FaultyFileSystem.Fault.error(EIO), .error(ENOSPC), .shortWrite], [FsyncPolicy.always, .interval, .never])
    func faultInjection_neverLosesAnAcknowledgedWrite(fault: FaultyFileSystem.Fault, policy: FsyncPolicy) throws {
        let probe = FaultyFileSystem()
        try runCycle(directory: temporaryDirectory(), fileSystem: probe, policy: policy)
        let calls = probe.calls
        #expect(calls > 10)
        // The interval fsync may add calls in a later run: go a few past the probe's count.
        for failAt in 1...(calls + 3) {
            let directory = temporaryDirectory()
            let acknowledged = try runCycle(directory: directory, fileSystem: FaultyFileSystem(failAt: failAt, fault: fault), policy: policy)
            let recovered = try open(directory)
            defer { recovered.log.close() }
            for user in ["u0", "u1", "u2"] {
                let context = recovered.store.context(of: user)
                let counter = context?.counters["n"] ?? 0
                #expect(counter >= acknowledged[user, default: 0], "call \(failAt): \(user) lost an acknowledged write")
                // Both actions of a batch or neither.
                #expect(context?.attributes["n"] == (counter == 0 ? nil : .int(counter)), "call \(failAt): half-applied batch")
            }
        }
    }

    @discardableResult
    func runCycle(directory: String, fileSystem: FileSystem, policy: FsyncPolicy) throws -> [String: Int] {
        guard let database = try? open(directory, fsync: policy, fileSystem: fileSystem) else { return [:] }
        var acknowledged: [String: Int] = [:]
        for index in 0..<30 {
            let user = "u\(index % 3)"
            let next = (database.store.context(of: user)?.counters["n"] ?? 0) + 1
            if (try? database.writeAndWait(mutation(user, .setCounter(counter: "n", value: next), .setAttribute(key: "n", value: .int(next))))) != nil
            {
                acknowledged[user] = next
            }
            if index == 15 { _ = try? database.takeSnapshot() }
        }
        database.log.close()
        return acknowledged
    }
}

/// The encoded size of a mutation, to find record boundaries in tests.
enum MutationCodecProbe {
    static func payloadLength(_ mutation: Mutation) -> Int { Database.encodedLength(of: mutation) }
}

/// Passes every call through, except that the first `write` waits until the test releases it.
final class GatedFileSystem: ForwardingFileSystem, @unchecked Sendable {
    let inner: FileSystem
    private let blocked = DispatchSemaphore(value: 0)
    private let gate = DispatchSemaphore(value: 0)
    private let first = Atomic<Bool>(true)

    init(_ inner: FileSystem) { self.inner = inner }

    func waitUntilBlocked() { blocked.wait() }
    func release() { gate.signal() }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int {
        if first.exchange(false, ordering: .relaxed) {
            blocked.signal()
            gate.wait()
        }
        return try inner.write(fd, bytes, path: path)
    }
}
