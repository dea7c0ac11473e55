import HTTP
import TestRandom
import Testing

/// The encoder writes heads into memory it sized beforehand; these compare it with the plain reading of its rules
/// (fixed order, managed names written once by the encoder, CR and LF dropped from values) on random responses,
/// long values, every managed name in any case, and codes of any width, so no bound can be short.
@Suite struct HTTPResponseEncoderPropertyTests {
    static let names = [
        "Date", "DATE", "content-length", "Content-Type", "content-type", "Transfer-Encoding", "CONNECTION", "ETag",
        "X-Request-Id", "Cache-Control", "X", "Vary", "Access-Control-Allow-Origin", "Content-Typf", "Dat"
    ]

    /// What the encoder must produce, written as plainly as possible.
    static func reference(
        status: HTTPStatus, headers: HTTPHeaders, framing: HTTPResponseEncoder.Framing, version: HTTPVersion,
        keepAlive: Bool, date: String, extra: HTTPHeaders.Field?
    ) -> String {
        let managed = ["date", "content-length", "transfer-encoding", "connection", "content-type"]
        func clean(_ value: String) -> String { String(value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" }) }
        var text = "\(version.text) \(status.code) \(status.reason)\r\nDate: \(clean(date))\r\n"
        if let type = headers["Content-Type"] { text += "Content-Type: \(clean(type))\r\n" }
        switch framing {
        case .length(let length): text += "Content-Length: \(length)\r\n"
        case .chunked: text += "Transfer-Encoding: chunked\r\n"
        case .none: break
        }
        if !keepAlive {
            text += "Connection: close\r\n"
        } else if version == .http10 {
            text += "Connection: keep-alive\r\n"
        }
        for field in headers.fields where !managed.contains(field.name.lowercased()) {
            text += "\(field.name): \(clean(field.value))\r\n"
        }
        if let extra, !managed.contains(extra.name.lowercased()) { text += "\(extra.name): \(clean(extra.value))\r\n" }
        return text + "\r\n"
    }

    static func value(_ random: inout SplitMix) -> String {
        let pieces = ["a", "\r", "\n", "\r\n", "é", "\"x\"", " ", "0123456789abcdef", String(repeating: "v", count: 300)]
        return (0..<random.next(upTo: 12)).map { _ in pieces[random.next(upTo: pieces.count)] }.joined()
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func encodeHead_randomResponses_matchTheReference(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let codes = [200, 204, 304, 404, 999, 0, 7, -1, Int.max, Int.min]
        for _ in 0..<2_000 {
            let code = codes[random.next(upTo: codes.count)]
            let status = random.next(upTo: 2) == 0 ? HTTPStatus(code: code) : HTTPStatus(code: code, reason: Self.value(&random))
            var headers = HTTPHeaders()
            for _ in 0..<random.next(upTo: 8) { headers.add(Self.names[random.next(upTo: Self.names.count)], Self.value(&random)) }
            let lengths = [0, 9, 10, 123_456, Int.max, Int.min]
            let framings: [HTTPResponseEncoder.Framing] = [.length(lengths[random.next(upTo: lengths.count)]), .chunked, .none]
            let framing = framings[random.next(upTo: framings.count)]
            let version: HTTPVersion = random.next(upTo: 2) == 0 ? .http10 : .http11
            let keepAlive = random.next(upTo: 2) == 0
            let date = random.next(upTo: 4) == 0 ? Self.value(&random) : "Sun, 06 Nov 1994 08:49:37 GMT"
            let extra =
                random.next(upTo: 3) == 0
                ? nil : HTTPHeaders.Field(name: Self.names[random.next(upTo: Self.names.count)], value: Self.value(&random))
            var buffer: [UInt8] = Array("kept".utf8)
            HTTPResponseEncoder.encodeHead(
                status: status, headers: headers, framing: framing, version: version, keepAlive: keepAlive, date: date,
                extra: extra, into: &buffer)
            let expected = Self.reference(
                status: status, headers: headers, framing: framing, version: version, keepAlive: keepAlive, date: date,
                extra: extra)
            #expect(String(decoding: buffer, as: UTF8.self) == "kept" + expected)
            if String(decoding: buffer, as: UTF8.self) != "kept" + expected { return }
        }
    }
}
