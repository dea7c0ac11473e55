import Glibc
import HTTP

/// What the connection does with its state machine's actions and its output buffer: deadlines, writes, the end of
/// writing, and closing. Loop thread only, like the rest of the connection.
extension HTTPConnection {
    // MARK: - Actions and output

    /// Tells the loop when this connection next needs a tick. Called after anything that can move the deadline
    /// earlier; a deadline that only moved later just costs one early tick.
    func refreshDeadline() {
        guard !isClosed else { return }
        let deadline = machine.nextDeadline(outputPending: output.count > outputOffset)
        // A request refreshes it several times, mostly to the same instant: the loop's table is only told of a
        // change. (A tick clears the loop's entry, so `tick` forgets the armed value before it refreshes.)
        guard deadline != armedDeadline else { return }
        armedDeadline = deadline
        loop.setDeadline(self, deadline)
    }

    func perform(_ action: ConnectionStateMachine.Action) {
        defer { refreshDeadline() }
        switch action {
        case .none:
            break
        case .close:
            close()
        case .closeAfterFlush:
            if output.count == outputOffset { finishWriting() }
        case .respondTimeout:
            respondAndClose(
                ErrorResponse.response(
                    .requestTimeout, code: "request_timeout",
                    message: "the request was not received in time"), version: head?.version ?? .http11)
            if output.count == outputOffset { finishWriting() }
        case .sendHeartbeat:
            // Per stream and only when idle, so heartbeats are spread over the ticks instead of one burst. Behind
            // any event handed over and not written yet, as every event is (see `drain`).
            sendEvent(Self.heartbeat, direct: false)
        case .dropSlowStream:
            endStream(.slowConsumer)
        }
    }

    /// A response's bytes go out when the loop's round ends, with every other reply of the round (see
    /// `EventLoop.sendAtRoundEnd`); at once on a loop without rounds.
    func sendAtRoundEnd() {
        guard !sendQueued else { return }
        if loop.sendAtRoundEnd(self) {
            sendQueued = true
        } else {
            flush()
        }
    }

    func sendQueuedOutput() {
        guard sendQueued else { return }
        flush()
        refreshDeadline()
    }

    func flush() {
        // Any flush sends what a queued one would have.
        sendQueued = false
        guard !isClosed else { return }
        let failed =
            gateOpen
            ? gate.withSocket { () -> (result: Bool, pending: Bool) in
                let failed = writeOutput()
                return (failed, outputOffset < output.count)
            } : writeOutput()
        if failed {
            close()
            return
        }
        if outputOffset < output.count {
            if !wantsWrite {
                wantsWrite = true
                updateInterest()
            }
            return
        }
        output.removeAll(keepingCapacity: output.capacity <= 65_536)
        outputOffset = 0
        if wantsWrite {
            wantsWrite = false
            updateInterest()
        }
        if machine.isLingering { finishWriting() }
    }

    /// Sends what the socket takes; true when the socket failed.
    func writeOutput() -> Bool {
        let (offset, failed) = Self.send(fd, &output, from: outputOffset)
        if offset > outputOffset {
            outputOffset = offset
            machine.outputProgressed(now: loop.now)
        }
        return failed
    }

    /// The output lent in place, `inout`: read as a value (passed, or lent through `withUnsafeBytes`), the buffer was
    /// retained and released around every send.
    private static func send(_ fd: Int32, _ output: inout [UInt8], from offset: Int) -> (offset: Int, failed: Bool) {
        output.withUnsafeBytes { Socket.send(fd, $0, from: offset) }
    }

    /// Everything is written and the connection ends: half-close so the client reads our last response, then
    /// discard input until the client closes or the linger deadline passes.
    func finishWriting() {
        guard !isClosed else { return }
        machine.outputFinished(now: loop.now)
        shutdown(fd, Int32(SHUT_WR))
        // Nothing will read the peer's close if reading stopped for good; a pause for output ends here too.
        if machine.peerFinished {
            close()
        } else if readPaused {
            heldForOutput = false
            updateReading()
        }
    }

    func updateInterest() {
        guard !isClosed else { return }
        loop.setInterest(self, read: !readPaused, write: wantsWrite)
    }

    func close() {
        guard !isClosed else { return }
        // A reply waiting for the round's end was complete before this close was decided (a probe evicted, a
        // lingering peer's end of file, a drain's deadline): it goes first, as it would have before the round ended.
        if sendQueued {
            flush()
            if isClosed { return }
        }
        // Before the descriptor goes: no direct write may reach a number the kernel hands out again.
        gate.close()
        gateOpen = false
        isClosed = true
        if let open = stream {
            stream = nil
            open.markClosed(.peerClosed)
        }
        loop.close(self)
        if holdsSlot { context.connectionClosed(client: client) }
    }
}
