import Dispatch
import Foundation
import HTTP
import Rules
import Store

/// `specd serve`: builds the router, runs the server until SIGTERM or SIGINT, then drains and exits.
public final class Daemon: Sendable {
    public static let version = "0.1.0"

    public let options: DaemonOptions
    let logger: Logger
    let server: HTTPServer

    let rules: LiveRules
    let database: Database
    let recoveryDuration: Duration
    let live: LiveUpdates

    /// Why the daemon could not start.
    public enum StartupFailure: Error {
        /// Bad rules: exit 1.
        case rules(RuleSetError)
        /// The data directory is corrupt or unusable: exit 2.
        case data(Recovery.Failure)
    }

    /// Loads the rules, then recovers the data directory: a daemon that cannot trust either does not start.
    public init(options: DaemonOptions, logSink: LogSink = StandardErrorSink(), clock: WallClock = SystemClock()) throws(StartupFailure) {
        self.options = options
        logger = Logger(level: options.logLevel, sink: logSink)
        let loaded: RuleSet
        switch LiveRules.load(options.rulesPath, format: options.rulesFormat) {
        case .success(let set): loaded = set
        case .failure(let error): throw .rules(error)
        }
        rules = LiveRules(loaded, source: options.rulesPath ?? "embedded")
        let started = ContinuousClock.now
        do {
            database = try Database(options: .init(directory: options.dataDirectory, fsync: options.fsync,
                                                   snapshotEvery: options.snapshotEvery, limits: options.contextLimits, maxUsers: options.maxUsers))
        } catch {
            throw .data(error)
        }
        recoveryDuration = ContinuousClock.now - started
        Self.reportStorageFailures(of: database, to: logger)
        let serverBox = ServerBox()
        var api = API(rules: rules, database: database, clock: clock, metrics: Metrics(), logger: logger,
                      authenticator: Authenticator(tokens: options.tokens), rulesPath: options.rulesPath, rulesFormat: options.rulesFormat,
                      isDraining: { serverBox.server?.isDraining ?? false }, openConnections: { serverBox.server?.openConnections ?? 0 })
        let hub = StreamHub(options: options.streams, startSeq: database.log.lastSeq)
        let live = LiveUpdates(hub: hub, rules: rules, database: database, clock: clock, logger: logger)
        api.hub = hub
        api.live = live
        self.live = live
        if options.rateLimit > 0 {
            api.rateLimiter = RateLimiter(rate: Double(options.rateLimit), burst: Double(options.rateBurst > 0 ? options.rateBurst : options.rateLimit),
                                          capacity: options.rateLimitClients)
        }
        var serverConfiguration = options.server
        serverConfiguration.streamHeartbeat = .seconds(options.heartbeatSeconds)
        server = HTTPServer(configuration: serverConfiguration, responder: api.makeRouter(), logger: logger)
        serverBox.server = server
        server.batchLogWrites(of: database)
    }

    /// The store has no logger: its failures come here. A snapshot failure does not stop writes, so it is an error
    /// to act on (free the disk) rather than a reason to stop; a log failure stops writes until a restart.
    private static func reportStorageFailures(of database: Database, to logger: Logger) {
        database.onSnapshotFailure = { [weak database] error in
            logger.error("snapshot failed: writes go on, the next attempt is backed off",
                         ["call": .string(error.call), "path": .string(error.path), "errno": .int(Int(error.code)),
                          "error": .string(error.description), "failures": .int(database?.snapshotFailures ?? 0)])
        }
        database.onStorageFailure = { failure in
            let error = failure.underlying
            logger.error("log write failed: no write is accepted until specd restarts",
                         ["call": .string(error.call), "path": .string(error.path), "errno": .int(Int(error.code)),
                          "error": .string(error.description)])
        }
    }

    private func logRecovery() {
        let report = database.recovery
        for warning in report.warnings { logger.warn("recovery", ["detail": .string(warning)]) }
        logger.info("recovered", ["dataDir": .string(options.dataDirectory), "snapshotSeq": .int(Int(report.snapshotSeq)),
                                  "replayedRecords": .int(report.replayedRecords), "lastSeq": .int(Int(report.lastSeq)),
                                  "users": .int(database.store.userCount), "fsync": .string(options.fsync.rawValue),
                                  "durationMs": .int(Int(recoveryDuration.components.seconds * 1000
                                      + recoveryDuration.components.attoseconds / 1_000_000_000_000_000))])
    }

