import Engine
import Foundation
import Rules
import Store

/// `specd reshard --from DIR... --to DIR... --members N`: rewrites cluster data directories offline for a new member
/// count (docs/cluster.md). Every source is recovered read-only with the store's own recovery; each user's snapshot
/// state goes into a seed snapshot of its new owner's directory (member i is the i-th `--to`), then each of its
/// later log records is appended there, in order, through the store's own write path, so its history moves with it.
/// Any corruption refuses before anything is written (exit 2, naming the file); the targets must be empty or new.
enum ReshardCommand {
    struct Plan {
        var sources: [String] = []
        var targets: [String] = []
        var members = 0
    }

    /// What one source held once recovered, read-only.
    struct Source {
        let directory: String
        let users: [ByteKey: UserContext]
        let records: [Mutation]
        let lastSeq: UInt64
    }

    static func run(arguments: [String]) -> Int32 {
        let plan: Plan
        do {
            plan = try parse(arguments)
        } catch {
            return CommandLineInterface.usageFailure(error.message)
        }
        var sources: [Source] = []
        for directory in plan.sources {
            switch recover(directory) {
            case .success(let source): sources.append(source)
            case .failure(let message):
                print("error: \(message)")
                print("reshard: refused; nothing was written")
                return 2
            }
        }
        if let duplicate = duplicateUser(in: sources) {
            print("error: \(duplicate)")
            print("reshard: refused; nothing was written")
            return 2
        }
        do {
            let counts = try write(sources, to: plan.targets)
            for (index, target) in plan.targets.enumerated() {
                print("member \(index): \(target): \(counts[index].users) users, \(counts[index].records) records")
            }
            print("reshard: \(counts.reduce(0) { $0 + $1.users }) users from \(plan.sources.count) into \(plan.members) members")
            return 0
        } catch {
            print("error: \(error)")
            print("reshard: failed while writing; remove the --to directories and run it again")
            return 2
        }
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Plan {
        var plan = Plan()
        var current: String?
        var membersText: String?
        for argument in arguments {
            let (name, inline) = DaemonOptions.splitFlag(argument)
            if name.hasPrefix("--") {
                guard ["--from", "--to", "--members"].contains(name) else { throw UsageError("unknown option '\(argument)' for reshard") }
                current = name
                if let inline { try add(inline, to: name, plan: &plan, members: &membersText) }
                continue
            }
            guard let current else { throw UsageError("reshard: '\(argument)' must follow --from, --to or --members") }
            try add(argument, to: current, plan: &plan, members: &membersText)
        }
        guard !plan.sources.isEmpty else { throw UsageError("reshard needs --from DIR...") }
        guard let membersText, let members = Int(membersText), (1...1024).contains(members) else {
            throw UsageError("reshard needs --members N (1-1024)")
        }
        plan.members = members
        guard plan.targets.count == members else {
            throw UsageError("reshard: --members \(members) needs exactly \(members) --to directories, not \(plan.targets.count)")
        }
        let resolved = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL.path }
        for target in plan.targets {
            if plan.sources.map(resolved).contains(resolved(target)) { throw UsageError("reshard: '\(target)' is both a source and a target") }
            guard plan.targets.filter({ resolved($0) == resolved(target) }).count == 1 else {
                throw UsageError("reshard: '\(target)' is a target twice")
            }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory) {
                let entries = (try? FileManager.default.contentsOfDirectory(atPath: target)) ?? ["?"]
                guard isDirectory.boolValue, entries.isEmpty else { throw UsageError("reshard: target '\(target)' must be empty or new") }
            }
        }
        return plan
    }

    private static func add(_ value: String, to flag: String, plan: inout Plan, members: inout String?) throws(UsageError) {
        switch flag {
        case "--from": plan.sources.append(value)
        case "--to": plan.targets.append(value)
        default:
            guard members == nil else { throw UsageError("reshard: --members takes one number") }
            members = value
        }
    }

    enum Recovered {
        case success(Source)
        case failure(String)
    }

    /// Read-only recovery (nothing on disk changes); a damaged snapshot counts as corruption even when the log
    /// could rebuild past it: resharding is no time to carry damage along.
    static func recover(_ directory: String) -> Recovered {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return .failure("\(directory): no data directory")
        }
        var users: [ByteKey: UserContext] = [:]
        var records: [Mutation] = []
        do {
            let report = try Recovery.run(
                directory: directory, fileSystem: PosixFileSystem(), repair: false, apply: { records.append($0) },
                loadSnapshot: { shards in for shard in shards { users.merge(shard.decodedUsers) { first, _ in first } } })
            if let damage = report.damagedSnapshots.first { return .failure("damaged snapshot \(damage)") }
            // A torn final record was never acknowledged: it is left behind, and said so.
            for warning in report.warnings { print("warning: \(warning)") }
            return .success(Source(directory: directory, users: users, records: records, lastSeq: report.lastSeq))
        } catch {
            return .failure(error.description)
        }
    }

    /// A user held by two sources means the sources were not one cluster's partition: which copy wins is not
    /// ours to guess.
    static func duplicateUser(in sources: [Source]) -> String? {
        var holder: [ByteKey: Int] = [:]
        for (index, source) in sources.enumerated() {
            var users = Set(source.users.keys)
            for record in source.records { users.insert(ByteKey(record.user)) }
            for user in users {
                if let other = holder[user] {
                    return "user '\(user.string)' is in both \(sources[other].directory) and \(source.directory)"
                }
                holder[user] = index
            }
        }
        return nil
    }

    /// Seeds every target with its users' snapshot state at a seq past every source's, then appends their later
    /// records; closing each takes its snapshot.
    static func write(_ sources: [Source], to targets: [String]) throws -> [(users: Int, records: Int)] {
        let seq = sources.map(\.lastSeq).max() ?? 0
        var seeds = [[ByteKey: UserContext]](repeating: [:], count: targets.count)
        for source in sources {
            for (user, context) in source.users {
                seeds[ClusterMembership.owner(of: user.string, memberCount: targets.count)][user] = context
            }
        }
        var counts: [(users: Int, records: Int)] = []
        for (index, target) in targets.enumerated() {
            try Database.seed(directory: target, users: seeds[index], seq: seq)
            let database = try Database(options: Database.Options(directory: target, fsync: .interval, limits: .unlimited))
            var records = 0
            for source in sources {
                for record in source.records where ClusterMembership.owner(of: record.user, memberCount: targets.count) == index {
                    // A record the reducer refuses was refused when it was first replayed too: skipping is exact.
                    if (try? database.writeAndWait(record)) != nil { records += 1 }
                }
            }
            try database.close()
            counts.append((database.store.userCount, records))
        }
        return counts
    }
}
