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
}
