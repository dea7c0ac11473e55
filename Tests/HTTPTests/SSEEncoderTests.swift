import HTTP
import Testing

@Suite struct SSEEncoderTests {
    func text(_ event: SSEEvent) -> String { String(decoding: SSEEncoder.encode(event), as: UTF8.self) }

    @Test func encode_fullEvent_writesFieldsInOrderAndBlankLine() {
        #expect(text(SSEEvent(id: "42", event: "flag", data: "{\"a\":1}")) == "id: 42\nevent: flag\ndata: {\"a\":1}\n\n")
    }

    @Test func encode_multiLineData_splitsOnEveryLineBreakKind() {
        #expect(text(SSEEvent(data: "a\nb\r\nc\rd")) == "data: a\ndata: b\ndata: c\ndata: d\n\n")
        #expect(text(SSEEvent(data: "")) == "data: \n\n")
        #expect(text(SSEEvent(data: "x\n")) == "data: x\ndata: \n\n")
    }

    @Test func encode_retryAndComment() {
        #expect(text(SSEEvent(retry: 2000)) == "retry: 2000\n\n")
        #expect(text(.heartbeat()) == ": keep-alive\n\n")
        #expect(text(SSEEvent(comment: "a\nb")) == ": a\n: b\n\n")
    }

    @Test func encode_idAndEventWithLineBreaks_cannotInjectFields() {
        #expect(text(SSEEvent(id: "1\ndata: x\u{0}", event: "a\r\nb")) == "id: 1data: x\nevent: ab\n\n")
    }

    /// An event's bytes may stay in the resume window for minutes, so their buffer must be their size. Grown by
    /// appends, an event whose data line filled the buffer doubled it for the final line feed: found by the soak,
    /// where event ids reaching six digits pushed most `context` events over that edge and the 10 000-event window
    /// from ~5 to ~8 MB.
    @Test(arguments: [
        SSEEvent(id: "99999", event: "context"), SSEEvent(id: "100000-3", event: "flag"), SSEEvent(comment: "c"),
        SSEEvent(retry: 2000, comment: "a\r\nb")
    ])
    func encode_everyDataSize_allocatesNoMoreThanItsBytes(shape: SSEEvent) {
        for size in 0..<1_200 {
            var event = shape
            event.data = String(repeating: "x", count: size)
            let bytes = SSEEncoder.encode(event)
            // The allocator rounds a request up by at most a few words; a doubled buffer is hundreds of bytes over.
            #expect(bytes.capacity - bytes.count <= 32, "data of \(size) bytes: \(bytes.count) in a buffer of \(bytes.capacity)")
        }
    }

    @Test func encode_multiLineDataAndComment_sizeMatchesTheAppendedBytes() {
        let event = SSEEvent(id: "7\n", event: "e\r", data: "a\r\nb\rc\n\n", retry: -5, comment: "x\n\ny")
        var appended: [UInt8] = []
        SSEEncoder.encode(event, into: &appended)
        #expect(SSEEncoder.encode(event) == appended)
        #expect(String(decoding: appended, as: UTF8.self) == ": x\n:\n: y\nretry: 0\nid: 7\nevent: e\ndata: a\ndata: b\ndata: c\ndata: \ndata: \n\n")
    }
}
