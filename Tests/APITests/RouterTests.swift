import HTTP
import Synchronization
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer
@testable import specd

@Suite struct RouterTests {
    func route(_ router: Router, _ method: String, _ target: String) -> HTTPResponse {
        let captured = Mutex<HTTPResponse?>(nil)
        let request = Request(head: HTTPRequestHead(method: method, target: target), body: [], id: "t")
        router.respond(to: request, sink: .capturing { response in captured.withLock { $0 = response } })
        return captured.withLock { $0 }!
    }

    var router: Router {
        var router = Router()
        router.add(
            "GET", "/v1/users/{user}/flags/{key}",
            sync: { request throws(APIError) in
                .json(.ok, "\(request.parameter("user"))|\(request.parameter("key"))")
            })
        router.add("DELETE", "/v1/users/{user}", sync: { _ throws(APIError) in HTTPResponse(status: .noContent) })
        router.add("GET", "/v1/users/{user}", sync: { request throws(APIError) in .json(.ok, request.parameter("user")) })
        router.add("POST", "/v1/fail", sync: { _ throws(APIError) in throw APIError.invalidField("ops[0].by", "ops[0].by must be an integer") })
        return router
    }

    @Test func route_matchesAndPercentDecodesParameters() {
        let response = route(router, "GET", "/v1/users/a%2Fb%20c/flags/promo-banner?explain=1")
        #expect(String(decoding: response.body, as: UTF8.self) == "a/b c|promo-banner")
    }

    private func requests(_ metrics: Metrics, _ route: String, _ method: String) -> Int? {
        let prefix = #"specd_http_requests_total{route="\#(route)",method="\#(method)",status="200"} "#
        return metrics.render(gauges: []).split(separator: "\n").first { $0.hasPrefix(prefix) }.map { Int($0.dropFirst(prefix.count))! }
    }

    /// Metrics set after the routes were added registers their series then; routes added later register their own;
    /// a copy made before counts nothing, and one given other metrics counts there.
    @Test func metricsSetAfterTheRoutes_countsThemAndLaterRoutes_byMethod() {
        let first = Metrics()
        let second = Metrics()
        let plain = router
        var counted = plain
        counted.metrics = first
        counted.add("GET", "/late", sync: { _ throws(APIError) in HTTPResponse(status: .ok) })
        _ = route(counted, "GET", "/v1/users/u1")
        _ = route(counted, "HEAD", "/v1/users/u1")
        _ = route(counted, "GET", "/late")
        _ = route(plain, "GET", "/v1/users/u1")
        #expect(requests(first, "/v1/users/{user}", "GET") == 1)
        #expect(requests(first, "/v1/users/{user}", "HEAD") == 1)
        #expect(requests(first, "/late", "GET") == 1)
        #expect(first.render(gauges: []).contains("specd_http_request_duration_seconds_count 3"))
        var moved = counted
        moved.metrics = second
        _ = route(moved, "GET", "/v1/users/u1")
        #expect(requests(second, "/v1/users/{user}", "GET") == 1)
        #expect(requests(first, "/v1/users/{user}", "GET") == 1)
    }

    @Test func route_headFallsBackToGet() {
        #expect(route(router, "HEAD", "/v1/users/u1").status == .ok)
    }

    @Test func route_unknownPath_is404WithErrorJSON() {
        let response = route(router, "GET", "/v2/nothing")
        #expect(response.status == .notFound)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""code":"not_found""#))
    }

