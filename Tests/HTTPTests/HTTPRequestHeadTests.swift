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

    /// The target's bytes are memory the box owns: a copy taken before the original's target outgrew its room
    /// still reads its own, and a box unshared from one whose room is larger than its target copies the target only.
    @Test func aCopyKeepsItsTarget_whenTheOriginalOutgrowsItsRoom() {
        var head = HTTPRequestHead(method: "GET", target: "/a")
        let before = head
        head.target = "/" + String(repeating: "x", count: 4096)
        #expect(before.target == "/a" && before.path == "/a")
        #expect(head.target.utf8.count == 4097 && head.path == head.target)
        head.target = "/b?q=1"
        var unshared = head
        unshared.method = "PUT"
        #expect(unshared.target == "/b?q=1" && unshared.query == "q=1" && head.target == "/b?q=1")
        unshared.target = "/c"
        #expect(head.target == "/b?q=1" && unshared.target == "/c")
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
        ("/v1/users/u1", "/v1/users/u1"), ("/v1/users/u1?x=1#f", "/v1/users/u1"), ("/a#f?x", "/a"),
        ("http://example.com/v1/users/u1?x=1", "/v1/users/u1"), ("http://example.com", "/"), ("http://example.com?x=1", "/"),
        ("http://h?x/p?y", "/p"), ("*", "*"), ("/", "/"), ("https:///a/b", "/b"), ("/a?b/c", "/a")
    ])
    func pathRange_coversExactlyThePathsBytes(target: String, expected: String) {
        let head = HTTPRequestHead(method: "GET", target: target)
        #expect(String(head.path) == expected)
        let bytes = Array(target.utf8)
        let range = bytes.withUnsafeBufferPointer { HTTPRequestHead.pathRange(in: $0) }
        let path = range.map { String(decoding: bytes[$0], as: UTF8.self) } ?? "/"
        #expect(path == expected)
    }

    /// The head's own range, found when its target was set, is the same, and stays true to a target set later.
    @Test(arguments: ["/v1/users/u1?x=1#f", "http://example.com", "http://h?x/p?y", "*", "https:///a/b", ""])
    func aHeadsPathRange_followsItsTarget(target: String) {
        let range = Array(target.utf8).withUnsafeBufferPointer { HTTPRequestHead.pathRange(in: $0) }
        #expect(HTTPRequestHead(method: "GET", target: target).pathRange == range)
        var changed = HTTPRequestHead(method: "GET", target: "/a/longer/target?than=any#of-these")
        changed.target = target
        #expect(changed.pathRange == range)
    }

    /// The query runs from after the target's first `?` to the first `#` after it, wherever the path ends.
    @Test(
        arguments: [
            ("/a", nil), ("/a?", ""), ("/a?x=1", "x=1"), ("/a?x=1#f", "x=1"), ("/a#f?x", "x"), ("/a?x#f?y", "x"),
            ("http://h?x/p?y", "x/p?y"), ("http://example.com?x=1", "x=1"), ("?", ""), ("", nil), ("*", nil)
        ] as [(String, String?)])
    func query_runsFromTheFirstQuestionMarkToTheNextHash(target: String, expected: String?) {
        #expect(HTTPRequestHead(method: "GET", target: target).query.map(String.init) == expected)
        var refilled = HTTPRequestHead(method: "GET", target: "/longer/than/any/of/these?q=1")
        refilled.target = target
        #expect(refilled.query.map(String.init) == expected)
    }
}
