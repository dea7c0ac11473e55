import Foundation
import NetworkFixtures
import Rules
import Synchronization
import Testing

/// The real `specd` under `--fsync always --log-commit loop`: a loop with other work waiting leaves each round's
/// fsync out and serves its sockets meanwhile, acknowledging the batch once the disk returns; with none, it fsyncs
/// the batch itself. Many writers at once (with readers, so batches are left out), then a kill -9 in the middle of
/// their traffic: every donation answered 200 is there after the restart.
@Suite(.serialized) struct PipelinedCommitProcessTests {
    /// The names of the process's threads (/proc/PID/task/N/comm).
    static func threadNames(_ pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// One loop, and two (where a loop finds the file held by the other's batch and leaves its records to it); one
    /// loop with readers beside the writers, whose answers wait for the rounds' ends, so batches are left out to the
    /// fsync thread (its thread seen running before the kill).
    @Test(arguments: [("1", 0), ("2", 0), ("1", 4)])
    func concurrentDonations_answeredBeforeAKill_surviveIt(loops: String, readers: Int) throws {
        let daemon = DaemonProcessTests()
        let dataDir = DaemonProcessTests.temporaryPath("data")
        let first = try daemon.start(["--fsync", "always", "--log-commit", "loop", "--loops", loops], dataDir: dataDir)
        let writers = 8
        let acknowledged = Mutex([Int](repeating: 0, count: writers))
        let stop = Atomic(false)
        let done = DispatchGroup()
        for writer in 0..<writers {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                // Bounded: at most 400 donations a writer, and none once the daemon is killed.
                for _ in 0..<400 where !stop.load(ordering: .relaxed) {
                    guard let client = try? TestClient(port: first.port),
                        (try? client.send("POST /v1/users/w\(writer)/events/appStarted HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"))
                            != nil,
                        let response = try? client.readResponse()
                    else { return }
                    guard response.status == 200 else {
                        Issue.record("writer \(writer): status \(response.status)")
                        return
                    }
                    acknowledged.withLock { $0[writer] += 1 }
                }
            }
        }
        for reader in 0..<readers {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                guard let client = try? TestClient(port: first.port) else { return }
                // Bounded: at most 2 000 reads a reader, and none once the daemon is killed.
                for _ in 0..<2000 where !stop.load(ordering: .relaxed) {
                    guard (try? client.send("GET /v1/users/r\(reader)/flags/promo-banner HTTP/1.1\r\nHost: t\r\n\r\n")) != nil,
                        (try? client.readResponse()) != nil
                    else { return }
                }
            }
        }
        // Killed while the writers are at it: after a few hundred answers, or two seconds.
        let deadline = Date().addingTimeInterval(2)
        while acknowledged.withLock({ $0.reduce(0, +) }) < 300, Date() < deadline { usleep(2000) }
        if readers > 0 {
            #expect(Self.threadNames(first.process.processIdentifier).contains("specd-log-fsync"), "no batch was left out")
        }
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        stop.store(true, ordering: .relaxed)
        #expect(done.wait(timeout: .now() + 30) == .success)
        let answered = acknowledged.withLock { $0 }
        #expect(answered.reduce(0, +) > 0)

        let second = try daemon.start([], dataDir: dataDir)
        defer {
            kill(second.process.processIdentifier, SIGTERM)
            second.process.waitUntilExit()
        }
        for writer in 0..<writers {
            let client = try TestClient(port: second.port)
            try client.send("GET /v1/users/w\(writer) HTTP/1.1\r\nHost: t\r\n\r\n")
            let body = try JSONParser().parse(client.readResponse().body)
            let kept = body["donations"]?["appStarted"]?["count"]?.numberValue?.int ?? 0
            // At least what was answered (a write may have reached the disk without its answer reaching us).
            #expect(kept >= answered[writer], "writer \(writer): \(kept) kept of \(answered[writer]) answered")
        }
    }

    /// One client donating one request at a time: no round has anything else waiting, so the loop fsyncs each batch
    /// itself and the fsync thread (started the first time a batch is left out) never starts.
    @Test func donationsOneAtATime_areFsyncedOnTheLoop_theFsyncThreadNeverStarts() throws {
        let daemon = DaemonProcessTests()
        let running = try daemon.start(["--fsync", "always", "--log-commit", "loop", "--loops", "1"])
        defer {
            kill(running.process.processIdentifier, SIGTERM)
            running.process.waitUntilExit()
        }
        let client = try TestClient(port: running.port)
        for _ in 0..<50 {
            try client.send("POST /v1/users/one/events/appStarted HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
            #expect(try client.readResponse().status == 200)
        }
        let names = Self.threadNames(running.process.processIdentifier)
        #expect(names.contains("specd-epoll"), "threads not read: \(names)")
        #expect(!names.contains("specd-log-fsync"), "a batch was left out: \(names)")
    }
}
