import CLinux
import HTTP

#if canImport(Glibc)
import Glibc
#endif

/// One accepted socket: reads bytes into the parser, hands complete requests to the responder, queues responses
/// in an output buffer that survives partial writes, and carries out what the `ConnectionStateMachine` decides.
///
/// Owned by its event loop's thread; other threads reach it only through `loop.execute` (the response sink does)
/// or, for a stream's events, through its `StreamGate`. Members without `private` are shared with
/// `HTTPConnection+Streams.swift`, which holds the streaming response.
final class HTTPConnection: Channel, @unchecked Sendable {
    let fd: Int32
    let peer: String
    /// The peer's address without its port: what the per-client connection cap counts.
    let client: String
    /// Whether this connection holds one of the counted slots (global and per client), released on close.
    /// Over the global cap a connection holds none and may only ask the probe paths (see `Listener`).
    let holdsSlot: Bool
    /// The answer, on a connection holding no slot, to anything but a probe.
    private let refusal: HTTPResponse
    let loop: EventLoop
    let context: ServerContext
    /// The server's responder, set before any connection is made (`HTTPServer.start(serving:)`). Held here, a
    /// constant: read from the context's variable, the existential was copied out for every request (a retain
    /// and a release of the router's box).
    private let responder: any Responder
    /// The context's id generator, reached without a retain: the context holds it for as long as this connection
    /// holds the context. Reached through the context, it was retained and released around every request's id.
    private let requestIDs: Unmanaged<RequestIDGenerator>
    private let readBuffer: ReadBuffer
    let batcher: StreamBatcher
    // The connection's hot state, touched only on its loop's thread. The runtime's exclusivity checks (an access
    // set kept in thread-local storage, ~3.5 k instructions a request across these) are left out for it; they
    // would only ever catch an overlapping access on this one thread, which these plain values never make.
    @exclusivity(unchecked) private var parser: HTTPRequestParser
    @exclusivity(unchecked) var machine: ConnectionStateMachine
    @exclusivity(unchecked) var output: [UInt8] = []
    @exclusivity(unchecked) var outputOffset = 0
    var wantsWrite = false
    var readPaused = false
    /// Parsing stopped because too many response bytes wait for the client; writability resumes it.
    var heldForOutput = false
    /// Output waits for the end of the loop's round (see `sendAtRoundEnd`).
    var sendQueued = false

    @exclusivity(unchecked) var head: HTTPRequestHead?
    @exclusivity(unchecked) private var body: [UInt8] = []
    var requestStart = MonotonicInstant.now
    @exclusivity(unchecked) var requestID = RequestID("")
    /// The `Date` line of this connection's responses, and when its second ends (`DateCache.lineAndEnd`).
    @exclusivity(unchecked) private var dateLine = DateLine("")
    private var dateLineEnd = MonotonicInstant(nanoseconds: .min)
    /// Counts requests so a late response for an earlier one can never be taken for the current one.
    var generation = 0
    var awaitingResponse = false
    private var dispatching = false
    var isClosed = false
    /// The deadline the loop last armed for this connection (see `refreshDeadline`).
    var armedDeadline: MonotonicInstant?
    /// The open streaming response, if this connection carries one.
    var stream: EventStream?
    /// Lets publishers on other threads write events straight to the socket (see `StreamGate`).
    let gate: StreamGate
    /// Whether the gate is open, as this loop knows it: its own stream sends then go through the gate's lock.
    var gateOpen = false
    var streamLimit = 1 << 20

    init(
        fd: Int32, peer: String, client: String, holdsSlot: Bool = true, refusal: HTTPResponse = ServerContext.overCapacity,
        loop: EventLoop, context: ServerContext, readBuffer: ReadBuffer, batcher: StreamBatcher
    ) {
        self.fd = fd
        self.client = client
        self.holdsSlot = holdsSlot
        self.refusal = refusal
        gate = StreamGate(fd: fd)
        self.readBuffer = readBuffer
        self.batcher = batcher
        self.peer = peer
        self.loop = loop
        self.context = context
        responder = context.responder
        requestIDs = Unmanaged.passUnretained(context.requestIDs)
        parser = HTTPRequestParser(limits: context.configuration.limits)
        machine = ConnectionStateMachine(timeouts: context.configuration.timeouts, now: .now)
    }

    /// Response bytes queued and not yet taken by the socket.
    var pendingOutputBytes: Int { output.count - outputOffset }
    /// Request bytes read and not yet parsed.
    var unparsedInputBytes: Int { parser.bufferedByteCount }

    // MARK: - Channel