    /// Reload on SIGHUP, as `POST /v1/admin/reload` does.
    private func reloadRules() {
        switch rules.reload(from: options.rulesPath, format: options.rulesFormat) {
        case nil: logger.warn("rules reload skipped: another reload is running")
        case .success(let set)?:
            logger.info("rules reloaded", ["version": .string(set.version), "flags": .int(set.flagKeys.count)])
            live.rulesReloaded(version: set.version)
        case .failure(let error)?: logger.warn("rules reload failed: previous rules keep serving", ["errors": .int(error.errors.count)])
        }
    }

    /// Serves until a termination signal; returns the process exit code.
    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let stop = DispatchSemaphore(value: 0)
        let signals = [SIGTERM, SIGINT].map { number -> DispatchSourceSignal in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        signal(SIGHUP, SIG_IGN)
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hangup.setEventHandler { [self] in reloadRules() }
        hangup.resume()
        let openFiles = OpenFilesLimit.raiseToHard()
        do {
            try server.start()
        } catch {
            logger.error("cannot listen", ["address": .string("\(options.server.host):\(options.server.port)"), "error": .string("\(error)")])
            database.log.close()
            return 1
        }
        live.start()
        logger.info("listening", ["address": .string("\(options.server.host):\(server.port)"),
                                  "eventLoop": .string(options.server.eventLoop.rawValue),
                                  "loops": .int(options.server.loopCount), "version": .string(Daemon.version)])
        if openFiles >= 0, openFiles < options.server.maxConnections + OpenFilesLimit.reserved {
            logger.warn("the open-files limit is below --max-connections: past it, accepting pauses until a connection closes",
                        ["openFiles": .int(openFiles), "maxConnections": .int(options.server.maxConnections)])
        }
        let ruleSet = rules.current
        logger.info("rules loaded", ["source": .string(options.rulesPath ?? "embedded rules.example.json"),
                                     "version": .string(ruleSet.version), "flags": .int(ruleSet.flagKeys.count),
                                     "triggers": .int(ruleSet.triggerKeys.count), "warnings": .int(ruleSet.warnings.count)])
        logRecovery()
        logger.info("auth", options.tokens.isEmpty
            ? ["mode": "none", "detail": "no tokens configured: listening on loopback only"]
            : ["mode": "tokens", "tokens": .int(options.tokens.count)])
        if let portFile = options.portFile {
            do {
                try "\(server.port)\n".write(toFile: portFile, atomically: true, encoding: .utf8)
            } catch {
                logger.error("cannot write port file", ["path": .string(portFile), "error": .string("\(error)")])
                server.shutdown()
                database.log.close()
                return 1
            }
        }
        stop.wait()
        logger.info("shutting down", ["openConnections": .int(server.openConnections)])
        let started = ContinuousClock.now
        live.stop()
        server.shutdown()
        let elapsed = ContinuousClock.now - started
        logger.info("stopped", ["drainMs": .int(Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))])
        closeDatabase()
        for source in signals { source.cancel() }
        hangup.cancel()
        return 0
    }
}

extension Daemon {
    /// Takes the final snapshot and closes the log; after a storage failure says that none was taken, and why,
    /// rather than "data flushed" as if all were well.
    func closeDatabase() {
        if let failure = database.log.failed {
            database.log.close()
            let error = failure.underlying
            logger.error("no final snapshot: the log failed earlier, so memory may be ahead of the disk; acknowledged records are in the log",
                         ["call": .string(error.call), "path": .string(error.path), "errno": .int(Int(error.code)),
                          "error": .string(error.description), "snapshotSeq": .int(Int(database.lastSnapshotSeq))])
            return
        }
        do {
            try database.close()
            logger.info("data flushed", ["snapshotSeq": .int(Int(database.lastSnapshotSeq))])
        } catch {
            logger.error("final snapshot failed: records after the last snapshot are only in the log",
                         ["call": .string(error.call), "path": .string(error.path), "errno": .int(Int(error.code)),
                          "error": .string(error.description), "snapshotSeq": .int(Int(database.lastSnapshotSeq))])
        }
    }
}

/// Lets the API ask the server about draining and connections, though the server is built after the API.
final class ServerBox: @unchecked Sendable {
    // Written once during `Daemon.init`, before any request can read it.
    var server: HTTPServer?
}
