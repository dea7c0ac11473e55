import Foundation
import Rules
import Store

// Test helper for the kill -9 crash test: recovers DIR, prints "ready", then writes from several threads under the
// given fsync policy (default always) and prints "ack USER N" after each acknowledged write, until it is killed.
// Small segments and frequent snapshots, so kills land in rotations, snapshots and compactions too.
let arguments = CommandLine.arguments
guard (3...5).contains(arguments.count), let threads = Int(arguments[2]),
    let policy = arguments.count >= 4 ? FsyncPolicy(rawValue: arguments[3]) : .always,
    arguments.count < 5 || arguments[4] == "writers-commit"
else {
    FileHandle.standardError.write(Data("usage: store-crash-writer DIR THREADS [always|interval|never [writers-commit]]\n".utf8))
    exit(1)
}
let database: Database
do {
    var options = Database.Options(directory: arguments[1], fsync: policy, snapshotEvery: 300, segmentLimit: 16 << 10)
    // The writing threads write and fsync their own records (`--log-commit loop`).
    options.writersCommit = arguments.count == 5
    database = try Database(options: options)
} catch {
    FileHandle.standardError.write(Data("recovery failed: \(error)\n".utf8))
    exit(2)
}
let output = NSLock()
FileHandle.standardOutput.write(Data("ready\n".utf8))
for thread in 0..<threads {
    Thread.detachNewThread {
        let user = "u\(thread)"
        while true {
            let next = (database.store.context(of: user)?.counters["n"] ?? 0) + 1
            let now = Instant(seconds: Date().timeIntervalSince1970)
            let batch = Mutation(user: user, now: now, actions: [.setCounter(counter: "n", value: next), .setAttribute(key: "n", value: .int(next))])
            guard (try? database.writeAndWait(batch)) != nil else { exit(3) }
            output.lock()
            // One unbuffered write per ack: what the parent reads was acknowledged before it was printed.
            FileHandle.standardOutput.write(Data("ack \(user) \(next)\n".utf8))
            output.unlock()
        }
    }
}
while true { sleep(60) }
