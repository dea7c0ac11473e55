import API
import Engine
import HTTP
import HTTPServer
import Rules
import Store

/// The resolved settings for `specd serve`: built-in defaults < config file < `SPECD_*` environment < flags.
public struct DaemonOptions: Sendable, Equatable {
    public var server = DaemonOptions.defaultServer(CPUBudget.current())
    /// Why `server.loopCount` is what it is, for the first log line: the CPU budget's reason, or the setting.
    public var loopsSource = CPUBudget.current().reason
    /// Why `server.idlePoll` is what it is, for the first log line.
    public var idlePollSource = DaemonOptions.defaultIdlePollSource(CPUBudget.current())
    /// Whether a setting (flag, environment, config file) chose `server.idlePoll`: then no default rule applies.
    public var idlePollSet = false
    public var logLevel: Logger.Level = .info
    public var portFile: String?
    public var configFile: String?
    /// A rule file or directory; `nil` serves the embedded example rules.
    public var rulesPath: String?
    public var rulesFormat: RuleSetCompiler.Format = .auto
    public var dataDirectory = "./data"
    public var fsync: FsyncPolicy = .interval
    /// Who writes (and under `always` fsyncs) the records a loop's round queued; `nil` chooses (`resolvedLogCommit`).
    public var logCommit: LogCommit?
    /// The CPUs the process may use, for the automatic choices (loops, decode workers, `logCommit`).
    public var cpus = CPUBudget.current().loops

    /// `logCommit`, or when unset: the loop on one CPU with one epoll loop, else the writer thread. Measured pinned to
    /// one CPU (`scripts/bench.sh`'s donation, 32 connections): under `always` the loop held 20–23.5k/s at 23–24
    /// records per fsync, where the writer thread swung between 8.4k and 22k/s as its batches shrank to 9–11
    /// records (three threads taking turns on one CPU), though the loop's p99 is the higher (23–50 ms, as it reads
    /// nothing while it fsyncs). Under `never` and `interval`, once replies went out at the round's end, the loop
    /// measured ahead too (medians of 3 alternated runs: 27.3k against 26.0k and 28.4k against 25.5k, with ~20k
    /// context switches a second fewer). Only with one epoll loop: the dispatch loop has no rounds to commit (each
    /// write would fsync alone), and with several loops one loop would write for the others.
    public var resolvedLogCommit: LogCommit {
        logCommit ?? (cpus == 1 && server.loopCount == 1 && server.eventLoop == .epoll ? .loop : .writerThread)
    }
    /// Records between automatic snapshots.
    public var snapshotEvery = 100_000
    /// Log written since the last snapshot, in percent of its size, before the next (`Database.Options`).
    public var snapshotGrowthPercent = 50
    /// Users the store holds before writes that would create one more are refused with 507 (0: no cap).
    public var maxUsers = 0
    /// Bytes of one-flag answers kept for the next read that would compute the same (`AnswerCache`; 0: none).
    public var answerCacheBytes = AnswerCache.defaultCapacityBytes
    /// Bearer tokens (config file only, never logged). None: loopback only.
    public var tokens: [Token] = []
    /// Requests a second per client address (0: no limit) and the burst allowed above it.
    public var rateLimit = 0
    public var rateBurst = 0
    /// Client addresses the rate limiter remembers; the least recently seen is forgotten past it.
    public var rateLimitClients = 100_000
    /// Stream settings (`streams: {...}` in the config file).
    public var streams = StreamHub.Options()
    /// Seconds between heartbeats on an idle stream; the server's `streamHeartbeat` follows it.
    public var heartbeatSeconds = 15 {
        didSet { server.streamHeartbeat = .seconds(heartbeatSeconds) }
    }
    /// Per-user caps (`limits.max*PerUser`, `limits.maxAttributeValueBytes`, `limits.maxKeyBytes`): on new writes and
    /// on inline contexts.
    public var contextLimits = ContextLimits()
    /// Which browser origins may call the API (`cors: {"origins": [...]}`); without it only OpenFeature's routes
    /// allow other origins.
    public var cors = CORSPolicy.openFeatureOnly
    /// Cluster mode (`cluster: {...}`): this replica's index and every member; see `DaemonOptions+Cluster.swift`.
    public var cluster = ClusterSettings()
    /// Webhooks (`webhooks: [...]` in the config file; README, "Webhooks").
    public var webhooks: [Webhook] = []

