import Foundation
import NetworkFixtures
import Rules
import Synchronization
import Testing

/// The real `specd` under `--fsync always --log-commit loop`: a loop leaves each round's fsync out and serves its
/// sockets meanwhile, acknowledging the batch once the disk returns. Many writers at once, then a kill -9 in the
/// middle of their traffic: every donation answered 200 is there after the restart.
@Suite(.serialized) struct PipelinedCommitProcessTests {
    /// One loop, and two (where a loop finds the file held by the other's batch and leaves its records to it).
    @Test(arguments: ["1", "2"]) func concurrentDonations_answeredBeforeAKill_surviveIt(loops: String) throws {
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
        // Killed while the writers are at it: after a few hundred answers, or two seconds.
        let deadline = Date().addingTimeInterval(2)
        while acknowledged.withLock({ $0.reduce(0, +) }) < 300, Date() < deadline { usleep(2000) }
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
}
