import HTTP

#if canImport(Glibc)
import Glibc
#endif

/// The streaming response (SSE) of a connection: a chunked `200` that stays open, events written by this loop or,
/// through the `StreamGate`, by the thread that made them.
extension HTTPConnection {
    /// Writes the head of a chunked `200` response that stays open; events follow as chunks.
    func beginStream(_ newStream: EventStream, headers: HTTPHeaders, generation expected: Int) {
        guard !isClosed, awaitingResponse, expected == generation, let head else {
            newStream.markClosed(.peerClosed)
            return
        }
        var all = headers
        all.add("X-Request-Id", requestID.text)
        // HTTP/1.0 has no chunked coding: the stream is delimited by the close.
        let framing: HTTPResponseEncoder.Framing = head.version == .http11 ? .chunked : .none
        if head.method == "HEAD" {
            // RFC 9110 §9.3.2: the head a GET would get and nothing else. The stream is closed before the handler
            // sees it, so nothing subscribes and no event can follow; the connection serves the next request.
            newStream.markClosed(.serverClosed)
            answerHeadOnly(headers: all, framing: framing)
            return
        }
        streamLimit = context.configuration.streamBufferBytes
        HTTPResponseEncoder.encodeHead(
            status: .ok, headers: all, framing: framing, version: head.version,
            keepAlive: head.version == .http11, date: context.dates.current(), into: &output)
        stream = newStream
        gateOpen = true
        // Bound what the kernel may hold for a stream, so a client that stops reading shows up in our own buffer
        // (and is dropped at its limit) instead of hiding in megabytes of autotuned socket buffer.
        var sendBuffer: Int32 = 64 * 1024
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sendBuffer, socklen_t(MemoryLayout<Int32>.size))
        machine.streamStarted(now: loop.now)
        defer { refreshDeadline() }
        context.accessLog(head, .ok, requestStart, requestID, peer)
        flush()
        // Only now, with the head in the socket or in our buffer: no direct write can overtake it.
        gate.open(chunked: framing == .chunked)
    }

    /// Any thread: one event for this stream. On this loop it is written now; from another thread it goes
    /// straight to the socket when `direct` and the gate allows, else to this loop's batch.
    func sendEvent(_ frame: EventFrame, direct: Bool) {
        // The hub sends under its own lock, so no other publisher can queue a hand-off between check and write.
        if loop.inEventLoop, gate.nothingQueued {
            streamWrite(frame)
            return
        }
        gate.send(frame, direct: direct) { payload in batcher.enqueue(self, payload) }
    }

    /// A hand-off from `sendEvent`, in the order they were made. Counted off the gate only once its bytes are in the
    /// socket or in this loop's buffer (the gate then knows output is pending): counted off first, a publisher on
    /// another thread found nothing queued and nothing pending in between, and wrote its next event straight to the
    /// socket ahead of this one, inside the chunk this was the rest of (a client read "bad chunk size").
    func streamWriteHandedOff(_ payload: StreamBatcher.Payload) {
        defer { gate.dequeued() }
        switch payload {
        case .frame(let frame): streamWrite(frame)
        case .wire(let bytes): streamWrite(wire: bytes)
        }
    }

    func streamWrite(_ frame: EventFrame) {
        guard let head else { return }
        streamWrite(wire: frame.wire(chunked: head.version == .http11))
    }

    /// Bytes framed for this stream's socket.
    private func streamWrite(wire bytes: [UInt8]) {
        guard !isClosed, let stream, !stream.isClosed else { return }
        // Back-pressure: a client that does not read is dropped, never buffered without bound.
        if output.count - outputOffset + bytes.count > streamLimit {
            endStream(.slowConsumer)
            return
        }
        if output.count == outputOffset {
            sendUnbuffered(bytes)
        } else {
            output += bytes
            flush()
        }
        // Bytes left waiting start the stall clock, which may run out before the next heartbeat was due.
        if output.count > outputOffset { refreshDeadline() }
    }

    /// Nothing waits in the buffer: sent from the frame's own bytes, which every stream taking the event shares,
    /// and only what the socket does not take is copied into the buffer. Copied first, a fan-out wrote into ten
    /// thousand buffers an event and emptied each again.
    private func sendUnbuffered(_ bytes: [UInt8]) {
        let (sent, failed) =
            gateOpen
            ? gate.withSocket { () -> (result: (offset: Int, failed: Bool), pending: Bool) in
                let outcome = Socket.send(fd, bytes, from: 0)
                // Set under the lock before it opens: a publisher on another thread then hands its event over.
                return (outcome, outcome.offset < bytes.count)
            } : Socket.send(fd, bytes, from: 0)
        if failed {
            close()
            return
        }
        if sent > 0 { machine.outputProgressed(now: loop.now) }
        guard sent < bytes.count else { return }
        output += bytes[sent...]
        if !wantsWrite {
            wantsWrite = true
            updateInterest()
        }
    }

    func endStream(_ reason: EventStream.CloseReason) {
        guard let current = stream else { return }
        stream = nil
        gate.close()
        gateOpen = false
        if reason != .peerClosed, !isClosed, head?.version == .http11 {
            output += HTTPResponseEncoder.lastChunk
        }
        current.markClosed(reason)
        if reason == .slowConsumer || reason == .peerClosed {
            close()
        } else {
            machine.streamEnded(now: loop.now)
            refreshDeadline()
            if output.count == outputOffset { finishWriting() } else { flush() }
        }
    }
}
