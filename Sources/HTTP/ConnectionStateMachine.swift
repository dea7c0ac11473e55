/// The policy of one HTTP/1.1 connection as a pure value: it decides keep-alive, close and timeouts from events
/// and the instants it is given, and the socket code only carries out the actions it returns. Owned by the thread
/// that owns the connection.
public struct ConnectionStateMachine: Sendable {
    public typealias Instant = MonotonicInstant

    public enum State: Sendable, Equatable {
        /// Between requests, waiting for the first byte of the next one.
        case idle(since: Instant)
        case readingHead(since: Instant)
        /// `started`: when the head ended (the total body deadline runs from it); `lastProgress`: the last read.
        case readingBody(started: Instant, lastProgress: Instant)
        /// A complete request is with its handler; no read deadline runs.
        case handling
        /// The response is a long-lived stream (SSE): a heartbeat after `streamHeartbeat` without output, and the
        /// stream dropped after `streamStall` with bytes waiting and none taken. `lastProgress`: when the socket
        /// last took bytes.
        case streaming(lastProgress: Instant)
        /// The last response is queued; reading and discarding until the linger deadline, which runs from the
        /// last byte written (`outputFinished`): while the response is still being written, only a reader that
        /// stops taking bytes for `streamStall` is dropped.
        case closing(until: Instant)
        case closed
    }

    public enum Action: Sendable, Equatable {
        case none
        /// Answer 408 with `Connection: close`, then close.
        case respondTimeout
        /// Close now, writing nothing more.
        case close
        /// Flush what is queued, then close.
        case closeAfterFlush
        /// Write a heartbeat on the idle stream.
        case sendHeartbeat
        /// The stream's client stopped reading: end the stream and close.
        case dropSlowStream
    }

    public private(set) var state: State
    public private(set) var requestsServed = 0
    public private(set) var isDraining = false
    /// The peer half-closed while a request was with its handler: nothing more will arrive, so the connection
    /// ends once the requests already received are answered.
    public private(set) var peerFinished = false
    /// When the socket last took response bytes, or the connection began closing, whichever is later: the closing
    /// connection's stall deadline runs from it while output waits.
    public private(set) var lastOutputProgress: Instant
    public let timeouts: ConnectionTimeouts

    public init(timeouts: ConnectionTimeouts = .default, now: Instant) {
        self.timeouts = timeouts
        state = .idle(since: now)
        lastOutputProgress = now
    }

    /// Bytes arrived: an idle connection starts the header deadline.
    public mutating func bytesReceived(now: Instant) {
        switch state {
        case .idle: state = .readingHead(since: now)
        case .readingBody(let started, _): state = .readingBody(started: started, lastProgress: now)
        default: break
        }
    }

    /// A head is complete; a body may follow.
    public mutating func headReceived(now: Instant, bodyFollows: Bool) {
        state = bodyFollows ? .readingBody(started: now, lastProgress: now) : .handling
    }

    public mutating func requestComplete() {
        state = .handling
    }

    public mutating func streamStarted(now: Instant) {
        state = .streaming(lastProgress: now)
    }

    /// The socket took response bytes at `now` (the loop's own write, or a publisher's direct write to a stream).
    public mutating func outputProgressed(now: Instant) {
        if now > lastOutputProgress { lastOutputProgress = now }
        if case .streaming(let last) = state, now > last { state = .streaming(lastProgress: now) }
    }

    /// Bytes other than a response were queued (`100 Continue`): the wait for the socket to take them starts now,
    /// not at the connection's last progress, which may be long past.
    public mutating func outputQueued(now: Instant) {
        if now > lastOutputProgress { lastOutputProgress = now }
    }

    /// The last byte of a closing connection's output was written: the linger deadline runs from now, so a reply
    /// that took long to write is still followed by the full linger (reading what the client sends meanwhile, so
    /// the close does not reset the connection and discard the reply's tail in the socket).
    public mutating func outputFinished(now: Instant) {
        if case .closing = state { state = .closing(until: now.advanced(byNanoseconds: timeouts.spans.lingerClose)) }
    }

    /// Enters `.closing` at `now`.
    private mutating func beginClosing(now: Instant) {
        state = .closing(until: now.advanced(byNanoseconds: timeouts.spans.lingerClose))
        lastOutputProgress = now
    }

    /// Whether the connection is closing: its last response is queued, and what arrives is read and discarded.
    public var isLingering: Bool {
        if case .closing = state { return true }
        return false
    }

    /// The server ended a stream: the last chunk goes out, then the connection lingers and closes.
    public mutating func streamEnded(now: Instant) {
        beginClosing(now: now)
    }

    /// Whether the response being written should say `Connection: close`. `nextRequestBuffered`: bytes of a
    /// pipelined request already wait in the parser. A peer that finished gets its buffered requests answered; after
    /// the last, the connection ends: kept open, it would sit half-closed until the idle deadline, and a reset from
    /// such a peer is reported on every wait of the loop until the descriptor is closed.
    public func shouldKeepAlive(requestWantsKeepAlive: Bool, nextRequestBuffered: Bool = false) -> Bool {
        requestWantsKeepAlive && !isDraining && requestsServed + 1 < timeouts.maxRequestsPerConnection
            && (!peerFinished || nextRequestBuffered)
    }

    /// Whether the connection should read (and parse) more while this many response bytes wait to be sent.
    public func shouldRead(pendingOutputBytes: Int) -> Bool {
        pendingOutputBytes <= timeouts.maxPendingOutputBytes
    }

