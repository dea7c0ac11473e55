import Dispatch
import HTTP
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs the HTTP/1.1 server: one listening socket per event loop (`SO_REUSEPORT` lets the kernel spread accepts),
/// connections owned by the loop that accepted them, graceful drain on shutdown.
public final class HTTPServer: Sendable, ServerStatus {
    private let context: ServerContext
    /// Internal for tests, which hold a loop to line up what it runs next.
    let loops: [EventLoop]
    /// Each loop's `execute` as a function, made once: `currentLoopRunner` is asked once per log batch, and a
    /// closure made there allocated its context every time. Each in a struct: a function stored as an array's
    /// element is kept in the generic form, and was wrapped in a thunk (an allocation) each time it was read out.
    private let loopRunners: [LoopRunner]

    private struct LoopRunner: Sendable {
        let run: @Sendable (@escaping @Sendable () -> Void) -> Void
    }
    private let listeners = Mutex<[(loop: Int, listener: Listener)]>([])
    private let boundPort = Atomic<Int>(0)
    private let draining = Atomic<Bool>(false)

    /// The responder comes at `start(serving:)`: what answers requests (the API) may itself ask this server how
    /// many connections it holds, so it is built after the server and handed in last.
    public init(configuration: ServerConfiguration, events: ServerEventSink = SilentServerEvents()) {
        context = ServerContext(configuration: configuration, events: events)
        let count = max(1, configuration.loopCount)
        switch configuration.eventLoop {
        case .epoll:
            #if canImport(Glibc)
            loops = (0..<count).map { _ in EpollEventLoop(idlePoll: IdlePoll(limit: configuration.idlePoll)) }
            #else
            loops = (0..<count).map { DispatchEventLoop(label: "specd.loop.\($0)") }
            #endif
        case .dispatch:
            loops = (0..<count).map { DispatchEventLoop(label: "specd.loop.\($0)") }
        }
        loopRunners = loops.map { loop in LoopRunner { loop.execute($0) } }
    }

    /// Runs `hook` on every loop after each round of events (see `EventLoop.addIterationHook`); `false`, and
    /// nothing added, when the loops have no such point. Call before `start()`.
    public func addIterationHook(_ hook: @escaping @Sendable () -> Void, gatherWhile pending: (@Sendable () -> Bool)? = nil) -> Bool {
        // All loops are of one kind: either every one takes the hook or none does.
        loops.allSatisfy { $0.addIterationHook(hook, gatherWhile: pending) }
    }

    /// Whether the calling thread is one of this server's loops.
    public var isLoopThread: Bool { loops.contains { $0.inEventLoop } }

    /// Runs tasks on the calling thread's loop, later (its task list); `nil` off a loop. A task handed to a
    /// stopped loop is dropped.
    public var currentLoopRunner: (@Sendable (@escaping @Sendable () -> Void) -> Void)? {
        guard let index = loops.firstIndex(where: { $0.inEventLoop }) else { return nil }
        return loopRunners[index].run
    }

    /// Whether the calling thread's loop has work that would wait if it blocked now (`EventLoop.hasWaitingWork`);
    /// true off a loop.
    public var currentLoopHasWaitingWork: Bool {
        guard let loop = loops.first(where: { $0.inEventLoop }) else { return true }
        return loop.hasWaitingWork
    }

    /// The bound port (useful with port 0), valid after `start()`.
    public var port: Int { boundPort.load(ordering: .acquiring) }

    public var openConnections: Int { context.openConnections.load(ordering: .relaxed) }
    public var acceptedConnections: Int { context.acceptedTotal.load(ordering: .relaxed) }
    public var rejectedConnections: Int { context.rejectedTotal.load(ordering: .relaxed) }
    public var acceptPauses: Int { context.acceptPauses.load(ordering: .relaxed) }
    public var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// What the open connections hold right now: response bytes waiting for their clients, and request bytes
    /// read but not yet parsed. For tests and diagnostics: it visits every connection on its loop's thread.
    public func bufferedBytes() -> (pendingOutput: Int, unparsedInput: Int) {
        let totals = BufferTotals()
        for loop in loops {
            run(on: loop) {
                loop.forEachChannel { channel in
                    guard let connection = channel as? HTTPConnection else { return }
                    totals.output.add(connection.pendingOutputBytes, ordering: .relaxed)
                    totals.input.add(connection.unparsedInputBytes, ordering: .relaxed)
                }
            }
        }
        return (totals.output.load(ordering: .relaxed), totals.input.load(ordering: .relaxed))
    }

    private final class BufferTotals: Sendable {
        let output = Atomic<Int>(0)
        let input = Atomic<Int>(0)
    }

    /// Binds, starts the loops and begins accepting requests for `responder`. Throws if the address cannot be bound.
    /// Source addresses whose connections `maxConnectionsPerClient` does not bound (they still count against
    /// `maxConnections`): the other members of a cluster, each of which comes as one client for every user it
    /// forwards. Replaces the set; any thread.
    public func setUncappedClients(_ addresses: Set<String>) {
        context.setUncappedClients(addresses)
    }

    public func start(serving responder: Responder) throws {
        context.responder = responder
        let configuration = context.configuration
        var sockets: [Int32] = []
        var port = configuration.port
        do {
            for index in 0..<loops.count {
                let bound = try Socket.listen(host: configuration.host, port: port, reusePort: loops.count > 1)
                if index == 0 { port = bound.port }
                sockets.append(bound.fd)
            }
        } catch {
            for fd in sockets { Glibc.close(fd) }
            throw error
        }
        boundPort.store(port, ordering: .releasing)
        for loop in loops { loop.start() }
        for (index, loop) in loops.enumerated() {
            let listener = Listener(fd: sockets[index], loop: loop, context: context)
            listeners.withLock { $0.append((index, listener)) }
            run(on: loop) { loop.add(listener) }
        }
    }

    /// Graceful shutdown (README, "HTTP behaviour"): stop accepting, close idle connections, let in-flight requests
    /// finish (their responses say `Connection: close`), then stop the loops. Returns once every connection closed or
    /// the drain timeout passed.
    public func shutdown() {
        guard !draining.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let owned = listeners.withLock { current -> [(loop: Int, listener: Listener)] in
            defer { current.removeAll() }
            return current
        }
        for (index, listener) in owned {
            let loop = loops[index]
            run(on: loop) { loop.close(listener) }
        }
        for loop in loops {
            run(on: loop) {
                loop.forEachChannel { ($0 as? HTTPConnection)?.drain() }
            }
        }
        let deadline = MonotonicInstant.now + context.configuration.drainTimeout
        while context.openConnections.load(ordering: .relaxed) > 0, MonotonicInstant.now < deadline {
            usleep(10_000)
        }
        for loop in loops {
            run(on: loop) {
                loop.forEachChannel { ($0 as? HTTPConnection)?.close() }
            }
        }
        for loop in loops { loop.stop() }
    }

    /// Runs `body` on the loop's thread and waits for it.
    private func run(on loop: EventLoop, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            body()
            done.signal()
        }
        done.wait()
    }
}