    /// Watched edge-triggered on the epoll loop: see `readable(peerShutDown:)`.
    var edgeTriggered: Bool { true }

    func readable() { readable(peerShutDown: false, urgent: false) }

    /// One read per readiness event, so a client that keeps its socket full cannot hold the loop. Edge-triggered,
    /// no event comes again for bytes already there, so the loop is asked to look again (`readAgain`) when some may
    /// be left: the read filled the buffer, the peer's shutdown came with bytes (its end of file is read next, or
    /// its connection would wait for the idle timeout), or urgent data waits (a read stops at its mark; the next
    /// one skips the byte and goes on). Otherwise a read that returned less took everything the socket held, and
    /// bytes that arrive later bring an event of their own (nginx reads the same way). A paused connection is
    /// looked at again when it resumes: `setInterest`'s `epoll_ctl` polls the socket.
    func readable(peerShutDown: Bool, urgent: Bool) {
        // A readiness event from the same round as the pause: the bytes wait in the kernel until we resume.
        guard !isClosed, !readPaused else { return }
        defer { refreshDeadline() }
        var filled = false
        let received = readBuffer.withBuffer { buffer -> Int in
            // Not glibc's `read`: no cancellation point (CLinux.h).
            let count = specd_read(fd, buffer.baseAddress, buffer.count)
            filled = count == buffer.count
            if count > 0, !machine.isLingering {
                parser.feed(UnsafeBufferPointer(rebasing: buffer[0..<count]))
            }
            return count
        }
        if received > 0 {
            if !machine.isLingering {
                machine.bytesReceived(now: loop.now)
                processInput()
            }
            if filled || peerShutDown || urgent, !isClosed, !readPaused { loop.readAgain(self) }
        } else if received < 0, errno == EAGAIN {
            return
        } else if received < 0, errno == EINTR {
            // Interrupted before it read anything: the bytes are still there, and no new edge says so.
            loop.readAgain(self)
        } else if received < 0 {
            close()
        } else {
            // End of file. Queued answers still go out and the close follows the last byte; a handler still at
            // work is answered first. Reading stops either way: nothing more will come.
            let outputPending = output.count > outputOffset
            if machine.isLingering, !outputPending {
                close()
                return
            }
            perform(machine.peerClosed(now: loop.now, outputPending: outputPending))
            if !isClosed { updateReading() }
        }
    }

    /// The loop saw a hang-up or error event for this descriptor. The socket is asked what holds now (a poll that
    /// does not wait): the event may be stale, from a connection that had this descriptor number earlier in the
    /// same round, and must not end this one.
    /// - An error (a reset): nothing more can be delivered, and the kernel reports it on every wait whatever the
    ///   interest, paused reading included, so the connection ends now. A handler still at work finds it closed
    ///   and its answer is dropped; a write it made completes in the store all the same.
    /// - A hang-up alone (both directions down: the peer's FIN after our own shutdown ends a lingering close):
    ///   what the peer sent is read and discarded as any lingering read does, and its end of file closes, so the
    ///   close is clean; closing with unread input would reset the connection and discard the tail of our last
    ///   answer still in the socket. With reading paused nothing would read it, and nothing more can be sent:
    ///   the connection ends.
    func hungUp() {
        guard !isClosed else { return }
        var socket = pollfd(fd: fd, events: 0, revents: 0)
        let revents = Glibc.poll(&socket, 1, 0) == 1 ? Int32(socket.revents) : 0
        if revents & Int32(POLLERR) != 0 {
            close()
        } else if revents & Int32(POLLHUP) != 0, readPaused {
            close()
        } else {
            // Both directions down: an end of file waits behind whatever bytes are left.
            readable(peerShutDown: true, urgent: false)
        }
    }

    func writable() {
        // A write that finishes the output moves the deadline (the linger runs from the last byte; the client's
        // deadlines run again): armed from here, not left at the stall deadline it had while output waited.
        defer { refreshDeadline() }
        flush()
        if heldForOutput, !isClosed, !machine.isLingering, !awaitingResponse, !dispatching { processInput() }
    }

    func tick(now: MonotonicInstant) {
        guard !isClosed else { return }
        // The loop cleared this connection's entry before calling: whatever comes next must be armed again.
        armedDeadline = nil
        defer { refreshDeadline() }
        // Publishers' direct writes are progress too; the gate remembers the last one.
        if stream != nil, let direct = gate.lastDirectWrite { machine.outputProgressed(now: direct) }
        perform(machine.tick(now: now, outputPending: output.count > outputOffset))
    }

