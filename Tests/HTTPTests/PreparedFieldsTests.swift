import HTTP
import TestRandom
import Testing

/// A response made from `PreparedFields` goes out byte for byte as the same response with its fields written one
/// by one, and a response that changes its fields after that is sent with the new ones.
@Suite struct PreparedFieldsTests {
    private static func encoded(
        _ response: HTTPResponse, version: HTTPVersion = .http11, keepAlive: Bool = true, isHead: Bool = false,
        date: String = "Sun, 06 Nov 1994 08:49:37 GMT", extra: HTTPHeaders.Field? = nil
    ) -> String {
        var buffer: [UInt8] = Array("kept".utf8)
        HTTPResponseEncoder.encode(response, version: version, keepAlive: keepAlive, isHead: isHead, date: date, extra: extra, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func randomResponses_encodeTheSamePreparedOrNot(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let names = HTTPResponseEncoderPropertyTests.names
        let codes = [200, 204, 304, 404, 999, 0, -1, Int.max]
        for _ in 0..<2_000 {
            let status = HTTPStatus(code: codes[random.next(upTo: codes.count)])
            var headers = HTTPHeaders()
            for _ in 0..<random.next(upTo: 8) {
                headers.add(names[random.next(upTo: names.count)], HTTPResponseEncoderPropertyTests.value(&random))
            }
            let body = Array(String(repeating: "b", count: random.next(upTo: 40)).utf8)
            let version: HTTPVersion = random.next(upTo: 2) == 0 ? .http10 : .http11
            let keepAlive = random.next(upTo: 2) == 0
            let isHead = random.next(upTo: 4) == 0
            let extra =
                random.next(upTo: 3) == 0
                ? nil
                : HTTPHeaders.Field(name: names[random.next(upTo: names.count)], value: HTTPResponseEncoderPropertyTests.value(&random))
            let plain = HTTPResponse(status: status, headers: headers, body: body)
            let prepared = HTTPResponse(status: status, prepared: PreparedFields(headers), body: body)
            let carried = HTTPResponse(status: status, preparedWithBody: PreparedFields(headers, body: body))
            #expect(prepared.prepared != nil)
            #expect(prepared.headers == headers)
            #expect(carried.prepared?.carriesBody == true)
            #expect(carried.headers == headers)
            #expect(carried.body == body && carried.bodyCount == body.count)
            let expected = Self.encoded(plain, version: version, keepAlive: keepAlive, isHead: isHead, extra: extra)
            let actual = Self.encoded(prepared, version: version, keepAlive: keepAlive, isHead: isHead, extra: extra)
            #expect(actual == expected)
            #expect(Self.encoded(carried, version: version, keepAlive: keepAlive, isHead: isHead, extra: extra) == expected)
            // And both as the encoder's rules read plainly.
            let framing: HTTPResponseEncoder.Framing = status.forbidsBody ? .none : .length(body.count)
            let head = HTTPResponseEncoderPropertyTests.reference(
                status: status, headers: headers, framing: framing, version: version, keepAlive: keepAlive,
                date: "Sun, 06 Nov 1994 08:49:37 GMT", extra: extra)
            #expect(actual == "kept" + head + (isHead || status.forbidsBody ? "" : String(decoding: body, as: UTF8.self)))
            if actual != expected { return }
        }
    }

    @Test func noFields_prepared_encodeAsNone() {
        let response = HTTPResponse(status: .ok, prepared: PreparedFields(HTTPHeaders()), body: Array("{}".utf8))
        #expect(
            Self.encoded(response, extra: HTTPHeaders.Field(name: "X-Request-Id", value: "r-1"))
                == "keptHTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Length: 2\r\nX-Request-Id: r-1\r\n\r\n{}")
    }

    @Test func changedFields_dropThePreparation_andGoOutAsChanged() {
        let original: HTTPHeaders = ["ETag": "\"1\"", "Content-Type": "application/json"]
        var set = HTTPResponse(status: .ok, prepared: PreparedFields(original), body: [])
        set.headers.set("ETag", "\"2\"")
        #expect(set.prepared == nil)
        #expect(Self.encoded(set).contains("ETag: \"2\"\r\n"))
        #expect(!Self.encoded(set).contains("\"1\""))

        var added = HTTPResponse(status: .ok, prepared: PreparedFields(original), body: [])
        added.headers.add("Vary", "Origin")
        #expect(added.prepared == nil)
        #expect(Self.encoded(added).hasSuffix("ETag: \"1\"\r\nVary: Origin\r\n\r\n"))

        var replaced = HTTPResponse(status: .ok, prepared: PreparedFields(original), body: [])
        replaced.headers = ["Content-Type": "text/plain"]
        #expect(replaced.prepared == nil)
        #expect(!Self.encoded(replaced).contains("ETag"))
        #expect(Self.encoded(replaced).contains("Content-Type: text/plain\r\n"))
    }

    @Test func changedStatusOrBody_keepThePreparation() {
        let fields = PreparedFields(["ETag": "\"1\"", "Content-Type": "application/json"])
        var response = HTTPResponse(status: .ok, prepared: fields, body: Array("{}".utf8))
        response.status = .notFound
        response.body = Array("[1]".utf8)
        #expect(response.prepared == fields)
        #expect(
            Self.encoded(response)
                == "keptHTTP/1.1 404 Not Found\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Type: application/json\r\n"
                + "Content-Length: 3\r\nETag: \"1\"\r\n\r\n[1]")
    }

