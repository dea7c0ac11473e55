import Foundation
import HTTP
import Testing

@testable import HTTPServer

/// The `Date` line is made once a second, by the event loop's reading of the monotonic clock, and names the wall
/// clock's second.
@Suite struct DateCacheTests {
    private static func text(_ line: DateLine) -> String { String(decoding: line.bytes, as: UTF8.self) }

    private static func lineNow() -> String { "Date: " + HTTPDate.format(unixSeconds: Int(Date().timeIntervalSince1970)) + "\r\n" }

    @Test func aLine_namesTheWallClocksSecond() {
        let before = Self.lineNow()
        let line = Self.text(DateCache().line(at: .now))
        let after = Self.lineNow()
        #expect(line == before || line == after, "\(line) not in [\(before), \(after)]")
    }

    @Test func withinItsSecond_theLineIsKept_andPastIt_madeAgain() {
        let cache = DateCache()
        let start = MonotonicInstant.now
        let first = cache.line(at: start)
        // Kept for any reading before its second ends, however the wall clock moved meanwhile.
        Thread.sleep(forTimeInterval: 0.05)
        #expect(Self.text(cache.line(at: start)) == Self.text(first))
        // A reading past the end of that second makes the line again, from the wall clock.
        Thread.sleep(forTimeInterval: 1.1)
        let before = Self.lineNow()
        let later = Self.text(cache.line(at: .now))
        let after = Self.lineNow()
        #expect(later != Self.text(first))
        #expect(later == before || later == after, "\(later) not in [\(before), \(after)]")
    }

    @Test(arguments: [EventLoopKind.epoll, .dispatch])
    func responsesOnOneConnection_carryTheSecondTheyWereAnsweredIn(kind: EventLoopKind) throws {
        let server = try TestServer(kind: kind)
        defer { server.stop() }
        let client = try server.client()
        var dates: [String] = []
        for _ in 0..<2 {
            let before = HTTPDate.format(unixSeconds: Int(Date().timeIntervalSince1970))
            try client.send("GET /x HTTP/1.1\r\nHost: t\r\n\r\n")
            let response = try client.readResponse()
            let after = HTTPDate.format(unixSeconds: Int(Date().timeIntervalSince1970))
            let date = response.header("Date") ?? ""
            #expect(date == before || date == after, "Date \(date) not in [\(before), \(after)]")
            dates.append(date)
            Thread.sleep(forTimeInterval: 1.2)
        }
        #expect(dates[0] != dates[1])
    }

    /// The text, for senders without a loop's reading, is the line's date: one cache makes both.
    @Test func theText_namesTheWallClocksSecond_asTheLineDoes() {
        let cache = DateCache()
        let before = HTTPDate.format(unixSeconds: Int(Date().timeIntervalSince1970))
        let text = cache.current()
        let line = Self.text(cache.line(at: .now))
        let after = HTTPDate.format(unixSeconds: Int(Date().timeIntervalSince1970))
        #expect(text == before || text == after, "\(text) not in [\(before), \(after)]")
        #expect(line == "Date: " + text + "\r\n" || line == "Date: " + after + "\r\n")
    }

    /// What a connection keeps: the line and the end of its second, which is past `now` and at most a second on.
    @Test func aLinesEnd_isTheEndOfItsSecond() {
        let cache = DateCache()
        let now = MonotonicInstant.now
        let (line, end) = cache.lineAndEnd(at: now)
        #expect(Self.text(line) == Self.text(cache.line(at: now)))
        #expect(end > now)
        #expect(end.nanoseconds - now.nanoseconds <= 1_000_000_001)
        // Asked again before that end, the same line and end; past it, a later end.
        #expect(cache.lineAndEnd(at: now).end == end)
        #expect(cache.lineAndEnd(at: end).end > end)
    }

    /// Held inline up to its capacity, in an array past it: the bytes are the same either way.
    @Test func aLine_pastItsInlineCapacity_keepsEveryByte() {
        let short = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(Self.text(DateLine(short)) == "Date: \(short)\r\n")
        for length in [DateLine.capacity - 9, DateLine.capacity - 8, DateLine.capacity - 7, 200] {
            let date = String(repeating: "x", count: length)
            let line = DateLine(date)
            #expect(line.count == length + 8)
            #expect(Self.text(line) == "Date: \(date)\r\n")
        }
    }

    @Test func aDate_withLineBreaks_losesThemInItsLine() {
        #expect(Self.text(DateLine("Sun,\r\n 06 Nov\n")) == "Date: Sun, 06 Nov\r\n")
        #expect(Self.text(DateLine("")) == "Date: \r\n")
    }
}
