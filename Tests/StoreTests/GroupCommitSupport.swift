import Testing

@testable import Store

typealias Commit = GroupCommit<String>

/// The instant the scripted clock starts at; tests add durations to it.
let clockStart = ContinuousClock.now

let commitDirectory = "/data"

func scriptedSegmentPath(_ firstSeq: UInt64) -> String { commitDirectory + "/" + AppendLog.segmentName(firstSeq: firstSeq) }

/// A log at seq 1 in segment 1 (descriptor 3), created at `clockStart`. Space is reserved ahead only when asked
/// (`reserving`), so the other journals stay about writes and syncs.
func makeCommit(
    _ policy: FsyncPolicy, segmentLimit: Int = 1 << 20, interval: Duration = .milliseconds(100), reserving: Bool = false
) -> Commit {
    var commit = Commit(
        policy: policy, interval: interval, segmentLimit: segmentLimit, directory: commitDirectory, nextSeq: 1,
        segment: .init(fd: 3, path: scriptedSegmentPath(1), bytes: 0), now: clockStart)
    if !reserving { commit.reservesSpace = false }
    return commit
}

/// One record of `payload` bytes on disk.
func recordSize(_ payload: Int) -> Int { LogRecord.headerSize + payload }

/// A request as a line of a journal: `write 3 40` (descriptor, bytes), `fsync 3`, `open segment 5`, `sync directory`.
func describe(_ request: Commit.Request) -> String {
    switch request {
    case .write(let fd, _, let bytes): "write \(fd) \(bytes.count)"
    case .fsync(let fd, _): "fsync \(fd)"
    case .open(let path): "open segment \(path.dropFirst(commitDirectory.count + 9).drop { $0 == "0" }.dropLast(4))"
    case .syncDirectory: "sync directory"
    case .reserve(let fd, _, let from, let count): "reserve \(fd) \(from)+\(count)"
    }
}

/// Scripted I/O: answers each request of one flush, in order, from `script` (then as a healthy disk would:
/// whole writes, descriptors from 10 up), and returns the journal of requests and how the batch settled.
func runFlush(_ commit: inout Commit, script: [Commit.Response] = []) -> (journal: [String], settled: Commit.Settled) {
    var script = script[...]
    var journal: [String] = []
    var nextFd: Int32 = 10
    var step = commit.beginFlush()
    while case .perform(let request, _) = step {
        journal.append(describe(request))
        let response: Commit.Response
        if let scripted = script.popFirst() {
            response = scripted
        } else {
            switch request {
            case .write(_, _, let bytes): response = .wrote(bytes.count)
            case .open:
                response = .opened(nextFd)
                nextFd += 1
            case .fsync, .syncDirectory: response = .done
            case .reserve: response = .reserved(true)
            }
        }
        step = commit.advance(response)
    }
    guard case .settled(let settled) = step else { preconditionFailure("a flush ends settled") }
    return (journal, settled)
}

/// Appends `count` records of `payload` bytes, registering a waiter named `seq N` for each; returns their seqs.
@discardableResult
func appendRecords(_ commit: inout Commit, _ count: Int, payload: Int = 8) throws -> [UInt64] {
    try (0..<count).map { _ in
        let seq = try commit.append([UInt8](repeating: 7, count: payload))
        #expect(commit.register(seq, "seq \(seq)") == nil)
        return seq
    }
}

extension Commit.Settled {
    var successes: [String] { completions.filter { (try? $0.outcome.get()) != nil }.map(\.waiter) }
    var failures: [String] { completions.filter { (try? $0.outcome.get()) == nil }.map(\.waiter) }
}