    public init() {}

    /// One setting as it appears in the three sources; `--help` and the README print this table.
    public struct Setting: Sendable {
        public let flag: String
        public let configKey: String
        public let environment: String
        public let help: String
        let apply: @Sendable (inout DaemonOptions, String) throws(UsageError) -> Void
    }

    public static let settings: [Setting] = [
        Setting(flag: "--host", configKey: "host", environment: "SPECD_HOST", help: "address to listen on (default 127.0.0.1)") {
            options, value throws(UsageError) in
            options.server.host = value
        },
        Setting(flag: "--port", configKey: "port", environment: "SPECD_PORT", help: "TCP port, 0 for an ephemeral one (default 8080)") {
            options, value throws(UsageError) in
            options.server.port = try integer(value, "port", 0...65535)
        },
        Setting(flag: "--port-file", configKey: "portFile", environment: "SPECD_PORT_FILE", help: "write the bound port number to this file") {
            options, value throws(UsageError) in
            options.portFile = value
        },
        Setting(flag: "--rules", configKey: "rules", environment: "SPECD_RULES", help: "rule file or directory (default: the embedded example rules)")
        { options, value throws(UsageError) in
            options.rulesPath = value
        },
        Setting(
            flag: "--rules-format", configKey: "rulesFormat", environment: "SPECD_RULES_FORMAT",
            help: "auto|specd|flagd: which flag shapes the rules use (default auto: per flag)"
        ) { options, value throws(UsageError) in
            guard let format = RuleSetCompiler.Format(rawValue: value) else {
                throw UsageError("rulesFormat must be auto, specd or flagd, not '\(value)'")
            }
            options.rulesFormat = format
        },
        Setting(
            flag: "--data-dir", configKey: "dataDir", environment: "SPECD_DATA_DIR", help: "data directory for the log and snapshots (default ./data)"
        ) { options, value throws(UsageError) in
            options.dataDirectory = value
        },
        Setting(
            flag: "--fsync", configKey: "fsync", environment: "SPECD_FSYNC",
            help: "always|interval|never: when writes are acknowledged (default interval, 100 ms)"
        ) { options, value throws(UsageError) in
            guard let policy = FsyncPolicy(rawValue: value) else { throw UsageError("fsync must be always, interval or never, not '\(value)'") }
            options.fsync = policy
        },
        Setting(
            flag: "--log-commit", configKey: "logCommit", environment: "SPECD_LOG_COMMIT",
            help: "writer|loop: who writes and fsyncs a round's log records (default loop under fsync always on one CPU, else writer)"
        ) { options, value throws(UsageError) in
            guard let commit = LogCommit(rawValue: value) else { throw UsageError("logCommit must be writer or loop, not '\(value)'") }
            options.logCommit = commit
        },
        Setting(
            flag: "--snapshot-every", configKey: "snapshotEvery", environment: "SPECD_SNAPSHOT_EVERY",
            help: "log records between snapshots (default 100000)"
        ) { options, value throws(UsageError) in
            options.snapshotEvery = try integer(value, "snapshotEvery", 1...1_000_000_000)
        },
        Setting(
            flag: "--snapshot-growth", configKey: "snapshotGrowth", environment: "SPECD_SNAPSHOT_GROWTH",
            help: "log written since the last snapshot, in percent of its size, before the next (default 50, at most 1000; 0: records alone)"
        ) { options, value throws(UsageError) in
            options.snapshotGrowthPercent = try integer(value, "snapshotGrowth", 0...1_000)
        },
        Setting(
            flag: "--log-level", configKey: "logLevel", environment: "SPECD_LOG_LEVEL",
            help: "debug|info|warn|error (default info; debug adds the access log)"
        ) { options, value throws(UsageError) in
            guard let level = Logger.Level(name: value) else { throw UsageError("logLevel must be one of debug, info, warn, error, not '\(value)'") }
            options.logLevel = level
        },
        Setting(
            flag: "--event-loop", configKey: "eventLoop", environment: "SPECD_EVENT_LOOP", help: "epoll|dispatch readiness mechanism (default epoll)"
        ) { options, value throws(UsageError) in
            guard let kind = EventLoopKind(rawValue: value) else { throw UsageError("eventLoop must be epoll or dispatch, not '\(value)'") }
            options.server.eventLoop = kind
        },
        Setting(
            flag: "--loops", configKey: "loops", environment: "SPECD_LOOPS",
            help: "number of event loops (default: one per CPU the process may use: its affinity mask and cgroup CPU quota)"
        ) {
            options, value throws(UsageError) in
            options.server.loopCount = try integer(value, "loops", 1...256)
            options.loopsSource = "set"
        },
        Setting(
            flag: "--idle-poll", configKey: "idlePollMicroseconds", environment: "SPECD_IDLE_POLL",
            help:
                "microseconds an idle epoll loop may poll before it sleeps, adapted to the load; 0 never polls "
                + "(default 200; 0 under a cgroup CPU quota, and under --fsync always with the loop committing; 10...10000)"
        ) { options, value throws(UsageError) in
            // Under 10 µs a poll is not worth its system calls (`IdlePoll.smallestWindow`): refused, not ignored.
            guard let microseconds = Int(value), microseconds == 0 || (10...10_000).contains(microseconds) else {
                throw UsageError("idlePollMicroseconds must be 0 or an integer in 10...10000, not '\(value)'")
            }
            options.server.idlePoll = .microseconds(microseconds)
            options.idlePollSource = "set"
            options.idlePollSet = true
        },
        Setting(
            flag: "--max-connections", configKey: "limits.maxConnections", environment: "SPECD_MAX_CONNECTIONS",
            help: "open connections allowed at once (default 10000)"
        ) { options, value throws(UsageError) in
            options.server.maxConnections = try integer(value, "limits.maxConnections", 1...1_000_000)
        },
        Setting(
            flag: "--max-connections-per-client", configKey: "limits.maxConnectionsPerClient", environment: "SPECD_MAX_CONNECTIONS_PER_CLIENT",
            help: "open connections allowed from one client address (default 256)"
        ) { options, value throws(UsageError) in
            options.server.maxConnectionsPerClient = try integer(value, "limits.maxConnectionsPerClient", 1...1_000_000)
        },
        Setting(flag: "--cluster-self", configKey: "cluster.self", environment: "SPECD_CLUSTER_SELF", help: clusterSelfHelp) {
            options, value throws(UsageError) in
            options.cluster.selfIndex = try clusterSelf(value)
        },
        Setting(flag: "--cluster-members", configKey: "cluster.members", environment: "SPECD_CLUSTER_MEMBERS", help: clusterMembersHelp) {
            options, value throws(UsageError) in
            options.cluster.members = try clusterMembers(value)
        }
    ]

