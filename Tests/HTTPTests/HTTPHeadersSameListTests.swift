import Testing

@testable import HTTP

/// A recycled head keeps its header list when the next request repeats the section (`HTTPRequestHead.refill`): only
/// the very same list may count as unchanged, never an equal one in other storage, nor one changed since.
@Suite struct HTTPHeadersSameListTests {
    @Test func aListAndItsCopy_areTheSameList() {
        let list: HTTPHeaders = ["Host": "a", "X-App-Version": "1.2"]
        let copy = list
        #expect(list.isSameList(as: copy))
    }

    @Test func equalFields_inAnotherStorage_areNotTheSameList() {
        let list: HTTPHeaders = ["Host": "a", "X-App-Version": "1.2"]
        let other: HTTPHeaders = ["Host": "a", "X-App-Version": "1.2"]
        #expect(list == other)
        #expect(!list.isSameList(as: other))
    }

    @Test func aCopyChangedSince_isNotTheSameList() {
        let list: HTTPHeaders = ["Host": "a"]
        var changed = list
        changed.add("X-App-Version", "1.2")
        #expect(!list.isSameList(as: changed))
        var replaced = list
        replaced.set("Host", "b")
        #expect(!list.isSameList(as: replaced))
    }

    @Test func twoEmptyLists_areTheSameList() {
        #expect(HTTPHeaders().isSameList(as: HTTPHeaders()))
    }
}