    static let heartbeat = EventFrame(SSEEncoder.encode(.heartbeat()))
    static let shuttingDown = EventFrame(SSEEncoder.encode(.heartbeat("specd is shutting down")))

    /// Graceful shutdown: idle connections close now, others after their current response.
    func drain() {
        guard !isClosed else { return }
        defer { refreshDeadline() }
        if stream != nil {
            // Behind any event a publisher on another thread handed over and this loop has not written yet:
            // written at once, the comment landed inside the chunk that event had begun, and the stream's end then
            // dropped the rest of it (the client read "bad chunk size"). The end follows the hand-offs too: the
            // batcher's task for them is already on this loop's list.
            sendEvent(Self.shuttingDown, direct: false)
            if gate.nothingQueued {
                endStream(.serverClosed)
            } else {
                loop.execute { self.endStream(.serverClosed) }
            }
            return
        }
        perform(machine.beginDrain(now: loop.now))
    }

    // MARK: - Requests

    private func processInput() {
        heldForOutput = false
        while !awaitingResponse, !machine.isLingering, !isClosed {
            // Pipelined requests whose answers are not read would otherwise be parsed and answered without
            // bound: stop here, with the rest in the parser and the kernel, until the client reads.
            guard machine.shouldRead(pendingOutputBytes: output.count - outputOffset) else {
                // Replies waiting for the round's end are not the client's backlog: send them, then look again.
                if sendQueued {
                    flush()
                    continue
                }
                heldForOutput = true
                break
            }
            let next: HTTPRequestParser.Event?
            do {
                next = try parser.next()
            } catch {
                refuse(error)
                return
            }
            guard let event = consume next else {
                // The peer finished and what is buffered is no whole request (a stray CRLF, a cut head or body):
                // nothing more will come to complete it, so the connection ends once its answers are out, where
                // it waited for the header or body deadline and a 408 nobody asked for.
                if machine.peerFinished { perform(machine.peerClosed(now: loop.now, outputPending: output.count > outputOffset)) }
                break
            }
            // Consumed, so the head moves into `head` rather than being copied and the event destroyed after.
            switch consume event {
            case .head(let newHead):
                // What is read of the head is read first, and the head then moved in: stored while still read
                // after, it was copied, a retain and a release more a request.
                let bodyFollows = newHead.framing != .none && newHead.framing != .length(0)
                let expectsContinue = newHead.expectsContinue
                let version = newHead.version
                head = consume newHead
                // Left empty by the last request's `dispatch`: cleared only if a refused or cut request left bytes.
                if !body.isEmpty { body = [] }
                requestStart = loop.now
                machine.headReceived(now: requestStart, bodyFollows: bodyFollows)
                if expectsContinue {
                    // RFC 9110 §10.1.1: tell the client to send the body it is holding back.
                    output += HTTPResponseEncoder.continueResponse(version: version)
                    machine.outputQueued(now: requestStart)
                    flush()
                }
            case .body(let part):
                body += part
            case .end:
                machine.requestComplete()
                dispatch()
            }
        }
        updateReading()
    }

    /// Reads only while the bytes they bring can be dealt with: not after the peer finished, not while a response
    /// is pending with a lot of pipelined input already buffered, not while parsing is held for output.
    func updateReading() {
        let shouldPause =
            machine.peerFinished || heldForOutput
            || (awaitingResponse && parser.bufferedByteCount > context.configuration.limits.maxBodyBytes)
        if shouldPause != readPaused {
            readPaused = shouldPause
            updateInterest()
        }
    }

    private func dispatch() {
        // Moved out and back once the request has its copy: bound as a copy (`guard let head`), the head was
        // retained once more and released at the end, two atomic operations a request.
        guard let head = self.head.take() else { return }
        generation += 1
        awaitingResponse = true
        if !holdsSlot, !context.configuration.probePaths.contains(String(head.path)) {
            // Over a connection cap only probes are served.
            self.head = head
            awaitingResponse = false
            respondAndClose(refusal, version: head.version)
            context.accessLog(head, refusal.status, requestStart, RequestID("overload"), peer)
            perform(machine.protocolErrorAnswered(now: loop.now))
            return
        }
        let clientID = head[.requestID]
        requestID =
            clientID.flatMap { RequestIDGenerator.isAcceptable($0) ? RequestID($0) : nil }
            ?? requestIDs._withUnsafeGuaranteedRef { $0.next() }
        // The body moved into the request, an empty one left in its place: handed over as `body` and then cleared,
        // it was retained for the request and released by the clearing.
        var requestBody: [UInt8] = []
        swap(&requestBody, &body)
        let request = Request(head: head, body: consume requestBody, requestID: requestID, peer: peer, received: requestStart)
        self.head = consume head
        let sink = ResponseSink(receiver: self, request: generation)
        dispatching = true
        // Moved, not copied: passed as is, the request was copied into the call and the original destroyed after
        // it, every field retained and released once more per request.
        responder.respond(to: consume request, sink: sink)
        dispatching = false
        if !awaitingResponse, !isClosed { processInput() }
    }

