import Rules
import Testing

@testable import API

/// The resume window's memory, with the hub alone (no streams, no server).
@Suite struct StreamHubRetentionTests {
    /// Events leaving the window used to keep their bytes until the next bulk compaction, so the hub held up to
    /// twice `retainEvents` / `retainBytes` (found by the soak: 11.5 MB for a 10 000-event window of ~575 B).
    @Test(arguments: [1_500, 2_500, 3_000])
    func eventsLeavingTheWindow_releaseTheirBytesAtOnce(published: Int) {
        var options = StreamHub.Options()
        options.retainEvents = 1_000
        let hub = StreamHub(options: options, startSeq: 0)
        let padding = String(repeating: "x", count: 500)
        var eventBytes = 0
        for index in 0..<published {
            hub.publish(type: "trigger", user: "u\(index % 7)", data: ["n": .int(index), "pad": .string(padding)], seq: nil)
            if index == 0 { eventBytes = hub.heldEventBytes }
        }
        // Every event encodes to about the same size (its index adds up to 3 digits; an allocation rounds up to 16
        // bytes): the window holds 1 000 of them, never more, and never buffers grown to twice their event.
        #expect(hub.heldEventBytes <= 1_000 * (eventBytes + 24))
        #expect(hub.heldEventBytes >= 1_000 * (eventBytes - 8))
    }
}