    @Test func route_wrongMethod_is405WithAllow() {
        let response = route(router, "PUT", "/v1/users/u1")
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "DELETE, GET, HEAD")
    }

    @Test func route_emptyParameterOrExtraSegment_doesNotMatch() {
        #expect(route(router, "GET", "/v1/users//flags/x").status == .notFound)
        #expect(route(router, "GET", "/v1/users/u1/extra/x/y").status == .notFound)
    }

    /// Paths are matched on their bytes: a trailing or doubled slash is another path, an absolute-form target
    /// routes by its path, a literal compares case-sensitively, and `*` matches nothing.
    @Test(arguments: [
        ("/v1/users/u1", 200), ("/v1/users/u1/", 404), ("//v1/users/u1", 404), ("/v1/users/u1/flags/k/", 404),
        ("http://example.com/v1/users/u1?x=1", 200), ("/V1/users/u1", 404), ("/v1/users", 404), ("*", 404),
        ("/v1/users/u1/flags/k", 200), ("/v1/users/u%31", 200), ("http://example.com", 404), ("http://example.com?x=1", 404)
    ])
    func route_pathShape_decidesTheMatch(target: String, status: Int) {
        #expect(route(router, "GET", target).status.code == status)
    }

    /// The path is split once per request, for every route tried: one end per `/`, the last at the path's end,
    /// empty segments included (the routes then refuse them).
    @Test(arguments: [
        ("/", [1]), ("//", [1, 2]), ("/a", [2]), ("/a/", [2, 3]), ("/a//b", [2, 3, 5]), ("/v1/users/u1", [3, 9, 12]),
        ("http://h/a/bc", [6, 8, 10, 13]), ("*", [])
    ])
    func segmentEnds_areOnePerSlash_theLastAtThePathsEnd(path: String, expected: [Int]) {
        let bounds = Self.segmentBounds(path)
        #expect(bounds.ends == expected)
        // Each segment starts just past the slash before it.
        #expect(bounds.starts == zip(Array(path.utf8).indices, Array(path.utf8)).filter { $0.1 == UInt8(ascii: "/") }.map { $0.0 + 1 })
    }

    static func segmentBounds(_ path: String) -> (starts: [Int], ends: [Int]) {
        let bytes = Array(path.utf8)
        let count = bytes.filter { $0 == UInt8(ascii: "/") }.count
        var starts = [Int](repeating: -1, count: count)
        var ends = [Int](repeating: -1, count: count)
        bytes.withUnsafeBufferPointer { path in
            starts.withUnsafeMutableBufferPointer { starts in
                ends.withUnsafeMutableBufferPointer { #expect(Router.segmentBounds(path, starts: starts, ends: $0) == count) }
            }
        }
        return (starts, ends)
    }

    /// Bounds go into room for a fixed number of segments, in one pass; the count says how many the path has, so a
    /// longer path is bounded again in room of its size.
    @Test(arguments: [0, 1, 2, 3, 5])
    func segmentBounds_beyondTheRoom_areCountedButNotWritten(room: Int) {
        let path = Array("/a/bb//ccc/d".utf8)
        var starts = [Int](repeating: -1, count: room)
        var ends = [Int](repeating: -1, count: room)
        let count = path.withUnsafeBufferPointer { path in
            starts.withUnsafeMutableBufferPointer { starts in
                ends.withUnsafeMutableBufferPointer { Router.segmentBounds(path, starts: starts, ends: $0) }
            }
        }
        #expect(count == 5)
        let all = Self.segmentBounds("/a/bb//ccc/d")
        #expect(starts == Array(all.starts.prefix(room)))
        #expect(ends == Array(all.ends.prefix(room)))
    }

    /// Paths with more segments than the room for them in place (`Router.segmentRoom`) are still matched: the
    /// routes are refused (404) or, with a route of that length, found.
    @Test func route_pathWithMoreSegmentsThanTheRoom_isMatchedAsAnyOther() {
        var long = Router()
        let deep = "/" + (1...(Router.segmentRoom + 3)).map { "s\($0)" }.joined(separator: "/")
        long.add("GET", deep + "/{tail}", sync: { request throws(APIError) in .json(.ok, request.parameter("tail")) })
        let found = route(long, "GET", deep + "/t%21")
        #expect(found.status == .ok)
        #expect(String(decoding: found.body, as: UTF8.self) == "t!")
        #expect(route(long, "GET", deep + "/t/u").status.code == 404)
        #expect(route(long, "POST", deep + "/t").status.code == 405)
        #expect(route(router, "GET", String(repeating: "/x", count: 40)).status.code == 404)
    }

    @Test func route_malformedEscape_is400() {
        #expect(route(router, "GET", "/v1/users/%zz").status == .badRequest)
    }

    @Test func route_thrownAPIError_becomesErrorBodyNamingTheField() {
        let response = route(router, "POST", "/v1/fail")
        #expect(response.status == .badRequest)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"error":{"code":"invalid_field","message":"ops[0].by must be an integer","field":"ops[0].by","retryable":false}}"#)
    }
}

/// A route's metrics time its answer from when the request's head was read (`Request.received`, the event loop's
/// reading for that pass), not from when the router got to it.
@Suite struct RouterTimingTests {
    @Test func aRoutesDuration_runsFromWhenTheRequestWasReceived() throws {
        let metrics = Metrics()
        var router = Router()
        router.add("GET", "/x", sync: { _ throws(APIError) in HTTPResponse(status: .ok) })
        router.metrics = metrics
        let received = MonotonicInstant.now.advanced(byNanoseconds: -3_000_000_000)
        let request = Request(head: HTTPRequestHead(method: "GET", target: "/x"), body: [], requestID: RequestID("t"), received: received)
        router.respond(to: request, sink: .capturing { _ in })
        let prefix = "specd_http_request_duration_seconds_sum "
        let line = try #require(metrics.render(gauges: []).split(separator: "\n").first { $0.hasPrefix(prefix) })
        let seconds = try #require(Double(line.dropFirst(prefix.count)))
        #expect(seconds >= 3 && seconds < 60)
    }
}
