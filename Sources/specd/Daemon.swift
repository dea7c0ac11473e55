import API
import CLinux
import Dispatch
import Engine
import Foundation
import HTTP
import HTTPServer
import Rules
import Store

/// `specd serve`: the one composition root. `assemble` wires every module; `run` serves until SIGTERM or SIGINT,
/// then drains and exits. Tests call `assemble`, `start` and `stop` too, so what they test is what runs.
///
/// Threads (who runs what, and who may touch which state), by the names `top -H`, `ps -L` and profilers show
/// (each thread names itself as it starts, 15 bytes at most):
///
/// | thread | runs | owns |
/// |---|---|---|
/// | event loop *n* (`specd-epoll`, `loopCount` of them) | accepts, reads, parses, routes, runs handlers, writes responses and stream events; at the end of each round, writes the log records its handlers queued | its connections, their buffers and state machines |
/// | log writer (`specd-log-write`) | only makes writes durable: under `--fsync always` it writes and fsyncs queued records (group commit); a busy round's batch handed over by a loop (`--log-commit writer`; with `loop` the loop writes and fsyncs its round itself); the interval fsync; closing retired segments | the log file descriptors |
/// | log fsync helper (`specd-log-fsync`, `--log-commit loop` under `always`) | one fsync at a time, handed over by the loop committing its round, which computes its writes' flag diffs meanwhile (`AppendLog.whileSyncing`) and goes back to its sockets; the result goes back to that loop as a task, which answers the batch | nothing of its own: the batch holds the log's file until its loop's task (or, if that loop stopped, whoever next waits for the file) finishes it |
/// | log completion queue (serial) | the completions of the batches the log writer settled, in batch order | — |
/// | the thread that completes a write: a loop that flushed its own round's batch (no hop), a thread flushing at once, or the completion queue | the write's domain completion, in the user's shard order: flag diff, events to the hub, schedule, metrics; then the answer, handed to the `ResponseSink` | nothing of its own: the hub, scheduler and metrics lock |
/// | clock (`specd-clock`) | sleeps until the next scheduled instant; re-evaluates users and fires delayed triggers through the one write path | the scheduler (under its lock) |
/// | snapshot queue | writes, verifies and compacts snapshots | the snapshot files |
/// | signal queue | SIGHUP → `Engine.reloadRules()`; SIGTERM/SIGINT → drain | — |
/// | cluster probe (`specd-probe`, cluster mode) | asks every other member's `/readyz` every 2 s | the members' health (under `ClusterPeers`' lock) |
/// | cluster forwarding (`specd-forward`, a thread per forwarded exchange, at most 64 per owner; one per relayed stream or merged-stream member, `specd-merge-n`) | blocking exchanges with the owner of a request's user; the answer goes back through the `ResponseSink` | nothing of its own |
/// | webhook delivery (`specd-wh-w-n`, four per webhook) | POSTs due deliveries with the blocking HTTP client, settles them, fsyncs the outbox under `interval`, compacts it | nothing of its own: the dispatcher's queue and outbox under its lock; publishing threads only append to them |
///
/// The event loops and the clock keep their own reference to the rule set they last read (`RulesHost.withServed`,
/// a thread-specific slot only that thread touches), given up at their next read after a reload or when they end;
/// other threads read the rules through the host's lock.
///
/// One rule decides where a write's answer goes: the `ResponseSink` delivers it on the connection's own loop,
/// hopping there when the acknowledging thread is another. Stream events may be written by the publishing thread
/// straight to a stream's socket, but only through that stream's `StreamGate` lock and only while its loop holds
/// nothing for it (so bytes never interleave and events keep their order).
public final class Daemon: Sendable {
    public static var version: String { Release.version }