    /// Limits that only the config file sets (`limits: {...}`), in bytes, counts or seconds.
    static let limitKeys: [String: @Sendable (inout DaemonOptions, Int) -> Void] = [
        "maxRequestLineBytes": { $0.server.limits.maxRequestLineBytes = $1 },
        "maxHeaderBytes": { $0.server.limits.maxHeaderBytes = $1 },
        "maxHeaderCount": { $0.server.limits.maxHeaderCount = $1 },
        "maxBodyBytes": { $0.server.limits.maxBodyBytes = $1 },
        "headerTimeoutSeconds": { $0.server.timeouts.header = .seconds($1) },
        "bodyIdleTimeoutSeconds": { $0.server.timeouts.bodyIdle = .seconds($1) },
        "bodyTimeoutSeconds": { $0.server.timeouts.body = .seconds($1) },
        "maxPendingOutputBytes": { $0.server.timeouts.maxPendingOutputBytes = $1 },
        "rateLimitClients": { $0.rateLimitClients = $1 },
        "keepAliveTimeoutSeconds": { $0.server.timeouts.keepAliveIdle = .seconds($1) },
        "maxRequestsPerConnection": { $0.server.timeouts.maxRequestsPerConnection = $1 },
        "drainTimeoutSeconds": { $0.server.drainTimeout = .seconds($1) },
        "requestsPerSecondPerClient": { $0.rateLimit = $1 },
        "burstPerClient": { $0.rateBurst = $1 },
        "maxUsers": { $0.maxUsers = $1 },
        "answerCacheBytes": { $0.answerCacheBytes = $1 },
        // Per-user caps (ContextLimits.Limit.configName).
        "maxCountersPerUser": { $0.contextLimits.maxCounters = $1 },
        "maxEventsPerUser": { $0.contextLimits.maxEvents = $1 },
        "maxFlagsPerUser": { $0.contextLimits.maxFlags = $1 },
        "maxAttributesPerUser": { $0.contextLimits.maxAttributes = $1 },
        "maxSegmentsPerUser": { $0.contextLimits.maxSegments = $1 },
        "maxDonationEventsPerUser": { $0.contextLimits.maxDonationEvents = $1 },
        "maxAttributeValueBytes": { $0.contextLimits.maxAttributeValueBytes = $1 },
        "maxKeyBytes": { $0.contextLimits.maxKeyBytes = $1 }
    ]

