import Foundation
import Store
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

@Suite struct DaemonOptionsTests {
    func writeConfig(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "specd-config-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func resolve_defaults() throws {
        let options = try DaemonOptions.resolve(arguments: [], environment: [:])
        #expect(options.server.host == "127.0.0.1")
        #expect(options.server.port == 8080)
        #expect(options.logLevel == .info)
    }

    @Test func resolve_flagsBeatEnvironmentWhichBeatsTheConfigFile() throws {
        let path = try writeConfig(#"{"host": "127.0.0.2", "port": 9000, "logLevel": "warn", "limits": {"maxBodyBytes": 2048, "maxConnections": 7}}"#)
        let options = try DaemonOptions.resolve(
            arguments: ["--config", path, "--port=0"],
            environment: ["SPECD_PORT": "9100", "SPECD_LOG_LEVEL": "debug"])
        #expect(options.server.host == "127.0.0.2")
        #expect(options.server.port == 0)
        #expect(options.logLevel == .debug)
        #expect(options.server.limits.maxBodyBytes == 2048)
        #expect(options.server.maxConnections == 7)
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["--port"], "option '--port' needs a value"),
        (["--port", "70000"], "port must be an integer in 0...65535, not '70000'"),
        (["--log-level", "loud"], "logLevel must be one of debug, info, warn, error, not 'loud'"),
        (["--event-loop", "kqueue"], "eventLoop must be epoll or dispatch, not 'kqueue'"),
        (["--log-commit", "inline"], "logCommit must be writer or loop, not 'inline'"),
        (["--config", "/nonexistent/specd.json"], "cannot read config file '/nonexistent/specd.json'")
    ])
    func resolve_badUsage_isAClearError(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try DaemonOptions.resolve(arguments: arguments, environment: [:]) }
    }

    @Test func logCommit_isTheLoopOnOneCPU_whateverTheFsync_unlessSet() throws {
        var options = try DaemonOptions.resolve(arguments: ["--fsync", "always", "--loops", "1"], environment: [:])
        options.cpus = 1
        #expect(options.resolvedLogCommit == .loop)
        options.cpus = 2
        #expect(options.resolvedLogCommit == .writerThread)
        options.cpus = 1
        options.fsync = .interval
        #expect(options.resolvedLogCommit == .loop)
        options.fsync = .never
        #expect(options.resolvedLogCommit == .loop)
        options.cpus = 2
        #expect(options.resolvedLogCommit == .writerThread)
        options.cpus = 1
        // Found by review: with several loops one would fsync for the others; the dispatch loop has no rounds.
        options.fsync = .always
        options.server.loopCount = 2
        #expect(options.resolvedLogCommit == .writerThread)
        options.server.loopCount = 1
        options.server.eventLoop = .dispatch
        #expect(options.resolvedLogCommit == .writerThread)
        options.server.eventLoop = .epoll
        #expect(options.resolvedLogCommit == .loop)
        var chosen = try DaemonOptions.resolve(arguments: ["--fsync", "always", "--log-commit", "writer"], environment: [:])
        chosen.cpus = 1
        #expect(chosen.resolvedLogCommit == .writerThread)
        chosen = try DaemonOptions.resolve(arguments: [], environment: ["SPECD_LOG_COMMIT": "loop"])
        chosen.cpus = 4
        #expect(chosen.resolvedLogCommit == .loop)
    }

    @Test func streamsResumeUsers_isSetByTheConfigFile_andMustBePositive() throws {
        #expect(try DaemonOptions.resolve(arguments: [], environment: [:]).streams.resumeUsers == 10_000)
        let path = try writeConfig(#"{"streams": {"resumeUsers": 250, "maxStreams": 100}}"#)
        let options = try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
        #expect(options.streams.resumeUsers == 250)
        #expect(options.streams.maxStreams == 100)
        let zero = try writeConfig(#"{"streams": {"resumeUsers": 0}}"#)
        #expect(throws: UsageError("config file '\(zero)': 'streams.resumeUsers' must be a positive integer")) {
            try DaemonOptions.resolve(arguments: ["--config", zero], environment: [:])
        }
    }

    @Test func resolve_unknownConfigKey_isAnError() throws {
        let path = try writeConfig(#"{"prot": 1}"#)
        #expect(throws: UsageError("config file '\(path)': unknown key 'prot'")) {
            try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
        }
        let bad = try writeConfig(#"{"port": 1,}"#)
        #expect(throws: UsageError("config file '\(bad)': expected a string key at byte 11")) {
            try DaemonOptions.resolve(arguments: ["--config", bad], environment: [:])
        }
    }

    @Test func usage_listsEveryFlagWithItsConfigKeyAndEnvironmentVariable() {
        for setting in DaemonOptions.settings {
            #expect(CommandLineInterface.usage.contains("\(setting.flag) VALUE  /  \(setting.configKey)  /  \(setting.environment)"))
        }
    }

    /// With one secret for two tokens the last one's scopes silently won; now the daemon refuses to start.
    @Test func resolve_twoTokensSharingASecret_isAConfigurationError() throws {
        let path = try writeConfig(
            #"""
            {"tokens": [{"name": "reader", "secret": "shared-secret-0123456789", "scopes": ["evaluate"]},
                        {"name": "ops", "secret": "shared-secret-0123456789", "scopes": ["admin"]}]}
            """#)
        let message = "config file '\(path)': tokens[1] ('ops') has the same secret as token 'reader'; each token needs its own secret"
        #expect(throws: UsageError(message)) { try DaemonOptions.resolve(arguments: ["--config", path], environment: [:]) }
        #expect(!message.contains("shared-secret"))
    }

    @Test func resolve_connectionLimits_fromConfigEnvironmentAndFlag() throws {
        let path = try writeConfig(
            #"""
            {"limits": {"bodyTimeoutSeconds": 30, "maxPendingOutputBytes": 65536, "rateLimitClients": 5000,
                        "maxConnectionsPerClient": 64}}
            """#)
        let options = try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
        #expect(options.server.timeouts.body == .seconds(30))
        #expect(options.server.timeouts.maxPendingOutputBytes == 65536)
        #expect(options.rateLimitClients == 5000)
        #expect(options.server.maxConnectionsPerClient == 64)
        let overridden = try DaemonOptions.resolve(
            arguments: ["--config", path, "--max-connections-per-client", "9"],
            environment: ["SPECD_MAX_CONNECTIONS_PER_CLIENT": "8"])
        #expect(overridden.server.maxConnectionsPerClient == 9)
        let defaults = try DaemonOptions.resolve(arguments: [], environment: [:])
        #expect(defaults.server.timeouts.body == .seconds(60))
        #expect(defaults.server.timeouts.maxPendingOutputBytes == 256 * 1024)
        #expect(defaults.server.maxConnectionsPerClient == 256)
    }

    /// Idle polling: 200 µs unless set (or under a CPU quota), 0 turns it off, 10 µs to 10 ms otherwise, and a value
    /// out of range is refused with the setting named.
    @Test func idlePoll_defaultsTo200Microseconds_zeroTurnsItOff_underTenOrOverTenThousandIsRefused() throws {
        let defaults = try DaemonOptions.resolve(arguments: [], environment: [:])
        #expect(defaults.server.idlePoll == DaemonOptions.defaultServer(CPUBudget.current()).idlePoll)
        #expect(DaemonOptions.defaultServer(CPUBudget.budget(online: 2, affinity: 2, cpuMax: nil, cfs: nil)).idlePoll == .microseconds(200))
        #expect(try DaemonOptions.resolve(arguments: ["--idle-poll", "0"], environment: [:]).server.idlePoll == .zero)
        #expect(try DaemonOptions.resolve(arguments: [], environment: ["SPECD_IDLE_POLL": "10000"]).server.idlePoll == .milliseconds(10))
        let path = try writeConfig(#"{"idlePollMicroseconds": 50}"#)
        #expect(try DaemonOptions.resolve(arguments: ["--config", path], environment: [:]).server.idlePoll == .microseconds(50))
        #expect(try DaemonOptions.resolve(arguments: ["--idle-poll", "10"], environment: [:]).server.idlePoll == .microseconds(10))
        for bad in ["10001", "-1", "fast", "1", "9"] {
            #expect(throws: UsageError("idlePollMicroseconds must be 0 or an integer in 10...10000, not '\(bad)'")) {
                try DaemonOptions.resolve(arguments: ["--idle-poll", bad], environment: [:])
            }
        }
    }

    /// Where the loop commits its own rounds under `always` (one CPU, one loop) it polls through its fsyncs: off
    /// unless set; under the other policies, or with the writer thread committing, the default stands.
    @Test func idlePoll_isOffByDefault_whenTheLoopCommitsUnderFsyncAlways_unlessSet() throws {
        let quota = CPUBudget.current().hasQuota
        let always = try DaemonOptions.resolve(arguments: ["--fsync", "always", "--loops", "1", "--log-commit", "loop"], environment: [:])
        #expect(always.server.idlePoll == .zero)
        #expect(always.idlePollSource == (quota ? "off under a cgroup CPU quota" : "off under --fsync always with the loop committing"))
        let set = try DaemonOptions.resolve(
            arguments: ["--fsync", "always", "--loops", "1", "--log-commit", "loop", "--idle-poll", "200"], environment: [:])
        #expect(set.server.idlePoll == .microseconds(200))
        let writer = try DaemonOptions.resolve(arguments: ["--fsync", "always", "--log-commit", "writer"], environment: [:])
        #expect(writer.server.idlePoll == (quota ? .zero : IdlePoll.defaultLimit))
        let never = try DaemonOptions.resolve(arguments: ["--fsync", "never", "--loops", "1", "--log-commit", "loop"], environment: [:])
        #expect(never.server.idlePoll == (quota ? .zero : IdlePoll.defaultLimit))
    }

    /// The same rule on options whose default polls, whatever quota the machine running the test has.
    @Test func settleIdlePoll_turnsTheDefaultOff_underFsyncAlwaysWithTheLoopCommitting_only() {
        func settled(_ fsync: FsyncPolicy, _ commit: LogCommit, set: Bool = false) -> DaemonOptions {
            var options = DaemonOptions()
            options.server.idlePoll = IdlePoll.defaultLimit
            options.idlePollSet = set
            options.fsync = fsync
            options.logCommit = commit
            options.settleIdlePoll()
            return options
        }
        #expect(settled(.always, .loop).server.idlePoll == .zero)
        #expect(settled(.always, .loop).idlePollSource == "off under --fsync always with the loop committing")
        #expect(settled(.always, .loop, set: true).server.idlePoll == IdlePoll.defaultLimit)
        #expect(settled(.always, .writerThread).server.idlePoll == IdlePoll.defaultLimit)
        #expect(settled(.interval, .loop).server.idlePoll == IdlePoll.defaultLimit)
        #expect(settled(.never, .loop).server.idlePoll == IdlePoll.defaultLimit)
    }

    /// Under a cgroup CPU quota the time a loop polls is quota spent: off unless set, and the log says why.
    @Test func idlePoll_isOffByDefault_underACPUQuota() {
        let quota = CPUBudget.budget(online: 4, affinity: 4, cpuMax: "150000 100000", cfs: nil)
        #expect(DaemonOptions.defaultServer(quota).idlePoll == .zero)
        #expect(DaemonOptions.defaultIdlePollSource(quota) == "off under a cgroup CPU quota")
        let none = CPUBudget.budget(online: 4, affinity: 4, cpuMax: nil, cfs: nil)
        #expect(DaemonOptions.defaultServer(none).idlePoll == IdlePoll.defaultLimit)
        #expect(DaemonOptions.defaultIdlePollSource(none) == "default")
    }

    /// The answer cache's budget: 8 MiB unless the config file says otherwise; 0 turns it off, as no other limit
    /// may be; a negative or fractional budget is refused with the key named.
    @Test func answerCacheBytes_defaultsToEightMiB_zeroTurnsItOff_negativeIsRefused() throws {
        #expect(try DaemonOptions.resolve(arguments: [], environment: [:]).answerCacheBytes == 8 << 20)
        let off = try writeConfig(#"{"limits": {"answerCacheBytes": 0}}"#)
        #expect(try DaemonOptions.resolve(arguments: ["--config", off], environment: [:]).answerCacheBytes == 0)
        let small = try writeConfig(#"{"limits": {"answerCacheBytes": 65536}}"#)
        #expect(try DaemonOptions.resolve(arguments: ["--config", small], environment: [:]).answerCacheBytes == 65536)
        for bad in ["-1", "1.5", "\"big\""] {
            let path = try writeConfig(#"{"limits": {"answerCacheBytes": "# + bad + "}}")
            #expect(throws: UsageError.self) { try DaemonOptions.resolve(arguments: ["--config", path], environment: [:]) }
            do {
                _ = try DaemonOptions.resolve(arguments: ["--config", path], environment: [:])
            } catch {
                #expect(error.description.contains("limits.answerCacheBytes"))
            }
        }
    }

    /// Snapshots wait for the log to grow by half the last one unless told otherwise; 0 leaves the record count
    /// alone to decide, and a negative or out-of-range percentage is refused with the setting named.
    @Test func snapshotGrowth_defaultsToFiftyPercent_zeroTurnsItOff_outOfRangeIsRefused() throws {
        #expect(try DaemonOptions.resolve(arguments: [], environment: [:]).snapshotGrowthPercent == 50)
        #expect(try DaemonOptions.resolve(arguments: ["--snapshot-growth", "0"], environment: [:]).snapshotGrowthPercent == 0)
        #expect(try DaemonOptions.resolve(arguments: [], environment: ["SPECD_SNAPSHOT_GROWTH": "200"]).snapshotGrowthPercent == 200)
        let config = try writeConfig(#"{"snapshotGrowth": 1000}"#)
        #expect(try DaemonOptions.resolve(arguments: ["--config", config], environment: [:]).snapshotGrowthPercent == 1_000)
        for bad in ["-1", "1001", "1.5", "half"] {
            do {
                _ = try DaemonOptions.resolve(arguments: ["--snapshot-growth", bad], environment: [:])
                Issue.record("\(bad) was accepted")
            } catch {
                #expect(error.description.contains("snapshotGrowth"))
            }
        }
    }
}