    public let options: DaemonOptions
    public let logger: Logger
    public let database: Database
    public let engine: Engine
    public let hub: StreamHub
    public let server: HTTPServer
    let router: Router
    /// The one-flag answers the API keeps (`limits.answerCacheBytes`).
    let answers: AnswerCache
    /// Cluster mode: the other members' health, probed on its own thread; `nil` alone.
    public let peers: ClusterPeers?
    /// What the server serves: the router, behind the cluster's forwarding in cluster mode.
    let responder: Responder
    let recoveryDuration: Duration
    /// The webhook deliveries (`nil` with no webhook configured); its list is what operations show.
    public let webhooks: WebhookDispatcher?
    /// The clock's watch over flags for webhooks (`nil` unless a webhook listens to flag events).
    let flagWatch: WebhookFlagWatch?

    /// Why the daemon could not start.
    public enum StartupFailure: Error {
        /// Bad rules: exit 1.
        case rules(RuleSetError)
        /// The data directory is corrupt or unusable: exit 2.
        case data(Recovery.Failure)
        /// The webhook outbox cannot be opened: exit 2.
        case webhooks(IOError)
    }

    /// Loads the rules, then recovers the data directory (a daemon that cannot trust either does not start), then
    /// builds the engine, the API and the server. Nothing listens until `start`.
    public static func assemble(
        options: DaemonOptions, logSink: LogSink = StandardErrorSink(), clock: WallClock = SystemClock(),
        fileSystem: FileSystem = PosixFileSystem()
    ) throws(StartupFailure) -> Daemon {
        try Daemon(options: options, logSink: logSink, clock: clock, fileSystem: fileSystem)
    }

    private init(options: DaemonOptions, logSink: LogSink, clock: WallClock, fileSystem: FileSystem) throws(StartupFailure) {
        self.options = options
        logger = Logger(level: options.logLevel, sink: logSink)
        let loaded: RuleSet
        switch RulesHost.load(options.rulesPath, format: options.rulesFormat) {
        case .success(let set): loaded = set
        case .failure(let error): throw .rules(error)
        }
        let rules = RulesHost(loaded, path: options.rulesPath, format: options.rulesFormat)
        let started = ContinuousClock.now
        let recoveryStartedAt = clock.now()
        do {
            var storeOptions = Database.Options(
                directory: options.dataDirectory, fsync: options.fsync, snapshotEvery: options.snapshotEvery,
                snapshotGrowthPercent: options.snapshotGrowthPercent, limits: options.contextLimits, maxUsers: options.maxUsers)
            storeOptions.writersCommit = options.resolvedLogCommit == .loop
            database = try Database(options: storeOptions, fileSystem: fileSystem)
        } catch {
            throw .data(error)
        }
        recoveryDuration = ContinuousClock.now - started
        Self.reportStorageFailures(of: database, to: logger)
        let metrics = Metrics()
        do {
            webhooks = try Self.makeWebhooks(options: options, fileSystem: fileSystem, clock: clock, metrics: metrics, logger: logger)
        } catch {
            throw .webhooks(error)
        }
        hub = StreamHub(options: options.streams, startSeq: database.health.lastSeq, observer: webhooks)
        let subscribers = Self.subscribers(hub: hub, options: options, rules: rules, store: database, clock: clock)
        flagWatch = subscribers as? WebhookFlagWatch
        engine = Engine(rules: rules, store: database, subscribers: subscribers, clock: clock, metrics: metrics, logger: logger)
        Self.registerStorageGauges(engine.metrics, directory: options.dataDirectory, recovery: recoveryDuration)
        if let webhooks {
            engine.operations.addSource { Self.operations(of: webhooks.deliveries) }
            metrics.addGauge("webhook_deliveries_pending", help: "Webhook deliveries not yet delivered (waiting, retrying or dead-lettered).") {
                Double(webhooks.pendingCount)
            }
        }
        engine.recordRecovery(
            startedAt: recoveryStartedAt, finishedAt: clock.now(),
            detail: [
                "snapshotSeq": .int(Int(clamping: database.recovery.snapshotSeq)), "replayedRecords": .int(database.recovery.replayedRecords),
                "lastSeq": .int(Int(clamping: database.recovery.lastSeq)), "warnings": .int(database.recovery.warnings.count)
            ])
        server = HTTPServer(configuration: options.server, events: ServerEventLog(logger: logger))
        var rateLimiter: RateLimiter?
        if options.rateLimit > 0 {
            rateLimiter = RateLimiter(
                rate: Double(options.rateLimit), burst: Double(options.rateBurst > 0 ? options.rateBurst : options.rateLimit),
                capacity: options.rateLimitClients)
        }
        var api = API(
            engine: engine, hub: hub, transport: server, authenticator: Authenticator(tokens: options.tokens),
            rateLimiter: rateLimiter
        )
        api.cors = options.cors
        api.answers = AnswerCache(capacityBytes: options.answerCacheBytes)
        let clusterTransport = HTTPClientTransport()
        let peers = options.membership.map { ClusterPeers(membership: $0, transport: clusterTransport) }
        self.peers = peers
        api.cluster = peers
        let router = api.makeRouter()
        self.router = router
        answers = api.answers
        responder =
            peers.map { ClusterRouter(router: router, peers: $0, transport: clusterTransport, metrics: metrics, tickets: api.tickets) } ?? router
        let server = server
        database.batchLogWritesPerRound(
            addRoundHook: { server.addIterationHook($0, gatherWhile: $1) }, isRoundThread: { server.isLoopThread },
            handOff: options.resolvedLogCommit == .writerThread, loops: options.server.loopCount,
            roundRunner: { server.currentLoopRunner }, otherWorkReady: { server.currentLoopHasWaitingWork }
        )
    }