    /// Stream settings that only the config file sets (`streams: {...}`).
    static let streamKeys: [String: @Sendable (inout DaemonOptions, Int) -> Void] = [
        "heartbeatSeconds": { $0.heartbeatSeconds = $1 },
        "bufferBytes": { $0.server.streamBufferBytes = $1 },
        "stallSeconds": { $0.server.streamStallTimeout = .seconds($1) },
        "maxStreams": { $0.streams.maxStreams = $1 },
        "retainEvents": { $0.streams.retainEvents = $1 },
        "retainSeconds": { $0.streams.retainFor = .seconds($1) },
        "retainBytes": { $0.streams.retainBytes = $1 },
        "resumeUsers": { $0.streams.resumeUsers = $1 }
    ]

    /// The server's defaults, but no idle polling under a cgroup CPU quota: the time a loop polls is quota spent,
    /// and a throttled loop serves nothing until its next period.
    static func defaultServer(_ budget: CPUBudget) -> ServerConfiguration {
        var server = ServerConfiguration()
        if budget.hasQuota { server.idlePoll = .zero }
        return server
    }

    static func defaultIdlePollSource(_ budget: CPUBudget) -> String {
        budget.hasQuota ? "off under a cgroup CPU quota" : "default"
    }

    /// Unless set, no idle polling where the loop commits its own rounds under `--fsync always`: its idle stretches
    /// are mostly its fsync, which the helper thread makes on the same CPU, and polling through them measured 4 %
    /// fewer donations a second in both start orders (`scripts/bench-ab.sh`, write-always, pinned to one CPU).
    mutating func settleIdlePoll() {
        guard !idlePollSet, server.idlePoll != .zero, fsync == .always, resolvedLogCommit == .loop else { return }
        server.idlePoll = .zero
        idlePollSource = "off under --fsync always with the loop committing"
    }

    static func integer(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
        }
        return value
    }

    public static func == (lhs: DaemonOptions, rhs: DaemonOptions) -> Bool {
        lhs.server == rhs.server && lhs.logLevel == rhs.logLevel && lhs.portFile == rhs.portFile && lhs.configFile == rhs.configFile
            && lhs.rulesPath == rhs.rulesPath && lhs.rulesFormat == rhs.rulesFormat && lhs.dataDirectory == rhs.dataDirectory
            && lhs.fsync == rhs.fsync && lhs.logCommit == rhs.logCommit
            && lhs.snapshotEvery == rhs.snapshotEvery && lhs.snapshotGrowthPercent == rhs.snapshotGrowthPercent && lhs.maxUsers == rhs.maxUsers
            && lhs.answerCacheBytes == rhs.answerCacheBytes && lhs.tokens == rhs.tokens
            && lhs.rateLimit == rhs.rateLimit && lhs.rateBurst == rhs.rateBurst && lhs.rateLimitClients == rhs.rateLimitClients
            && lhs.heartbeatSeconds == rhs.heartbeatSeconds
            && lhs.streams.maxStreams == rhs.streams.maxStreams && lhs.streams.retainEvents == rhs.streams.retainEvents
            && lhs.streams.retainBytes == rhs.streams.retainBytes && lhs.streams.resumeUsers == rhs.streams.resumeUsers
            && lhs.contextLimits == rhs.contextLimits
            && lhs.cors == rhs.cors
            && lhs.cluster == rhs.cluster
    }
}

/// Where the records an event loop's round queued are written (`--log-commit`).
public enum LogCommit: String, Sendable, Equatable {
    /// A busy round's batch goes to the log writer thread and its completions to the completion queue, so the loop
    /// gets back to its connections while the batch is written and fsynced.
    case writerThread = "writer"
    /// Redis's way: the loop writes its round's batch, fsyncs it under `always` and answers the writes itself, and
    /// no other thread is woken. The loop reads nothing while it fsyncs, so latency grows with the disk's.
    case loop
}
