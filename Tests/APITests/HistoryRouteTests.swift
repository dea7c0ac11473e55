import Foundation
import NetworkFixtures
import Rules
import Store
import Synchronization
import Testing

@testable import Engine

extension JSONValue {
    /// The value as an integer, when it is one.
    var historyInt: Int? { numberValue?.int }
}

/// `GET /v1/users/{u}/history` and `GET /v1/users/{u}/history/{seq}/explain/{key}` against the real daemon.
@Suite(.serialized) struct HistoryRouteTests {
    static let rules = #"""
        {"flags": {
           "promo": {"when": {"cooldown": {"event": "shown", "for": "1h"}}},
           "vip": {"when": {"flag": "is_vip"}}},
         "triggers": {"welcome": {"on": ["appStarted"], "when": {"donations": {"event": "appStarted", "gte": 1}}}}}
        """#

    func seq(_ reply: APIHarness.Reply) -> Int { reply.body?["seq"]?.historyInt ?? -1 }

    /// Seven records of u1 between other users' writes: paged newest first, `before` as the cursor.
    func sevenRecords(_ api: APIHarness) throws -> [Int] {
        var seqs: [Int] = []
        for index in 0..<7 {
            _ = try api.call("PATCH", "/v1/users/other/context", json: #"{"ops": [{"op": "increment", "counter": "n"}]}"#)
            seqs.append(
                seq(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "setCounter", "counter": "n", "value": \#(index)}]}"#)))
        }
        return seqs
    }

    @Test func history_pagesNewestFirst_withTheNextCursor() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let seqs = try sevenRecords(api)
        let all = try api.call("GET", "/v1/users/u1/history")
        #expect(all.status == 200)
        #expect(all.body?["records"]?.arrayValue?.compactMap { $0["seq"]?.historyInt } == seqs.reversed())
        #expect(all.body?["before"] == .null)
        #expect(all.body?["rules"] == "current")
        #expect(all.body?["oldest"] == 1)
        var cursor: String?
        var seen: [Int] = []
        for _ in 0..<7 {
            let page = try api.call("GET", "/v1/users/u1/history?limit=3" + (cursor.map { "&before=\($0)" } ?? ""))
            let got = page.body?["records"]?.arrayValue?.compactMap { $0["seq"]?.historyInt } ?? []
            seen += got
            guard let next = page.body?["before"]?.historyInt else { break }
            #expect(next == got.last)
            cursor = String(next)
        }
        #expect(seen == seqs.reversed())
    }

    @Test(arguments: [
        ("limit=1", 200), ("limit=500", 200), ("limit=0", 400), ("limit=501", 400), ("limit=-1", 400), ("limit=1e2", 400),
        ("limit=99999999999999999999", 400), ("before=0", 400), ("before=-3", 400), ("before=x", 400), ("before=1", 200)
    ])
    func history_queryBoundaries(query: String, status: Int) throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try sevenRecords(api)
        let reply = try api.call("GET", "/v1/users/u1/history?\(query)")
        #expect(reply.status == status)
        if status == 400 { #expect(reply.errorField == String(query.prefix { $0 != "=" })) }
        if query == "limit=1" { #expect(reply.body?["records"]?.arrayValue?.count == 1) }
        if query == "limit=500" { #expect(reply.body?["records"]?.arrayValue?.count == 7 && reply.body?["before"] == .null) }
        if query == "before=1" { #expect(reply.body?["records"] == [] && reply.body?["before"] == .null) }
    }

    /// `before` at the user's own oldest record: nothing older; just above it: exactly that one.
    @Test func history_beforeAtTheEdges() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let seqs = try sevenRecords(api)
        #expect(try api.call("GET", "/v1/users/u1/history?before=\(seqs[0])").body?["records"] == [])
        let one = try api.call("GET", "/v1/users/u1/history?before=\(seqs[0] + 1)")
        #expect(one.body?["records"]?.arrayValue?.compactMap { $0["seq"]?.historyInt } == [seqs[0]])
        let beyond = try api.call("GET", "/v1/users/u1/history?before=999999")
        #expect(beyond.body?["records"]?.arrayValue?.count == 7)
    }

    /// Each record: the action in the API's words, the flags it changed (current rules), the triggers it fired.
    @Test func history_recordHoldsActionChangedAndFired() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        _ = try api.call("POST", "/v1/users/u1/events/appStarted", json: #"{"appVersion": "1.2.0"}"#)
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "setFlag", "flag": "is_vip", "value": true}]}"#)
        let records = try api.call("GET", "/v1/users/u1/history").body?["records"]?.arrayValue ?? []
        #expect(records.count == 2)
        #expect(records[0]["action"] == ["ops": [["op": "setFlag", "flag": "is_vip", "value": true]]])
        #expect(records[0]["changed"] == [["key": "vip", "value": true, "previous": false]])
        #expect(records[0]["fired"] == [])
        #expect(records[1]["action"]?["ops"]?.arrayValue?.first?["op"] == "donate")
        #expect(records[1]["action"]?["ops"]?.arrayValue?.first?["appVersion"] == "1.2.0")
        #expect(records[1]["fired"]?.arrayValue?.first?["trigger"] == "welcome")
        #expect(records[1]["at"] == "2026-03-10T12:00:00Z")
    }

    @Test func history_unknownOrErasedUser_is404() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let unknown = try api.call("GET", "/v1/users/ghost/history")
        #expect(unknown.status == 404 && unknown.errorCode == "user_not_found" && unknown.errorField == "user")
        let seqs = try sevenRecords(api)
        #expect(try api.call("DELETE", "/v1/users/u1").status == 200)
        #expect(try api.call("GET", "/v1/users/u1/history").errorCode == "user_not_found")
        #expect(try api.call("GET", "/v1/users/u1/history/\(seqs[0])/explain/vip").errorCode == "user_not_found")
        // Written again: a new story, without the erased one.
        let again = seq(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "setFlag", "flag": "is_vip", "value": true}]}"#))
        #expect(try api.call("GET", "/v1/users/u1/history").body?["records"]?.arrayValue?.compactMap { $0["seq"]?.historyInt } == [again])
        let old = try api.call("GET", "/v1/users/u1/history/\(seqs[0])/explain/vip")
        #expect(old.status == 404 && old.errorCode == "record_not_found" && old.errorField == "seq")
    }

    /// "Why then": the cooldown was running just after `shown` was recorded; two hours later it is over.
    @Test func explain_atASeq_answersAsItStoodThen() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let shown = seq(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "shown"}]}"#))
        api.clock.advance(2 * 3_600_000)
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "n"}]}"#)
        #expect(try api.call("GET", "/v1/users/u1/flags/promo").body?["value"] == true)
        let then = try api.call("GET", "/v1/users/u1/history/\(shown)/explain/promo")
        #expect(then.status == 200)
        #expect(then.body?["value"] == false)
        #expect(then.body?["now"]?["value"] == true)
        #expect(then.body?["rules"] == "current")
        #expect(then.body?["explain"] != nil)
        #expect(then.body?["rebuiltFrom"]?["snapshotSeq"] == 0)
        // The same tree the live explain gives for the same context and instant.
        let live = try api.call("GET", "/v1/users/u1/flags/promo?explain=1&at=2026-03-10T12:00:00Z")
        #expect(then.body?["explain"] == live.body?["explain"])
    }

    @Test func explain_badSeqsAndKeys_areRefusedByName() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let mine = seq(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "n"}]}"#))
        let theirs = seq(try api.call("PATCH", "/v1/users/u2/context", json: #"{"ops": [{"op": "increment", "counter": "n"}]}"#))
        let flag = try api.call("GET", "/v1/users/u1/history/\(mine)/explain/nope")
        #expect(flag.status == 404 && flag.errorCode == "flag_not_found" && flag.errorField == "key")
        let other = try api.call("GET", "/v1/users/u1/history/\(theirs)/explain/vip")
        #expect(other.status == 404 && other.errorCode == "record_not_found" && other.errorField == "seq")
        #expect(other.body?["error"]?["message"]?.stringValue?.contains("\(theirs)") == true)
        let beyond = try api.call("GET", "/v1/users/u1/history/\(theirs + 100)/explain/vip")
        #expect(beyond.status == 404 && beyond.errorCode == "record_not_found")
        for bad in ["0", "-1", "x", "1.5", "99999999999999999999"] {
            let reply = try api.call("GET", "/v1/users/u1/history/\(bad)/explain/vip")
            #expect(reply.status == 400 && reply.errorField == "seq", "seq \(bad)")
        }
    }

    /// Two snapshots replace the log before the older one: a seq from then is 410 with the oldest available, the
    /// history starts there and says the user's earlier records were compacted.
    @Test func history_acrossSnapshotsAndCompaction_410WithOldest() throws {
        let api = try APIHarness(rulesText: Self.rules)
        defer { api.stop() }
        let early = seq(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "recordEvent", "event": "shown"}]}"#))
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "n"}]}"#)
        let first = try api.database.takeSnapshot()
        let middle = seq(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "n"}]}"#))
        _ = try api.database.takeSnapshot()
        let late = seq(try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "n"}]}"#))
        let gone = try api.call("GET", "/v1/users/u1/history/\(early)/explain/promo")
        #expect(gone.status == 410)
        #expect(gone.errorCode == "history_compacted" && gone.errorField == "seq")
        #expect(gone.body?["error"]?["details"]?["oldest"]?.historyInt == Int(first) + 1)
        let history = try api.call("GET", "/v1/users/u1/history")
        #expect(history.body?["records"]?.arrayValue?.compactMap { $0["seq"]?.historyInt } == [late, middle])
        #expect(history.body?["oldest"]?.historyInt == Int(first) + 1)
        #expect(history.body?["compacted"] == true)
        // Rebuilt from the snapshot before it: the cooldown recorded at `early` is in the base.
        let kept = try api.call("GET", "/v1/users/u1/history/\(middle)/explain/promo")
        #expect(kept.status == 200 && kept.body?["value"] == false)
        #expect(kept.body?["rebuiltFrom"]?["snapshotSeq"]?.historyInt == Int(first))
    }
}

/// A history read runs off the event loop: while one is stuck reading the log, the only loop still answers.
@Suite(.serialized) struct HistoryOffLoopTests {
    /// The real file system, whose chunked reads wait at a gate while it is closed.
    final class GatedFileSystem: FileSystem, @unchecked Sendable {
        let base = PosixFileSystem()
        let closed = Mutex(false)
        let opened = DispatchSemaphore(value: 0)
        let reading = DispatchSemaphore(value: 0)

        func readChunks(_ path: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) -> Bool) throws(IOError) {
            if closed.withLock({ $0 }) {
                reading.signal()
                opened.wait()
            }
            try base.readChunks(path, chunkSize: chunkSize, body)
        }

        func openForAppend(_ path: String) throws(IOError) -> Int32 { try base.openForAppend(path) }
        func openForWrite(_ path: String) throws(IOError) -> Int32 { try base.openForWrite(path) }
        func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(IOError) -> Int { try base.write(fd, bytes, path: path) }
        func fsync(_ fd: Int32, path: String) throws(IOError) { try base.fsync(fd, path: path) }
        func close(_ fd: Int32) { base.close(fd) }
        func rename(_ from: String, _ to: String) throws(IOError) { try base.rename(from, to) }
        func remove(_ path: String) throws(IOError) { try base.remove(path) }
        func fsyncDirectory(_ path: String) throws(IOError) { try base.fsyncDirectory(path) }
        func read(_ path: String) throws(IOError) -> [UInt8] { try base.read(path) }
        func list(_ directory: String) throws(IOError) -> [String] { try base.list(directory) }
        func truncate(_ path: String, to size: Int) throws(IOError) { try base.truncate(path, to: size) }
        func createDirectory(_ path: String) throws(IOError) { try base.createDirectory(path) }
        func size(_ path: String) -> Int? { base.size(path) }
    }

    @Test func historyRead_stuckOnTheLog_leavesTheLoopServing() throws {
        let files = GatedFileSystem()
        let api = try APIHarness(rulesText: HistoryRouteTests.rules, fileSystem: files)
        defer { api.stop() }
        _ = try api.call("PATCH", "/v1/users/u1/context", json: #"{"ops": [{"op": "increment", "counter": "n"}]}"#)
        files.closed.withLock { $0 = true }
        // Whatever happens, the gate opens before the daemon stops (a stuck loop would never stop).
        defer {
            files.closed.withLock { $0 = false }
            files.opened.signal()
        }
        let waiting = try TestClient(port: api.server.port)
        try waiting.send("GET /v1/users/u1/history HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(files.reading.wait(timeout: .now() + 5) == .success)
        // The one loop is free: other requests are answered while the read waits.
        #expect(try api.call("GET", "/healthz").status == 200)
        #expect(try api.call("GET", "/v1/users/u1").status == 200)
        files.closed.withLock { $0 = false }
        files.opened.signal()
        #expect(try waiting.readResponse().status == 200)
    }
}
