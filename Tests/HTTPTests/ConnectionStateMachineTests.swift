import HTTP
import Testing

@Suite struct ConnectionStateMachineTests {
    let t0 = MonotonicInstant(nanoseconds: 1_000_000_000)
    let timeouts = ConnectionTimeouts(
        header: .seconds(10), bodyIdle: .seconds(10), keepAliveIdle: .seconds(75),
        maxRequestsPerConnection: 3, lingerClose: .seconds(2))

    @Test func idle_closesQuietlyAfterKeepAliveTimeout() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        #expect(machine.tick(now: t0 + .seconds(74)) == .none)
        #expect(machine.tick(now: t0 + .seconds(75)) == .close)
    }

    @Test func slowHeader_answers408AtTheDeadlineThenLingers() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0 + .seconds(1))
        #expect(machine.tick(now: t0 + .milliseconds(10_999)) == .none)
        #expect(machine.tick(now: t0 + .seconds(11)) == .respondTimeout)
        #expect(machine.tick(now: t0 + .seconds(12)) == .none)
        #expect(machine.tick(now: t0 + .seconds(13)) == .close)
    }

    @Test func headerDeadline_isNotExtendedByMoreHeaderBytes() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.bytesReceived(now: t0 + .seconds(9))
        #expect(machine.tick(now: t0 + .seconds(10)) == .respondTimeout)
    }

    @Test func bodyIdle_isExtendedByProgress() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: true)
        machine.bytesReceived(now: t0 + .seconds(8))
        #expect(machine.tick(now: t0 + .seconds(17)) == .none)
        #expect(machine.tick(now: t0 + .seconds(18)) == .respondTimeout)
    }

    /// The loop ticks a connection only at `nextDeadline`: it must name the instant each state's tick acts.
    @Test func nextDeadline_isTheInstantTickActs() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        #expect(machine.nextDeadline == t0 + .seconds(75))
        machine.bytesReceived(now: t0 + .seconds(1))
        #expect(machine.nextDeadline == t0 + .seconds(11))
        machine.headReceived(now: t0 + .seconds(2), bodyFollows: true)
        #expect(machine.nextDeadline == t0 + .seconds(12))
        machine.requestComplete()
        #expect(machine.nextDeadline == nil)
        #expect(machine.responseQueued(now: t0 + .seconds(3), keepAlive: true) == .none)
        #expect(machine.nextDeadline == t0 + .seconds(78))
        machine.streamStarted(now: t0 + .seconds(3))
        #expect(machine.nextDeadline(outputPending: false) == t0 + .seconds(18))
        #expect(machine.nextDeadline(outputPending: true) == t0 + .seconds(33))
        machine.streamEnded(now: t0 + .seconds(4))
        #expect(machine.nextDeadline == t0 + .seconds(6))
        #expect(machine.tick(now: t0 + .seconds(6)) == .close)
    }

    @Test func handling_hasNoReadDeadline() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        #expect(machine.tick(now: t0 + .seconds(1000)) == .none)
    }

    @Test func keepAlive_endsAtTheRequestLimit() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        for index in 1...3 {
            machine.bytesReceived(now: t0)
            machine.headReceived(now: t0, bodyFollows: false)
            let keepAlive = machine.shouldKeepAlive(requestWantsKeepAlive: true)
            #expect(keepAlive == (index < 3))
            #expect(machine.responseQueued(now: t0, keepAlive: keepAlive) == (index < 3 ? .none : .closeAfterFlush))
        }
    }

    @Test func clientAskingClose_closesAfterFlush() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        #expect(machine.responseQueued(now: t0, keepAlive: false) == .closeAfterFlush)
    }

    @Test func drain_closesIdleAtOnceAndBusyAfterTheirResponse() {
        var idle = ConnectionStateMachine(timeouts: timeouts, now: t0)
        #expect(idle.beginDrain(now: t0) == .close)

        var busy = ConnectionStateMachine(timeouts: timeouts, now: t0)
        busy.bytesReceived(now: t0)
        busy.headReceived(now: t0, bodyFollows: false)
        #expect(busy.beginDrain(now: t0) == .none)
        #expect(!busy.shouldKeepAlive(requestWantsKeepAlive: true))
        #expect(busy.responseQueued(now: t0, keepAlive: true) == .closeAfterFlush)
    }

    @Test func peerClose_whileHandling_letsTheResponseBeAttempted() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        #expect(machine.peerClosed(now: t0) == .none)
        var idle = ConnectionStateMachine(timeouts: timeouts, now: t0)
        #expect(idle.peerClosed(now: t0) == .close)
    }

    @Test func peerClose_whileHandling_endsTheConnectionAfterTheLastBufferedAnswer() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        #expect(!machine.peerFinished)
        #expect(machine.peerClosed(now: t0) == .none)
        #expect(machine.peerFinished)
        // A pipelined request already received is still answered on a connection kept for it.
        #expect(machine.shouldKeepAlive(requestWantsKeepAlive: true, nextRequestBuffered: true))
        #expect(!machine.shouldKeepAlive(requestWantsKeepAlive: true, nextRequestBuffered: false))
        #expect(machine.responseQueued(now: t0, keepAlive: false) == .closeAfterFlush)
        #expect(machine.isLingering)
        var open = ConnectionStateMachine(timeouts: timeouts, now: t0)
        #expect(open.shouldKeepAlive(requestWantsKeepAlive: true))
        #expect(open.peerClosed(now: t0) == .close)
        #expect(!open.peerFinished)
    }

    /// End of file with answers queued and not yet written: they go out, then the connection closes. Closing at
    /// once cut the last of them.
    @Test(arguments: [false, true])
    func peerClose_withOutputPending_closesAfterTheOutput(lingering: Bool) {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        _ = machine.responseQueued(now: t0, keepAlive: !lingering)
        #expect(machine.peerClosed(now: t0, outputPending: true) == .closeAfterFlush)
        #expect(machine.peerFinished && machine.isLingering)
        var done = ConnectionStateMachine(timeouts: timeouts, now: t0)
        done.bytesReceived(now: t0)
        done.headReceived(now: t0, bodyFollows: false)
        _ = done.responseQueued(now: t0, keepAlive: !lingering)
        #expect(done.peerClosed(now: t0, outputPending: false) == .close)
        var stream = ConnectionStateMachine(timeouts: timeouts, now: t0)
        stream.streamStarted(now: t0)
        #expect(stream.peerClosed(now: t0, outputPending: true) == .close)
    }

    /// A closing connection whose last answer is still being written is not cut at the linger deadline: it stays
    /// while the socket takes bytes, is dropped after `streamStall` without progress, and lingers in full once the
    /// last byte is written.
    @Test func closing_withOutputPending_lingersFromTheLastByteWritten() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        #expect(machine.responseQueued(now: t0, keepAlive: false) == .closeAfterFlush)
        // Still writing at 10 s, far past the 2 s linger: kept while the socket takes bytes.
        machine.outputProgressed(now: t0 + .seconds(10))
        #expect(machine.tick(now: t0 + .seconds(11), outputPending: true) == .none)
        #expect(machine.nextDeadline(outputPending: true) == t0 + .seconds(10) + timeouts.streamStall)
        machine.outputFinished(now: t0 + .seconds(12))
        #expect(machine.tick(now: t0 + .seconds(13)) == .none)
        #expect(machine.tick(now: t0 + .seconds(14)) == .close)
        // A reader that stops taking bytes is dropped after the stall deadline.
        var stalled = ConnectionStateMachine(timeouts: timeouts, now: t0)
        stalled.bytesReceived(now: t0)
        stalled.headReceived(now: t0, bodyFollows: false)
        _ = stalled.responseQueued(now: t0 + .seconds(1), keepAlive: false)
        #expect(stalled.tick(now: t0 + (.seconds(1) + timeouts.streamStall - .milliseconds(1)), outputPending: true) == .none)
        #expect(stalled.tick(now: t0 + (.seconds(1) + timeouts.streamStall), outputPending: true) == .close)
    }

    /// A pipelined head held back while our answers wait for a slow reader is not the client's delay: no 408 at
    /// the header deadline, only the stall deadline while output waits; once it is out, the deadline is the header's.
    @Test func pipelinedHead_heldForOurOutput_isNotTimedOut() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        #expect(machine.responseQueued(now: t0, keepAlive: true, nextRequestBuffered: true) == .none)
        machine.outputProgressed(now: t0 + .seconds(9))
        #expect(machine.tick(now: t0 + .seconds(20), outputPending: true) == .none)
        #expect(machine.nextDeadline(outputPending: true) == t0 + .seconds(9) + timeouts.streamStall)
        #expect(machine.tick(now: t0 + .seconds(9) + timeouts.streamStall, outputPending: true) == .close)
        var drained = ConnectionStateMachine(timeouts: timeouts, now: t0)
        drained.bytesReceived(now: t0)
        drained.headReceived(now: t0, bodyFollows: false)
        _ = drained.responseQueued(now: t0, keepAlive: true, nextRequestBuffered: true)
        #expect(drained.tick(now: t0 + .seconds(10), outputPending: false) == .respondTimeout)
    }

    /// `100 Continue` queued after a long idle wait starts its own wait for the socket: the stall deadline does
    /// not run from the connection's last progress, a minute before, and close it at once.
    @Test func continueQueued_afterALongIdle_isNotAStall() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0 + .seconds(60))
        machine.headReceived(now: t0 + .seconds(60), bodyFollows: true)
        machine.outputQueued(now: t0 + .seconds(60))
        #expect(machine.tick(now: t0 + .seconds(61), outputPending: true) == .none)
        #expect(machine.nextDeadline(outputPending: true) == t0 + .seconds(60) + timeouts.streamStall)
    }

    /// A body dripped one byte every 5 s never trips the 10 s idle deadline; the total body deadline (60 s by
    /// default) must end it anyway, or such connections hold their slots forever.
    @Test func slowBody_withSteadyProgress_isAnswered408AtTheTotalBodyDeadline() {
        var machine = ConnectionStateMachine(timeouts: .default, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: true)
        var answered: Duration?
        for second in stride(from: 5, through: 120, by: 5) {
            let now = t0 + .seconds(second)
            if machine.tick(now: now) == .respondTimeout {
                answered = .seconds(second)
                break
            }
            machine.bytesReceived(now: now)
        }
        #expect(answered == .seconds(60))
    }

    @Test func bodyDeadline_isTheEarlierOfIdleAndTotal() {
        let short = ConnectionTimeouts(header: .seconds(10), bodyIdle: .seconds(10), body: .seconds(15), keepAliveIdle: .seconds(75))
        var machine = ConnectionStateMachine(timeouts: short, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0 + .seconds(1), bodyFollows: true)
        #expect(machine.nextDeadline == t0 + .seconds(11))
        machine.bytesReceived(now: t0 + .seconds(9))
        #expect(machine.nextDeadline == t0 + .seconds(16))
        #expect(machine.tick(now: t0 + .milliseconds(15_999)) == .none)
        #expect(machine.tick(now: t0 + .seconds(16)) == .respondTimeout)
    }

    /// Bytes of the next request already buffered when a response is queued start its header deadline then,
    /// not the longer keep-alive idle one.
    @Test func pipelinedBytesBuffered_startTheHeaderDeadlineWhenTheResponseIsQueued() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        #expect(machine.responseQueued(now: t0 + .seconds(1), keepAlive: true, nextRequestBuffered: true) == .none)
        #expect(machine.nextDeadline == t0 + .seconds(11))
        #expect(machine.tick(now: t0 + .seconds(11)) == .respondTimeout)
    }

    @Test(arguments: [(0, true), (256 * 1024, true), (256 * 1024 + 1, false)])
    func reading_pausesWhileMoreThanTheOutputLimitWaits(pending: Int, reads: Bool) {
        let machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        #expect(machine.shouldRead(pendingOutputBytes: pending) == reads)
    }

    // MARK: - Streams: heartbeat, stall and linger, all through the machine

    @Test func idleStream_getsAHeartbeatAfterTheInterval_andOnlyThen() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.streamStarted(now: t0)
        #expect(machine.tick(now: t0 + .seconds(14)) == .none)
        #expect(machine.tick(now: t0 + .seconds(15)) == .sendHeartbeat)
        // The heartbeat went out: the next one is due an interval later.
        machine.outputProgressed(now: t0 + .seconds(15))
        #expect(machine.nextDeadline(outputPending: false) == t0 + .seconds(30))
        #expect(machine.tick(now: t0 + .seconds(29)) == .none)
    }

    @Test func streamWithBytesWaiting_isDroppedAtTheStallDeadline_notBefore() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.streamStarted(now: t0)
        machine.outputProgressed(now: t0 + .seconds(5))
        // No heartbeat while bytes wait: the stall clock runs from the last progress.
        #expect(machine.tick(now: t0 + .seconds(34), outputPending: true) == .none)
        #expect(machine.tick(now: t0 + .seconds(35), outputPending: true) == .dropSlowStream)
        #expect(machine.state == .closed)
    }

    @Test func progressFromAnotherWriter_movesTheDeadlines_butNeverBack() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.streamStarted(now: t0 + .seconds(10))
        machine.outputProgressed(now: t0 + .seconds(2))
        #expect(machine.nextDeadline(outputPending: true) == t0 + .seconds(40))
        machine.outputProgressed(now: t0 + .seconds(20))
        #expect(machine.nextDeadline(outputPending: true) == t0 + .seconds(50))
    }

    @Test func endedStream_lingersUntilItsDeadline_thenCloses() {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.streamStarted(now: t0)
        #expect(!machine.isLingering)
        machine.streamEnded(now: t0 + .seconds(1))
        #expect(machine.isLingering)
        #expect(machine.tick(now: t0 + .seconds(2)) == .none)
        #expect(machine.tick(now: t0 + .seconds(3)) == .close)
        #expect(!machine.isLingering)
    }

    @Test(arguments: [true, false])
    func closingResponse_lingers_keepAliveResponse_doesNot(keepAlive: Bool) {
        var machine = ConnectionStateMachine(timeouts: timeouts, now: t0)
        machine.bytesReceived(now: t0)
        machine.headReceived(now: t0, bodyFollows: false)
        _ = machine.responseQueued(now: t0, keepAlive: keepAlive)
        #expect(machine.isLingering == !keepAlive)
    }
}
