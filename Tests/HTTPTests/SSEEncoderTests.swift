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
}
