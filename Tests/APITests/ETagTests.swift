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

    @Test(arguments: ["", "{}", #"{"flags":{}}"#, "1234567", "12345678", "123456789", String(repeating: "é\u{1F600}x", count: 50)])
    func strongHash_isSixteenHexDigitsInQuotes_andChangesWithEveryByteFlippedOrAdded(text: String) {
        let bytes = Array(text.utf8)
        let tag = ETag.strongHash(bytes)
        #expect(tag.utf8.count == 18 && tag.hasPrefix("\"") && tag.hasSuffix("\""))
        #expect(
            tag.utf8.dropFirst().dropLast().allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            })
        #expect(ETag.strongHash(bytes) == tag)
        var seen: Set<String> = [tag]
        for index in bytes.indices {
            for bit in 0..<8 {
                var flipped = bytes
                flipped[index] ^= 1 << bit
                seen.insert(ETag.strongHash(flipped))
            }
        }
        // A zero byte added at either end (one tag when the body is empty).
        seen.insert(ETag.strongHash(bytes + [0]))
        seen.insert(ETag.strongHash([0] + bytes))
        #expect(seen.count == 1 + 8 * bytes.count + (bytes.isEmpty ? 1 : 2))
    }

    /// Pinned: every node of a cluster, and every run, must tag one answer alike, or revalidation would miss.
    @Test func strongHash_isTheSameOnEveryRunAndPlatform() {
        #expect(ETag.strongHash(Array(#"{"key":"promo-banner","value":false,"reason":"DEFAULT","matched":false}"#.utf8)) == #""9fb19c350b64e0b0""#)
        #expect(ETag.strongHash([]) == #""48218226ff3cd4bf""#)
    }

    @Test func respond_withoutETag_tagsTheBodyByItsHash() {
        let response = ETag.respond(request(ifNoneMatch: nil), body: body)
        #expect(response.headers["ETag"] == ETag.strongHash(body))
        let again = ETag.respond(request(ifNoneMatch: response.headers["ETag"]), body: body)
        #expect(again.status == .notModified)
    }

    /// An answer prepared (its fields and body made into one array once, shared by every send) goes out with the
    /// same bytes as the same answer plain; a revalidation is a 304 either way; preparing twice is preparing once.
    @Test func aPreparedAnswer_goesOutWithTheBytesOfAPlainOne() {
        let plain = ETag.Tagged(body: body, etag: ETag.strongHash(body), headers: ETag.flagAnswerCaching)
        let (kept, fields) = plain.prepared()
        #expect(kept !== plain && kept.preparedFields == fields)
        #expect(kept.prepared().answer === kept && kept.prepared().fields == fields)
        #expect(kept.etag == plain.etag && kept.ok == plain.ok && kept.notModified == plain.notModified)
        let first = ETag.respond(request(ifNoneMatch: nil), plain)
        let again = ETag.respond(request(ifNoneMatch: nil), kept)
        let later = ETag.respond(request(ifNoneMatch: nil), kept)
        #expect(!plain.isPrepared && kept.isPrepared)
        #expect(first.prepared == nil)
        #expect(again.prepared?.carriesBody == true && again.prepared == later.prepared)
        #expect(again.headers == first.headers)
        #expect(again.body == body && kept.body == body && plain.body == body)
        // Prepared, it counts the array as allocated: at least what the plain answer counts.
        #expect(kept.heldBytes >= plain.heldBytes)
        func wire(_ response: HTTPResponse) -> [UInt8] {
            var bytes: [UInt8] = []
            HTTPResponseEncoder.encode(response, version: .http11, keepAlive: true, isHead: false, date: "d", into: &bytes)
            return bytes
        }
        #expect(wire(again) == wire(first))
        #expect(wire(again).suffix(body.count).elementsEqual(body))
        for tagged in [plain, kept] {
            let revalidated = ETag.respond(request(ifNoneMatch: tagged.etag), tagged)
            #expect(revalidated.status == .notModified)
            #expect(revalidated.headers == tagged.notModified)
        }
    }
}