    /// Listens and starts the clock's thread (tests that move a manual clock themselves leave it off). Throws when
    /// the address cannot be bound.
    public func start(clockThread: Bool = true) throws {
        try server.start(serving: responder)
        if clockThread { engine.start() }
        // Each member comes as one client for every user it forwards (relayed streams hold a connection each): the
        // per-client connection cap would otherwise refuse a member, and every user it forwards, past 256 of them.
        let server = server
        peers?.onMemberAddresses { server.setUncappedClients($0) }
        peers?.start()
        // Webhook retries run on time too: tests that move a manual clock deliver with `WebhookDispatcher.deliverDue`.
        if clockThread {
            webhooks?.start()
            if flagWatch != nil {
                Thread.detachNewThread { [self] in
                    specd_name_current_thread("specd-hook-scan")
                    watchStoredUsersForWebhooks()
                }
            }
        }
    }

    /// Stops the clock and drains the server; the database stays open (`closeDatabase` ends it).
    public func stop() {
        peers?.stop()
        engine.stop()
        server.shutdown()
        webhooks?.stop()
    }

    /// The store has no logger: its failures come here. A snapshot failure does not stop writes, so it is an error
    /// to act on (free the disk) rather than a reason to stop; a log failure stops writes until a restart.
    private static func reportStorageFailures(of database: Database, to logger: Logger) {
        database.onSnapshotFailure = { failure in
            let error = failure.underlying
            logger.error(
                "snapshot failed: writes go on, the next attempt is backed off",
                [
                    "call": .string(error.call), "path": .string(error.path), "errno": .int(Int(error.code)),
                    "error": .string(error.description), "failures": .int(failure.failuresSinceStart)
                ])
        }
        database.onStorageFailure = { failure in
            let error = failure.underlying
            logger.error(
                "log write failed: no write is accepted until specd restarts",
                [
                    "call": .string(error.call), "path": .string(error.path), "errno": .int(Int(error.code)),
                    "error": .string(error.description)
                ])
        }
    }

    private func logRecovery() {
        let report = database.recovery
        for warning in report.warnings { logger.warn("recovery", ["detail": .string(warning)]) }
        let users = database.health.users
        let duration = Self.milliseconds(recoveryDuration)
        logger.info(
            "recovered",
            [
                "dataDir": .string(options.dataDirectory), "snapshotSeq": .int(Int(report.snapshotSeq)),
                "replayedRecords": .int(report.replayedRecords), "lastSeq": .int(Int(report.lastSeq)),
                "users": .int(users), "fsync": .string(options.fsync.rawValue), "durationMs": .int(duration)
            ])
    }

    private static func milliseconds(_ duration: Duration) -> Int { Int(duration.inMilliseconds) }

