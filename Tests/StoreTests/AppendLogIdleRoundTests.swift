import Foundation
import StoreFixtures
import Synchronization
import Testing

@testable import Store

/// A round's end that finds nothing queued notes so (`mayHaveWork`), and the next round with no write ends on one
/// load. The note must never hide a record: whatever is queued after it is written by the next round's end.
@Suite struct AppendLogIdleRoundTests {
    static func noted(_ log: AppendLog) -> Bool { log.mayHaveWork.load(ordering: .relaxed) }

    /// Every policy, and under `always` both ways of committing: the loop's own, and the writer thread's.
    @Test(arguments: [(FsyncPolicy.never, true), (.interval, true), (.always, true), (.always, false)])
    func anIdleRoundEnd_isNoted_andALaterRecordIsStillWritten(policy: FsyncPolicy, writersCommit: Bool) throws {
        let log = try AppendLog(
            directory: temporaryDirectory(), fileSystem: PosixFileSystem(), policy: policy, nextSeq: 1, writersCommit: writersCommit)
        defer { log.close() }
        log.wakeWriterAtRoundEnds(isRoundThread: { true })
        log.flushRoundHere()
        #expect(!Self.noted(log))
        #expect(!log.roundWouldCommit)
        for round in 1...3 {
            let seq = try log.append([UInt8(round)])
            #expect(Self.noted(log))
            // With the writer thread committing, it may already have taken the record (it looks for work before it
            // sleeps): only a loop committing its own rounds is sure to find it still queued.
            if writersCommit { #expect(log.roundWouldCommit) }
            log.flushRoundHere()
            let done = DispatchSemaphore(value: 0)
            log.whenAcknowledged(seq) { _ in done.signal() }
            #expect(done.wait(timeout: .now() + 30) == .success)
            #expect(!log.hasUnflushed)
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
        // Each record is waited for before the next: one stranded would wait for ever, not only the last one.
        for record in 0..<5_000 {
            let seq = try log.append([UInt8(truncatingIfNeeded: record)])
            log.flush(handingOffAbove: AppendLog.handOffAbove)
            let done = DispatchSemaphore(value: 0)
            log.whenAcknowledged(seq) { _ in done.signal() }
            guard done.wait(timeout: .now() + 10) == .success else {
                Issue.record("record \(seq) was never written")
                break
            }
        }
        stop.store(true, ordering: .relaxed)
    }
}
