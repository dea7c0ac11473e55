import HTTP
import HTTPFixtures
import Testing

@Suite struct MalformedRequestTests {
    @Test func fixtures_coverAtLeastSixtyMalformedRequests() {
        #expect(MalformedRequests.all.count >= 60)
        #expect(Set(MalformedRequests.all.map(\.name)).count == MalformedRequests.all.count)
    }

    @Test(arguments: MalformedRequests.all.map(\.name))
    func parse_malformedRequest_failsWithItsOwnError(name: String) {
        let fixture = MalformedRequests.all.first { $0.name == name }!
        let whole = feed([fixture.bytes[...]])
        #expect(whole == .failed(fixture.error, completedBefore: 0))
        // Byte by byte must refuse the same way: the error may not depend on how bytes arrive.
        let dripped = feed(fixture.bytes.indices.map { fixture.bytes[$0...$0] })
        #expect(dripped == whole)
    }

    @Test func errors_mapToTheirStatusCodes() {
        #expect(HTTPParseError.requestLineTooLong.status.code == 414)
        #expect(HTTPParseError.headerSectionTooLarge.status.code == 431)
        #expect(HTTPParseError.tooManyHeaders.status.code == 431)
        #expect(HTTPParseError.bodyTooLarge.status.code == 413)
        #expect(HTTPParseError.unsupportedVersion.status.code == 505)
        #expect(HTTPParseError.unsupportedTransferCoding.status.code == 501)
        #expect(HTTPParseError.contentLengthWithTransferEncoding.status.code == 400)
        #expect(HTTPParseError.unsupportedExpectation.status.code == 417)
    }
}
