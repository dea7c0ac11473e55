import Testing

@testable import API

/// The patterns as numbers and bytes: which routes a path matches, in registration order.
@Suite struct RouteTableTests {
    /// Builds a table from patterns the way `Router.add` splits them.
    func table(_ patterns: [String]) -> RouteTable {
        var table = RouteTable()
        for pattern in patterns {
            table.add(
                pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
                    part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
                })
        }
        return table
    }

    /// Every route the path matches, in registration order.
    func matches(_ table: RouteTable, _ path: String) -> [Int] {
        let bytes = Array(path.utf8)
        let count = bytes.filter { $0 == UInt8(ascii: "/") }.count
        let (starts, ends) = RouterTests.segmentBounds(path)
        return bytes.withUnsafeBufferPointer { path in
            starts.withUnsafeBufferPointer { starts in
                ends.withUnsafeBufferPointer { ends in
                    table.candidates(segmentCount: count).filter { table.matches($0, path, starts: starts, ends: ends) }
                }
            }
        }
    }

    let patterns = [
        "/v1/users/{user}/flags/{key}", "/v1/users/{user}/events/{event}", "/v1/users/stream", "/v1/users/{user}",
        "/v1/rules", "/"
    ]

    @Test func aPath_matchesTheRoutesWhoseLiteralsItHasAndWhoseParametersAreNotEmpty() {
        let table = table(patterns)
        #expect(matches(table, "/v1/users/u1/flags/promo") == [0])
        #expect(matches(table, "/v1/users/u1/events/appStarted") == [1])
        #expect(matches(table, "/v1/users/u1/flag/promo") == [])
        // A literal one byte longer or shorter, and one that differs only in its first byte.
        #expect(matches(table, "/v1/users/u1/flagss/promo") == [])
        #expect(matches(table, "/v1/users/u1/glags/promo") == [])
        #expect(matches(table, "/v2/users/u1/flags/promo") == [])
        // An empty parameter segment matches no parameter.
        #expect(matches(table, "/v1/users//flags/promo") == [])
        #expect(matches(table, "/v1/users/u1/flags/") == [])
        #expect(matches(table, "/v1/rules") == [4])
        #expect(matches(table, "/") == [5])
        #expect(matches(table, "") == [])
    }

    /// Both a literal and a parameter pattern match `stream`: both are found, the first registered first (the router
    /// takes the first whose method fits).
    @Test func patternsThatBothMatch_comeInRegistrationOrder() {
        #expect(matches(table(patterns), "/v1/users/stream") == [2, 3])
        #expect(matches(table(Array(patterns.reversed())), "/v1/users/stream") == [2, 3])
    }

    /// A path longer than every pattern is no candidate of any.
    @Test func aPathWithMoreSegmentsThanAnyPattern_hasNoCandidates() {
        let table = table(patterns)
        #expect(table.candidates(segmentCount: 9).isEmpty)
        #expect(matches(table, "/v1/users/u1/flags/promo/display/x/y") == [])
    }

    @Test func parameterPositions_areEachRoutesOwnInPatternOrder() {
        let table = table(patterns)
        #expect(Array(table.parameterPositions(of: 0)) == [2, 4])
        #expect(Array(table.parameterPositions(of: 2)) == [])
        #expect(Array(table.parameterPositions(of: 3)) == [2])
    }
}
