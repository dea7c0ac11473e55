import HTTP
import HTTPServer
import Rules
import Testing

@testable import API

/// The one conditional-GET helper behind the flags, OFREP bulk and rules answers, from values alone.
@Suite struct ETagTests {
    let body = Array(#"{"flags":{}}"#.utf8)

    func request(ifNoneMatch: String?) -> Request {
        let headers: HTTPHeaders = ifNoneMatch.map { ["If-None-Match": $0] } ?? [:]
        return Request(head: HTTPRequestHead(method: "GET", target: "/v1/users/u/flags", headers: headers), body: [], id: "t")
    }

    @Test(arguments: ["\"abc\"", "*", "W/\"abc\"", "\"zzz\", \"abc\"", " \"abc\" ,\t\"zzz\""])
    func respond_ifNoneMatchMatches_answers304WithTheETagAndTheCachingHeaders(header: String) {
        // RFC 9110 §15.4.5: a 304 carries the Cache-Control its 200 would have, so a refreshed copy stays no-cache.
        let response = ETag.respond(request(ifNoneMatch: header), body: body, etag: "\"abc\"", headers: ETag.flagAnswerCaching)
        #expect(response.status == .notModified)
        #expect(response.body.isEmpty)
        #expect(
            response.headers.fields == [
                HTTPHeaders.Field(name: "ETag", value: "\"abc\""), HTTPHeaders.Field(name: "Cache-Control", value: "private, no-cache")
            ])
    }

    @Test(arguments: [nil, "\"zzz\"", "abc", "\"ab\"", "W/\"zzz\"", ""] as [String?])
    func respond_noMatchingIfNoneMatch_answers200WithETagThenHeaders(header: String?) {
        let response = ETag.respond(request(ifNoneMatch: header), body: body, etag: "\"abc\"", headers: ["Cache-Control": "no-cache"])
        #expect(response.status == .ok)
        #expect(response.body == body)
        #expect(response.headers.fields.map(\.name) == ["ETag", "Cache-Control", "Content-Type"])
        #expect(response.headers["ETag"] == "\"abc\"")
    }

    @Test(arguments: ["", "{}", #"{"flags":{}}"#, String(repeating: "é\u{1F600}x", count: 50)])
    func strongHash_isTheQuotedContentHash(text: String) {
        let bytes = Array(text.utf8)
        #expect(ETag.strongHash(bytes) == ETag.strong(ContentHash.hex(bytes)))
    }

    @Test func respond_withoutETag_tagsTheBodyByItsHash() {
        let response = ETag.respond(request(ifNoneMatch: nil), body: body)
        #expect(response.headers["ETag"] == "\"" + ContentHash.hex(body) + "\"")
        let again = ETag.respond(request(ifNoneMatch: response.headers["ETag"]), body: body)
        #expect(again.status == .notModified)
    }
}