    /// Serves until a termination signal; returns the process exit code.
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let stopSignal = DispatchSemaphore(value: 0)
        let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stopSignal.signal() }
            source.resume()
            return source
        }
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler { [engine] in engine.reloadRules() }
        hangup.resume()
        let openFiles = OpenFilesLimit.raiseToHard()
        do {
            try start()
        } catch {
            logger.error("cannot listen", ["address": .string("\(options.server.host):\(options.server.port)"), "error": .string("\(error)")])
            database.closeWithoutSnapshot()
            return 1
        }
        logStarted(openFiles: openFiles)
        if let portFile = options.portFile {
            do {
                try "\(server.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
            } catch {
                logger.error("cannot write port file", ["path": .string(portFile), "error": .string("\(error)")])
                stop()
                database.closeWithoutSnapshot()
                return 1
            }
        }
        stopSignal.wait()
        logger.info("shutting down", ["openConnections": .int(server.openConnections)])
        let started = ContinuousClock.now
        stop()
        logger.info("stopped", ["drainMs": .int(Self.milliseconds(ContinuousClock.now - started))])
        closeDatabase()
        for source in signals { source.cancel() }
        hangup.cancel()
        return 0
    }

    /// The start-up lines: where it listens (first, for scripts that wait for it), limits, rules, recovery, auth.
    private func logStarted(openFiles: Int) {
        logger.info(
            "listening",
            [
                "address": .string("\(options.server.host):\(server.port)"),
                "eventLoop": .string(options.server.eventLoop.rawValue),
                "loops": .int(options.server.loopCount), "loopsFrom": .string(options.loopsSource),
                "logCommit": .string(options.resolvedLogCommit.rawValue),
                // The dispatch loop has no wait of its own to poll in.
                "idlePollMicroseconds": .int(
                    options.server.eventLoop == .epoll ? Int(options.server.idlePoll.saturatingNanoseconds / 1000) : 0),
                "idlePollFrom": .string(options.server.eventLoop == .epoll ? options.idlePollSource : "dispatch event loop"),
                "allocator": .string(AllocatorTuning.describe(ProcessInfo.processInfo.environment)),
                "version": .string(Daemon.version)
            ])
        if openFiles >= 0, openFiles < options.server.maxConnections + OpenFilesLimit.reserved {
            logger.warn(
                "the open-files limit is below --max-connections: past it, accepting pauses until a connection closes",
                ["openFiles": .int(openFiles), "maxConnections": .int(options.server.maxConnections)])
        }
        let ruleSet = engine.rules.current
        logger.info(
            "rules loaded",
            [
                "source": .string(options.rulesPath ?? "embedded rules.example.json"),
                "version": .string(ruleSet.version), "flags": .int(ruleSet.flagKeys.count),
                "triggers": .int(ruleSet.triggerKeys.count), "warnings": .int(ruleSet.warnings.count)
            ])
        logRecovery()
        logger.info(
            "auth",
            options.tokens.isEmpty
                ? ["mode": "none", "detail": "no tokens configured: listening on loopback only"]
                : ["mode": "tokens", "tokens": .int(options.tokens.count)])
    }

    /// Takes the final snapshot and closes the log; after a storage failure says that none was taken, and why,
    /// rather than "data flushed" as if all were well.
    public func closeDatabase() {
        if let failure = database.health.failure {
            database.closeWithoutSnapshot()
            let error = failure.underlying
            logger.error(
                "no final snapshot: the log failed earlier, so memory may be ahead of the disk; acknowledged records are in the log",
                [
                    "call": .string(error.call), "path": .string(error.path), "errno": .int(Int(error.code)),
                    "error": .string(error.description), "snapshotSeq": .int(Int(database.lastSnapshotSeq))
                ])
            return
        }
        do {
            try database.close()
            logger.info("data flushed", ["snapshotSeq": .int(Int(database.lastSnapshotSeq))])
        } catch {
            logger.error(
                "final snapshot failed: records after the last snapshot are only in the log",
                [
                    "call": .string(error.call), "path": .string(error.path), "errno": .int(Int(error.code)),
                    "error": .string(error.description), "snapshotSeq": .int(Int(database.lastSnapshotSeq))
                ])
        }
    }
}
