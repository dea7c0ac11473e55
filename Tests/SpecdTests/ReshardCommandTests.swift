import Engine
import Foundation
import Rules
import Store
import Testing

@testable import specd

/// `specd reshard` over real data directories: written with the store, resharded, reopened with the store.
@Suite struct ReshardCommandTests {
    let root = NSTemporaryDirectory() + "specd-reshard-\(UUID().uuidString)"

    func path(_ name: String) -> String { root + "/" + name }

    /// Writes `users` into `directory`: each gets a counter, an attribute and a segment; with `snapshotFirst` half
    /// of them lie in a snapshot and the rest only in the log.
    func populate(_ directory: String, users: [String], snapshotHalfway: Bool) throws {
        let database = try Database(options: .init(directory: directory, fsync: .never, snapshotEvery: 1_000_000))
        for (index, user) in users.enumerated() {
            if snapshotHalfway, index == users.count / 2 { try database.takeSnapshot() }
            _ = try database.writeAndWait(
                Mutation(
                    user: user, now: Instant(seconds: 1_700_000_000),
                    actions: [
                        .increment(counter: "opens", by: index + 1), .setAttribute(key: "name", value: .string(user)), .addSegment("s\(index % 3)")
                    ]))
        }
        database.closeWithoutSnapshot()
    }

    func contexts(in directories: [String]) throws -> [[ByteKey: UserContext]] {
        try directories.map { directory in
            let database = try Database(options: .init(directory: directory, fsync: .never))
            defer { database.closeWithoutSnapshot() }
            return database.store.allUsers
        }
    }

    @Test func reshard_threeToFour_everyUserLandsOnItsOwnerWithTheSameState() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let all = (0..<60).map { "user-\($0)" } + ["café", "x/y", "日本"]
        let sources = (0..<3).map { path("from-\($0)") }
        for (index, source) in sources.enumerated() {
            try populate(source, users: all.filter { ClusterMembership.owner(of: $0, memberCount: 3) == index }, snapshotHalfway: index != 2)
        }
        let before = try contexts(in: sources).reduce(into: [ByteKey: UserContext]()) { $0.merge($1) { a, _ in a } }
        let targets = (0..<4).map { path("to-\($0)") }
        let status = ReshardCommand.run(arguments: ["--from"] + sources + ["--to"] + targets + ["--members", "4"])
        #expect(status == 0)
        let after = try contexts(in: targets)
        #expect(after.reduce(0) { $0 + $1.count } == all.count)
        for (index, users) in after.enumerated() {
            for (user, context) in users {
                #expect(ClusterMembership.owner(of: user.string, memberCount: 4) == index)
                #expect(before[user] == context, "\(user.string)")
            }
        }
    }

    @Test func reshard_corruptSource_refusesWithExitTwoAndWritesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let source = path("from")
        try populate(source, users: (0..<20).map { "u\($0)" }, snapshotHalfway: false)
        let segment = try FileManager.default.contentsOfDirectory(atPath: source).first { $0.hasPrefix("segment-") }
        let segmentPath = source + "/" + (segment ?? "")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: segmentPath)))
        bytes[bytes.count / 3] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: segmentPath))
        let status = ReshardCommand.run(arguments: ["--from", source, "--to", path("a"), path("b"), "--members", "2"])
        #expect(status == 2)
        #expect(!FileManager.default.fileExists(atPath: path("a")))
    }

    @Test(arguments: [
        (["--from", "/tmp/x", "--to", "/tmp/y", "--members", "2"], "reshard: --members 2 needs exactly 2 --to directories, not 1"),
        (["--to", "/tmp/y", "--members", "1"], "reshard needs --from DIR..."),
        (["--from", "/tmp/x", "--to", "/tmp/y"], "reshard needs --members N (1-1024)"),
        (["--from", "/tmp/x", "--to", "/tmp/x", "--members", "1"], "reshard: '/tmp/x' is both a source and a target"),
        (["--from", "/tmp/x", "--bogus"], "unknown option '--bogus' for reshard")
    ])
    func parse_badArguments_isAUsageError(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try ReshardCommand.parse(arguments) }
    }

    @Test func parse_nonEmptyTarget_isRefused() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: path("full"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: path("full/file"), contents: Data())
        #expect(throws: UsageError("reshard: target '\(path("full"))' must be empty or new")) {
            try ReshardCommand.parse(["--from", "/tmp/x", "--to", path("full"), "--members", "1"])
        }
    }
}
