import Foundation
import StoreFixtures
import Synchronization
import Testing

@testable import Store

/// A round's end that finds nothing queued notes so (`mayHaveWork`), and the next round with no write ends on one
/// load. The note must never hide a record: whatever is queued after it is written by the next round's end.
@Suite struct AppendLogIdleRoundTests {
    static func noted(_ log: AppendLog) -> Bool { log.mayHaveWork.load(ordering: .relaxed) }

    @Test(arguments: [FsyncPolicy.never, .interval, .always])
    func anIdleRoundEnd_isNoted_andALaterRecordIsStillWritten(policy: FsyncPolicy) throws {
        let log = try AppendLog(
            directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: policy, nextSeq: 1, writersCommit: true)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        log.flushRoundHere()
        #expect(!Self.noted(log))
        #expect(!log.roundWouldCommit)
        for round in 1...3 {
            let seq = try log.append([UInt8(round)])
            #expect(Self.noted(log))
            #expect(log.roundWouldCommit)
            log.flushRoundHere()
            #expect(!log.hasUnflushed)
            let done = DispatchSemaphore(value: 0)
            log.whenAcknowledged(seq) { _ in done.signal() }
            #expect(done.wait(timeout: .now() + 30) == .success)
            // The next idle round's end finds nothing, and notes it again.
            log.flush(handingOffAbove: AppendLog.handOffAbove)
            #expect(!Self.noted(log))
        }
    }

    /// A requested rotation is work too: an idle round's end after it still makes the cut.
    @Test func aRotationAfterAnIdleRound_isMadeByTheNextRoundsEnd() throws {
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: .never, nextSeq: 1)
        defer { log.close() }
        _ = try log.append([1])
        log.flush(handingOffAbove: AppendLog.handOffAbove)
        log.flush(handingOffAbove: AppendLog.handOffAbove)
        #expect(!Self.noted(log))
        let ticket = log.requestRotation()
        #expect(Self.noted(log))
        log.flush(handingOffAbove: AppendLog.handOffAbove)
        let rotated = DispatchSemaphore(value: 0)
        Thread {
            log.waitForRotation(ticket)
            rotated.signal()
        }.start()
        #expect(rotated.wait(timeout: .now() + 30) == .success)
    }

    /// One thread appends and ends a round after each record, as a loop does; another ends idle rounds as fast as
    /// it can, clearing the note whenever it finds nothing. Every record is still written, by one round's end or
    /// the other's.
    @Test func idleRoundEndsOnAnotherThread_neverStrandARecord() throws {
        let log = try AppendLog(directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: .never, nextSeq: 1)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        let stop = Atomic<Bool>(false)
        let idle = Thread {
            while !stop.load(ordering: .relaxed) { log.flush(handingOffAbove: AppendLog.handOffAbove) }
        }
        idle.start()
        var last: UInt64 = 0
        for record in 0..<20_000 {
            last = try log.append([UInt8(truncatingIfNeeded: record)])
            log.flush(handingOffAbove: AppendLog.handOffAbove)
        }
        stop.store(true, ordering: .relaxed)
        let done = DispatchSemaphore(value: 0)
        log.whenAcknowledged(last) { _ in done.signal() }
        #expect(done.wait(timeout: .now() + 30) == .success)
    }
}
