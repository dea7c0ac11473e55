import Engine
import Foundation
import Testing

@testable import HTTPServer
@testable import specd

/// The daemon's long-lived objects keep their reference counts inline. A weak reference to an object gives it the
/// Swift runtime's side table for good, and from then on every retain and release of it takes the runtime's slow
/// path through that second object: the database, retained and released once a flag read, did so until its
/// snapshot-failure handler stopped holding it weakly.
@Suite struct SideTableTests {
    /// Whether the runtime keeps `object`'s counts in a side table. On 64-bit platforms an object's second word is
    /// its inline count; the runtime sets its two top bits (slow counting, side-table mark) when it moves the counts
    /// out, and the rest of the word then points at the table.
    static func usesSideTable(_ object: AnyObject) -> Bool {
        let bits = Unmanaged.passUnretained(object).toOpaque().load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt64.self)
        return bits >> 62 == 0b11
    }

    final class Probe: Sendable {}

    /// The probe itself: without this, a probe that always said no would pass the test below.
    @Test func aWeakReference_givesAnObjectASideTable() {
        let object = Probe()
        #expect(!Self.usesSideTable(object))
        weak let reference = object
        #expect(reference != nil)
        #expect(Self.usesSideTable(object))
    }

    @Test func theDaemonsSharedObjects_keepTheirCountsInline_afterStart() throws {
        var options = DaemonOptions()
        options.dataDirectory = NSTemporaryDirectory() + "specd-side-table-\(UUID().uuidString)"
        options.logLevel = .error
        options.server = ServerConfiguration(host: "127.0.0.1", port: 0, loopCount: 1)
        let daemon = try Daemon.assemble(options: options, logSink: MemoryLogSink())
        try daemon.start(clockThread: false)
        defer {
            daemon.stop()
            daemon.database.log.close()
        }
        #expect(!Self.usesSideTable(daemon.database))
        #expect(!Self.usesSideTable(daemon.engine))
        #expect(!Self.usesSideTable(daemon.server))
    }
}