    /// A response was queued. Returns `.closeAfterFlush` when the connection ends with it.
    /// `nextRequestBuffered`: bytes of a pipelined request already wait in the parser.
    public mutating func responseQueued(now: Instant, keepAlive: Bool, nextRequestBuffered: Bool = false) -> Action {
        requestsServed += 1
        // The wait for the socket to take this response starts now (see `tick`'s output-pending deadline).
        outputQueued(now: now)
        if keepAlive && !isDraining && requestsServed < timeouts.maxRequestsPerConnection {
            // A pipelined head already begun is held to the header deadline from now, not to the keep-alive one.
            state = nextRequestBuffered ? .readingHead(since: now) : .idle(since: now)
            return .none
        }
        beginClosing(now: now)
        return .closeAfterFlush
    }

    /// A framing error was answered: the connection ends without reading on.
    public mutating func protocolErrorAnswered(now: Instant) -> Action {
        beginClosing(now: now)
        return .closeAfterFlush
    }

    /// The peer finished sending (end of file). `outputPending`: response bytes still wait for the socket.
    /// - A request with its handler: its response is still attempted, then the connection closes.
    /// - Responses queued and not yet all written: they still go out, then the connection closes. Closing now cut
    ///   the last of them (a client that half-closes after its requests, as `nc -N` does).
    /// - Otherwise, and on a stream (whose events would go on without end): close now.
    public mutating func peerClosed(now: Instant, outputPending: Bool = false) -> Action {
        switch state {
        case .handling:
            peerFinished = true
            return .none
        case .idle, .readingHead, .readingBody, .closing:
            guard outputPending else {
                state = .closed
                return .close
            }
            peerFinished = true
            if !isLingering { beginClosing(now: now) }
            return .closeAfterFlush
        case .streaming, .closed:
            state = .closed
            return .close
        }
    }

    /// Graceful shutdown: idle connections close now, busy ones after their current response.
    public mutating func beginDrain(now: Instant) -> Action {
        isDraining = true
        switch state {
        case .idle:
            state = .closed
            return .close
        case .readingHead, .readingBody, .handling:
            return .none
        case .streaming:
            beginClosing(now: now)
            return .closeAfterFlush
        case .closing, .closed:
            return .none
        }
    }

    /// The instant at which `tick` will next have something to do; `nil` while no deadline runs.
    public var nextDeadline: Instant? { nextDeadline(outputPending: false) }

    /// As `nextDeadline`, knowing whether response bytes wait for the socket (which moves a stream from the
    /// heartbeat deadline to the stall deadline).
    public func nextDeadline(outputPending: Bool) -> Instant? {
        if outputPending, waitsOnItsOwnOutput { return lastOutputProgress.advanced(byNanoseconds: timeouts.spans.streamStall) }
        return switch state {
        case .streaming(let last): last.advanced(byNanoseconds: outputPending ? timeouts.spans.streamStall : timeouts.spans.streamHeartbeat)
        case .idle(let since): since.advanced(byNanoseconds: timeouts.spans.keepAliveIdle)
        case .readingHead(let since): since.advanced(byNanoseconds: timeouts.spans.header)
        case .readingBody(let started, let lastProgress):
            min(lastProgress.advanced(byNanoseconds: timeouts.spans.bodyIdle), started.advanced(byNanoseconds: timeouts.spans.body))
        case .closing(let until): until
        case .handling, .closed: nil
        }
    }

    /// Checks deadlines; called by the owner with the current instant, at or after `nextDeadline`.
    /// `outputPending`: response bytes wait for the socket.
    public mutating func tick(now: Instant, outputPending: Bool = false) -> Action {
        if outputPending, waitsOnItsOwnOutput {
            // Our own answers wait for the socket: the client's deadlines do not run while we hold its next request
            // back for them (parsing stops above `maxPendingOutputBytes`), nor does the linger cut the last answer;
            // a client that stops taking bytes is dropped after `streamStall` without progress. A pipelined head
            // held for a slow reader was answered 408 at the header deadline, and a `Connection: close` answer
            // still being written was cut at the linger deadline.
            if now - lastOutputProgress >= timeouts.streamStall {
                state = .closed
                return .close
            }
            return .none
        }
        switch state {
        case .streaming(let last):
            if outputPending {
                if now - last >= timeouts.streamStall {
                    state = .closed
                    return .dropSlowStream
                }
            } else if now - last >= timeouts.streamHeartbeat {
                // Its write moves `lastProgress`, or leaves bytes waiting, which starts the stall deadline.
                return .sendHeartbeat
            }
        case .idle(let since):
            if now - since >= timeouts.keepAliveIdle {
                state = .closed
                return .close
            }
        case .readingHead(let since):
            if now - since >= timeouts.header { return timedOut(now: now) }
        case .readingBody(let started, let lastProgress):
            if now - lastProgress >= timeouts.bodyIdle || now - started >= timeouts.body { return timedOut(now: now) }
        case .closing(let until):
            if now >= until {
                state = .closed
                return .close
            }
        case .handling, .closed:
            break
        }
        return .none
    }

    /// A state whose deadlines are the client's (reading, keep-alive) or the linger's: while our own answers wait for
    /// the socket, only the stall deadline runs.
    private var waitsOnItsOwnOutput: Bool {
        switch state {
        case .idle, .readingHead, .readingBody, .closing: true
        case .handling, .streaming, .closed: false
        }
    }

    private mutating func timedOut(now: Instant) -> Action {
        beginClosing(now: now)
        return .respondTimeout
    }
}
