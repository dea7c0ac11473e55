import Rules
import Testing

/// The request's app version is parsed once, where it is set: every version test reads the parsed one.
@Suite struct RequestAttributesTests {
    @Test func version_followsTheAppVersionWhenSetOrChanged() {
        var request = RequestAttributes(userID: "u", appVersion: "2.10.1")
        #expect(request.version == Version("2.10.1"))
        request.appVersion = "not a version"
        #expect(request.version == nil)
        request.appVersion = "3"
        #expect(request.version == Version("3"))
        request.appVersion = nil
        #expect(request.version == nil)
        #expect(RequestAttributes(userID: "u").version == nil)
    }

    /// A value, though its fields share one box: a copy changed leaves the original as it was, and two requests
    /// made apart with the same user and version are equal.
    @Test func copies_areValues_andEqualByContent() {
        let original = RequestAttributes(userID: "u", appVersion: "1.2")
        var changed = original
        changed.appVersion = "2.0"
        changed.userID = "w"
        #expect(original.userID == "u")
        #expect(original.appVersion == "1.2")
        #expect(original.version == Version("1.2"))
        #expect(changed.userID == "w")
        #expect(changed.version == Version("2.0"))
        #expect(original == RequestAttributes(userID: "u", appVersion: "1.2"))
        #expect(original != changed)
        #expect(original != RequestAttributes(userID: "u"))
        #expect(RequestAttributes(userID: "u") == RequestAttributes(userID: "u", appVersion: nil))
        // Without a version a request is its id alone; given one, it keeps the id it had.
        var plain = RequestAttributes(userID: "a")
        plain.userID = "b"
        #expect(plain.userID == "b" && plain.appVersion == nil && plain.version == nil)
        plain.appVersion = "1.0"
        #expect(plain == RequestAttributes(userID: "b", appVersion: "1.0"))
        #expect(plain.version == Version("1.0"))
        plain.appVersion = nil
        #expect(plain == RequestAttributes(userID: "b"))
    }
}
