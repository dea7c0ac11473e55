import HTTP
import Testing

@testable import API

/// The pure pieces of the merged global stream: the vector id and the reader of relayed event bytes.
@Suite struct MergedStreamPartsTests {
    @Test func vectorID_roundTripsAndKeepsEachMembersOwnIndex() {
        let vector = VectorEventID(text: "0-123.1-456-2.2-789", memberCount: 3)
        #expect(vector?.positions[1] == EventID(seq: 456, index: 2))
        #expect(vector?.description == "0-123.1-456-2.2-789")
    }

    @Test(arguments: ["", "123", "3-1", "0-1.0-2", "a-1", "0-x", "0-1..1-2"])
    func vectorID_malformed_isRefused(text: String) {
        #expect(VectorEventID(text: text, memberCount: 3) == nil)
    }

    @Test func vectorID_advance_movesOneMemberOnly() {
        var vector = VectorEventID()
        vector.advance(2, to: EventID(seq: 9))
        vector.advance(0, to: EventID(seq: 4, index: 1))
        #expect(vector.description == "0-4-1.2-9")
    }

    static let wire = Array(
        ": connected\nretry: 2000\n\nid: 7\nevent: flag\ndata: {\"a\":1}\n\n: keep-alive\n\nid: 8-1\r\nevent: rules\r\ndata: x\r\ndata: y\r\n\r\n"
            .utf8)

    /// Whole, byte by byte and split at every index: the same events.
    @Test func sseParser_anySplit_yieldsTheSameEvents() throws {
        let expected = [SSEEvent(id: "7", event: "flag", data: "{\"a\":1}"), SSEEvent(id: "8-1", event: "rules", data: "x\ny")]
        var whole = SSEParser()
        #expect(try whole.feed(Self.wire) == expected)
        var bytewise = SSEParser()
        #expect(try Self.wire.flatMap { try bytewise.feed([$0]) } == expected)
        for split in 0...Self.wire.count {
            var parser = SSEParser()
            let events = try parser.feed(Array(Self.wire[..<split])) + parser.feed(Array(Self.wire[split...]))
            #expect(events == expected, "split at \(split)")
        }
    }

    /// A member that sends a line without end is refused once the line reaches the bound, not held whole.
    @Test func sseParser_lineWithoutEnd_throwsAtTheBound() throws {
        var parser = SSEParser(maxEventBytes: 64)
        #expect(try parser.feed(Array(repeating: UInt8(ascii: "x"), count: 64)).isEmpty)
        #expect(throws: SSEParser.EventTooLarge.self) { try parser.feed([UInt8(ascii: "x")]) }
    }

    /// `data:` lines without the blank line that ends their event add up to the bound.
    @Test func sseParser_dataLinesWithoutBlankLine_throwAtTheBound() throws {
        var parser = SSEParser(maxEventBytes: 64)
        let line = Array("data: 123456789\n".utf8) // 15 bytes kept a line
        for _ in 0..<4 { #expect(try parser.feed(line).isEmpty) }
        #expect(throws: SSEParser.EventTooLarge.self) { try parser.feed(line) }
    }

    /// The bound is per event: any number of events under it, comments and keep-alives between them, never throw.
    @Test func sseParser_manySmallEventsAndComments_neverThrow() throws {
        var parser = SSEParser(maxEventBytes: 64)
        let chunk = Array(": keep-alive comment of some length\nid: 5\nevent: flag\ndata: {\"a\":1}\n\n".utf8)
        var events = 0
        for _ in 0..<1000 { events += try parser.feed(chunk).count }
        #expect(events == 1000)
    }
}
