import TestRandom
import Testing

@testable import HTTP

/// Common field names come back as literals, and every name, listed or not, reads exactly as its bytes.
@Suite struct CommonFieldNamesTests {
    static let listed = [
        "Host", "Accept", "Origin", "Expect", "User-Agent", "Connection", "Content-Type", "X-App-Version", "Authorization",
        "If-None-Match", "Last-Event-ID", "Content-Length", "Accept-Encoding", "Accept-Language", "Transfer-Encoding"
    ]

    private static func name(_ text: String) -> String {
        Array(text.utf8).withUnsafeBufferPointer { CommonFieldNames.name($0) }
    }

    private static func known(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBufferPointer { CommonFieldNames.known($0) }
    }

    @Test func listedNames_inTheUsualAndLowerCase_areKnown() {
        for usual in Self.listed {
            #expect(Self.known(usual) == usual)
            #expect(Self.known(usual.lowercased()) == usual.lowercased())
        }
    }

    /// Another spelling of a listed name keeps its own case: the literal is only ever an exact match.
    @Test func otherCasesAndNearMisses_areBuiltFromTheirBytes() {
        for usual in Self.listed {
            for variant in [usual.uppercased(), String(usual.dropLast()) + "x", "x" + usual.dropFirst(), usual + "s"] {
                #expect(Self.known(variant) == nil, "\(variant)")
                #expect(Self.name(variant) == variant)
            }
        }
    }

    @Test func randomTokenNames_readExactlyAsTheirBytes() {
        var random = SplitMix(seed: 0xF1E1D)
        let alphabet = Array("HhoOsStT-aAcCeEpPxXnNgGlLrRuUvViIdDm".utf8)
        for _ in 0..<5_000 {
            let bytes = (0..<(1 + random.next(upTo: 18))).map { _ in alphabet[random.next(upTo: alphabet.count)] }
            let built = bytes.withUnsafeBufferPointer { CommonFieldNames.name($0) }
            #expect(Array(built.utf8) == bytes)
        }
    }

    /// A method reads exactly as its bytes, whether it is one of the literals or not: methods are case-sensitive
    /// (RFC 9110 §9.1), so `get` is not `GET`. Fed as a socket read is (a buffer pointer) and as an array.
    @Test(arguments: ["GET", "PUT", "POST", "HEAD", "PATCH", "DELETE", "OPTIONS", "get", "Post", "GETS", "PUTX", "PROPFIND", "M"])
    func methods_readExactlyAsTheirBytes(method: String) throws {
        let bytes = Array("\(method) /x HTTP/1.1\r\nHost: h\r\n\r\n".utf8)
        var fromPointer = HTTPRequestParser()
        bytes.withUnsafeBufferPointer { fromPointer.feed($0) }
        var fromArray = HTTPRequestParser()
        fromArray.feed(bytes)
        for var parser in [fromPointer, fromArray] {
            guard case .head(let head)? = try parser.next() else {
                Issue.record("no head for \(method)")
                continue
            }
            #expect(head.method == method)
            #expect(Array(head.method.utf8) == Array(method.utf8))
        }
    }
}