    @Test func jsonAnswers_arePrepared_andCarryTheirContentType() {
        let response = HTTPResponse.json(.ok, Array("{}".utf8))
        #expect(response.prepared != nil)
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(Self.encoded(response).contains("\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 2\r\n"))
    }

    @Test func aCarriedBody_goesOutAfterTheHead_andChangingItOrTheFields_dropsThePreparation() {
        let fields: HTTPHeaders = ["ETag": "\"1\"", "Content-Type": "application/json"]
        let carried = HTTPResponse(status: .ok, preparedWithBody: PreparedFields(fields, body: Array("{}".utf8)))
        #expect(carried.body == Array("{}".utf8))
        #expect(
            Self.encoded(carried, extra: HTTPHeaders.Field(name: "X-Request-Id", value: "r-1"))
                == "keptHTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Type: application/json\r\n"
                + "Content-Length: 2\r\nETag: \"1\"\r\nX-Request-Id: r-1\r\n\r\n{}")
        #expect(Self.encoded(carried, isHead: true).hasSuffix("Content-Length: 2\r\nETag: \"1\"\r\n\r\n"))

        // A new body leaves the fields prepared; new fields leave the body carried.
        var newBody = carried
        newBody.body = Array("[1]".utf8)
        #expect(newBody.prepared == carried.prepared)
        #expect(newBody.headers == fields)
        #expect(Self.encoded(newBody).hasSuffix("Content-Length: 3\r\nETag: \"1\"\r\n\r\n[1]"))

        var appended = carried
        appended.body.append(UInt8(ascii: " "))
        #expect(appended.prepared == carried.prepared)
        #expect(carried.body == Array("{}".utf8))
        #expect(Self.encoded(appended).hasSuffix("Content-Length: 3\r\nETag: \"1\"\r\n\r\n{} "))

        var newField = carried
        newField.headers.add("Vary", "Origin")
        #expect(newField.prepared == nil)
        #expect(newField.body == Array("{}".utf8) && newField.bodyCount == 2)
        #expect(Self.encoded(newField).hasSuffix("ETag: \"1\"\r\nVary: Origin\r\n\r\n{}"))

        var notModified = carried
        notModified.status = .notModified
        #expect(
            Self.encoded(notModified) == "keptHTTP/1.1 304 Not Modified\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
                + "Content-Type: application/json\r\nETag: \"1\"\r\n\r\n")
    }

    /// Two preparations are equal when they are the same one, not when they hold the same fields.
    @Test func preparations_areEqualOnlyToThemselves() {
        let fields: HTTPHeaders = ["ETag": "\"1\""]
        let one = PreparedFields(fields, body: Array("{}".utf8))
        let copy = one
        #expect(copy == one)
        #expect(PreparedFields(fields, body: Array("{}".utf8)) != one)
        #expect(one.bound >= one.bodyCount + "ETag: \"1\"\r\n".utf8.count)
    }

    @Test func aPreparationCarryingABody_givenAnotherBody_sendsTheOneGiven() {
        let fields: HTTPHeaders = ["ETag": "\"1\""]
        let response = HTTPResponse(status: .ok, prepared: PreparedFields(fields, body: Array("{}".utf8)), body: Array("[]".utf8))
        #expect(response.body == Array("[]".utf8))
        #expect(response.headers == fields)
        #expect(response.prepared != nil)
        #expect(Self.encoded(response).hasSuffix("Content-Length: 2\r\nETag: \"1\"\r\n\r\n[]"))
        let empty = HTTPResponse(status: .ok, preparedWithBody: PreparedFields(fields))
        #expect(empty.bodyCount == 0 && empty.body.isEmpty)
        #expect(Self.encoded(empty).hasSuffix("Content-Length: 0\r\nETag: \"1\"\r\n\r\n"))
    }
}