    func complete(_ response: HTTPResponse, generation expected: Int) {
        guard !isClosed, awaitingResponse, expected == generation, self.head != nil else { return }
        // Moved out rather than copied and then cleared: that was two destroys of the whole head per response.
        guard let head = self.head.take() else { return }
        defer { refreshDeadline() }
        awaitingResponse = false
        let nextRequestBuffered = parser.bufferedByteCount > 0
        let keepAlive =
            holdsSlot && machine.shouldKeepAlive(requestWantsKeepAlive: head.keepAlive, nextRequestBuffered: nextRequestBuffered)
        // Handlers never set it, so it is appended rather than searched for and replaced; handed to the encoder,
        // not added to the response, whose field list the sender still shares (adding would copy it).
        let isHead = head.method == "HEAD"
        let now = loop.now
        if now >= dateLineEnd { (dateLine, dateLineEnd) = context.dates.lineAndEnd(at: now) }
        requestID.withBytes { id in
            HTTPResponseEncoder.encode(
                response, version: head.version, keepAlive: keepAlive, isHead: isHead, dateLine: dateLine,
                extraName: "X-Request-Id", extraValue: id, into: &output)
        }
        context.accessLog(head, response.status, requestStart, requestID, peer)
        let action = machine.responseQueued(now: now, keepAlive: keepAlive, nextRequestBuffered: nextRequestBuffered)
        // A reply made while its request is read (a read the answer cache serves) goes now, as nginx writes each
        // answer as it makes it: held for the round's end, it waited for the work of every other connection the
        // round read, up to 15. Pinned, 32 connections reading: the same rate, wrk's p75 145 µs where it was 170,
        // p90 198 where 215, 4 % fewer instructions a read. One still followed by buffered requests waits for
        // theirs (one write for the lot); one made later (a write's, once its batch is in the log) goes with the
        // round's others, where Redis writes its replies too. Either way the round counts it as waiting work.
        if dispatching, !nextRequestBuffered {
            flush()
            loop.repliedAtOnce()
        } else {
            sendAtRoundEnd()
        }
        perform(action)
        if !dispatching, !isClosed, !machine.isLingering { processInput() }
    }

    /// A `HEAD` on a streaming route: the stream's head, as a complete response with no body.
    func answerHeadOnly(headers: HTTPHeaders, framing: HTTPResponseEncoder.Framing) {
        guard let head else { return }
        defer { refreshDeadline() }
        awaitingResponse = false
        let nextRequestBuffered = parser.bufferedByteCount > 0
        let keepAlive =
            holdsSlot && machine.shouldKeepAlive(requestWantsKeepAlive: head.keepAlive, nextRequestBuffered: nextRequestBuffered)
        HTTPResponseEncoder.encodeHead(
            status: .ok, headers: headers, framing: framing, version: head.version,
            keepAlive: keepAlive, date: context.dates.current(), into: &output)
        context.accessLog(head, .ok, requestStart, requestID, peer)
        self.head = nil
        let action = machine.responseQueued(now: loop.now, keepAlive: keepAlive, nextRequestBuffered: nextRequestBuffered)
        flush()
        perform(action)
        if !dispatching, !isClosed, !machine.isLingering { processInput() }
    }

    /// A framing error: answer once with `Connection: close` and stop parsing. Bytes after a framing error have no
    /// trustworthy boundary, and reading on is how requests get smuggled (RFC 9112 §11.2).
    private func refuse(_ error: HTTPParseError) {
        context.events.record(.refused(code: error.code, peer: peer))
        respondAndClose(ErrorResponse.response(for: error), version: head?.version ?? .http11)
        perform(machine.protocolErrorAnswered(now: loop.now))
    }

    func respondAndClose(_ response: HTTPResponse, version: HTTPVersion) {
        var response = response
        response.headers.set("X-Request-Id", context.requestIDs.next().text)
        HTTPResponseEncoder.encode(
            response, version: version, keepAlive: false, isHead: false,
            date: context.dates.current(), into: &output)
        flush()
    }
}
