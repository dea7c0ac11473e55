import Testing

@testable import HTTP

/// A head shares its fields between copies until one is changed: a value all the same.
@Suite struct HTTPRequestHeadTests {
    private let original = HTTPRequestHead(
        method: "POST", target: "/v1/users/a/events/e?x=1", version: .http11, headers: ["X-App-Version": "1.2"], keepAlive: true,
        expectsContinue: false, framing: .length(3))

    @Test func changingACopy_leavesTheOriginalAsItWas() {
        var copy = original
        copy.method = "PUT"
        copy.target = "/other"
        copy.version = .http10
        copy.headers.add("Accept", "*/*")
        copy.keepAlive = false
        copy.expectsContinue = true
        copy.framing = .none
        #expect(original.method == "POST" && original.target == "/v1/users/a/events/e?x=1" && original.version == .http11)
        #expect(original.headers.fields.map(\.name) == ["X-App-Version"])
        #expect(original.keepAlive && !original.expectsContinue && original.framing == .length(3))
        #expect(copy.method == "PUT" && copy.target == "/other" && copy.version == .http10 && copy.headers.count == 2)
        #expect(!copy.keepAlive && copy.expectsContinue && copy.framing == .none)
        #expect(copy != original)
    }

    /// The target lives in its box's room (the first bytes of a buffer that only grows): a shorter target then a
    /// longer one read back exactly, and compare by their own bytes only.
    @Test func aTargetSetShorterThenLonger_readsBackExactly() {
        var head = original
        head.target = "/s"
        #expect(head.target == "/s" && head.path == "/s" && head.query == nil)
        #expect(head == HTTPRequestHead(method: "POST", target: "/s", headers: ["X-App-Version": "1.2"], framing: .length(3)))
        head.target = "/a/much/longer/target/than/the/first/one?q=%20"
        #expect(head.target == "/a/much/longer/target/than/the/first/one?q=%20")
        #expect(head.path == "/a/much/longer/target/than/the/first/one" && head.query == "q=%20")
        head.target = ""
        #expect(head.target == "" && head.query == nil)
        #expect(original.target == "/v1/users/a/events/e?x=1")
    }

    @Test func equality_isByFields_notByWhoHoldsThem() {
        let rebuilt = HTTPRequestHead(
            method: "POST", target: "/v1/users/a/events/e?x=1", version: .http11, headers: ["X-App-Version": "1.2"],
            keepAlive: true, expectsContinue: false, framing: .length(3))
        #expect(rebuilt == original)
        var changedBack = original
        changedBack.keepAlive = false
        changedBack.keepAlive = true
        #expect(changedBack == original)
        #expect(original.path == "/v1/users/a/events/e" && original.query == "x=1")
    }

    /// The router reads the path's bytes where they lie in the target (`pathRange`): the same bytes `path` gives,
    /// and none for an absolute-form target without a path (whose `path` is `/`).
    @Test(arguments: [
        "/v1/users/u1", "/v1/users/u1?x=1#f", "/a#f?x", "http://example.com/v1/users/u1?x=1", "http://example.com",
        "http://example.com?x=1", "*", "/", "https:///a/b"
    ])
    func pathRange_coversExactlyThePathsBytes(target: String) {
        let head = HTTPRequestHead(method: "GET", target: target)
        let bytes = Array(target.utf8)
        let range = bytes.withUnsafeBufferPointer { HTTPRequestHead.pathRange(in: $0) }
        let path = range.map { String(decoding: bytes[$0], as: UTF8.self) } ?? "/"
        #expect(path == String(head.path))
    }
}
