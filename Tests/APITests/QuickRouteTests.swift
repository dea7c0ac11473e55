import HTTP
import Rules
import Synchronization
import TestRandom
import Testing

@testable import API
@testable import Engine
@testable import HTTPServer

/// The route tried before the others (`QuickRoute`): its own one-pass match of the path, and a read answered through
/// it answers exactly as the general way does.
@Suite struct QuickRouteTests {
    static func segments(_ pattern: String) -> [Router.Segment] {
        pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            part.hasPrefix("{") ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
        }
    }

    static let flagRead = QuickRoute(route: 0, method: "GET", segments: segments("/v1/users/{user}/flags/{key}")) { _, _, _ in }!

    func parameters(_ path: String) -> [String]? {
        var path = path
        return path.withUTF8 { bytes in Self.flagRead.parameters(in: bytes).map { [$0.0, $0.1] } }
    }

    @Test func parameters_matchThePatternAndDecodeAsTheRouterDoes() {
        #expect(parameters("/v1/users/u1/flags/promo-banner") == ["u1", "promo-banner"])
        #expect(parameters("/v1/users/a%2Fb%20c/flags/k+1") == ["a/b c", "k+1"])
        #expect(parameters("/v1/users/\u{20}/flags/k") == [" ", "k"])
        #expect(parameters("/v1/users/u+1/flags/k%2Bx") == ["u+1", "k+x"])
        #expect(parameters("/v1/users/%C3%A9/flags/\u{E9}") == ["\u{E9}", "\u{E9}"])
        let long = String(repeating: "x", count: 4096)
        #expect(parameters("/v1/users/\(long)/flags/\(long)") == [long, long])
    }

    @Test func parameters_refuseEveryOtherShape() {
        for path in [
            "", "/", "v1/users/u1/flags/k", "/v1/users/u1/flags/k/", "/v1/users/u1/flags/k/display", "/v1/users//flags/k",
            "/v1/users/u1/flags/", "/v1/users/u1/flags", "/v1/users/u1", "/v1/users/u1/flag/k", "/v1/users/u1/flagsx/k",
            "/v1/users/u1/xflags/k", "/v1/user/u1/flags/k", "/v2/users/u1/flags/k", "//v1/users/u1/flags/k",
            "/v1/users/u1//flags/k", "/V1/users/u1/flags/k"
        ] {
            #expect(parameters(path) == nil, "\(path)")
        }
    }

    @Test func parameters_followEveryPatternShape() {
        func parameters(_ pattern: String, _ path: String) -> [String]? {
            let quick = QuickRoute(route: 0, method: "GET", segments: Self.segments(pattern)) { _, _, _ in }!
            var path = path
            return path.withUTF8 { bytes in quick.parameters(in: bytes).map { [$0.0, $0.1] } }
        }
        #expect(parameters("/{a}/{b}", "/x/y") == ["x", "y"])
        #expect(parameters("/{a}/{b}", "/x/y/") == nil)
        #expect(parameters("/{a}/{b}", "//y") == nil)
        #expect(parameters("/{a}/{b}", "/x") == nil)
        #expect(parameters("/v1/{a}/x/{b}/display", "/v1/p/x/q/display") == ["p", "q"])
        #expect(parameters("/v1/{a}/x/{b}/display", "/v1/p/x/q/displa") == nil)
        #expect(parameters("/v1/{a}/x/{b}/display", "/v1/p/x/q/displayed") == nil)
        #expect(parameters("/v1/{a}/x/{b}/display", "/v1/p/x/q") == nil)
    }

    /// What the general way makes of a path for one pattern: the route table's match, then each parameter decoded.
    static func generalParameters(_ segments: [Router.Segment], _ path: UnsafeBufferPointer<UInt8>) -> [String]? {
        var table = RouteTable()
        table.add(segments)
        var starts = [Int](repeating: 0, count: path.count + 1)
        var ends = [Int](repeating: 0, count: path.count + 1)
        let count = starts.withUnsafeMutableBufferPointer { starts in
            ends.withUnsafeMutableBufferPointer { ends in Router.segmentBounds(path, starts: starts, ends: ends) }
        }
        guard table.candidates(segmentCount: count) == [0] else { return nil }
        let matched = starts.withUnsafeBufferPointer { starts in
            ends.withUnsafeBufferPointer { ends in
                table.matches(0, path, starts: UnsafeBufferPointer(rebasing: starts[..<count]), ends: UnsafeBufferPointer(rebasing: ends[..<count]))
            }
        }
        guard matched else { return nil }
        var values: [String] = []
        for position in table.parameterPositions(of: 0) {
            guard let value = PercentDecoding.decode(UnsafeBufferPointer(rebasing: path[starts[position]..<ends[position]])) else { return nil }
            values.append(value)
        }
        return values
    }

    /// Differential: random paths built from the patterns' own pieces, slashes, escapes (good and bad) and stray
    /// bytes, for patterns of every shape; the quick match and the general one agree on every path.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func parameters_agreeWithTheGeneralMatch_onRandomPaths(seed: UInt64) {
        var random = SplitMix(seed: seed)
        let patterns = ["/v1/users/{user}/flags/{key}", "/v1/users/{user}/events/{event}", "/{a}/{b}", "/x/{a}/{b}/y", "/{a}/x/{b}"]
        let pieces = ["/", "v1", "users", "flags", "events", "x", "y", "u1", "%20", "%2F", "%zz", "%", "%C3%A9", "+", "a", "", "//", "?"]
        var agreed = 0
        for pattern in patterns {
            let segments = Self.segments(pattern)
            let quick = QuickRoute(route: 0, method: "GET", segments: segments) { _, _, _ in }!
            for _ in 0..<3_000 {
                var path = ""
                for _ in 0..<random.next(upTo: 12) { path += pieces[random.next(upTo: pieces.count)] }
                if random.next(upTo: 3) == 0 {
                    // Most matching paths come from filling the pattern in.
                    path = pattern.replacingOccurrences(of: "{user}", with: pieces[random.next(upTo: pieces.count)])
                        .replacingOccurrences(of: "{key}", with: pieces[random.next(upTo: pieces.count)])
                        .replacingOccurrences(of: "{event}", with: pieces[random.next(upTo: pieces.count)])
                        .replacingOccurrences(of: "{a}", with: pieces[random.next(upTo: pieces.count)])
                        .replacingOccurrences(of: "{b}", with: pieces[random.next(upTo: pieces.count)])
                }
                let (quickValues, generalValues) = path.utf8CString.withUnsafeBufferPointer { bytes in
                    bytes.withMemoryRebound(to: UInt8.self) { bytes in
                        let path = UnsafeBufferPointer(rebasing: bytes.dropLast())
                        return (quick.parameters(in: path).map { [$0.0, $0.1] }, Self.generalParameters(segments, path))
                    }
                }
                #expect(quickValues == generalValues, "\(pattern) \(path)")
                if quickValues != nil { agreed += 1 }
            }
        }
        // The draw reaches matches, not only refusals.
        #expect(agreed > 1_000)
    }

    @Test func parameters_refuseMalformedPercentEscapes_leavingTheRouterTo400() {
        #expect(parameters("/v1/users/%zz/flags/k") == nil)
        #expect(parameters("/v1/users/u1/flags/k%") == nil)
        #expect(parameters("/v1/users/%FF/flags/k") == nil)
    }

    @Test func init_needsTwoParameters() {
        #expect(QuickRoute(route: 0, method: "GET", segments: Self.segments("/v1/users/{user}")) { _, _, _ in } == nil)
        #expect(QuickRoute(route: 0, method: "GET", segments: Self.segments("/v1/{a}/{b}/{c}")) { _, _, _ in } == nil)
    }

    @Test func overlaps_whenSomePathMatchesBoth() {
        let flag = Self.segments("/v1/users/{user}/flags/{key}")
        #expect(QuickRoute.overlaps(Self.segments("/v1/users/{user}/flags/display"), flag))
        #expect(QuickRoute.overlaps(Self.segments("/{a}/{b}/{c}/{d}/{e}"), flag))
        #expect(QuickRoute.overlaps(Self.segments("/v1/users/u1/flags/k"), flag))
        #expect(!QuickRoute.overlaps(Self.segments("/v1/users/{user}/events/{event}"), flag))
        #expect(!QuickRoute.overlaps(Self.segments("/v1/users/{user}/flags"), flag))
        #expect(!QuickRoute.overlaps(Self.segments("/v1/users/{user}/flags/{key}/display"), flag))
    }

    func route(_ router: Router, _ method: String, _ target: String) -> String {
        let captured = Mutex<HTTPResponse?>(nil)
        let request = Request(head: HTTPRequestHead(method: method, target: target), body: [], id: "t")
        router.respond(to: request, sink: .capturing { response in captured.withLock { $0 = response } })
        let response = captured.withLock { $0 }!
        return "\(response.status.code) " + String(decoding: response.body, as: UTF8.self)
    }

    var router: Router {
        var router = Router()
        router.add("GET", "/v1/users/{user}", sync: { request throws(APIError) in .json(.ok, "user " + request.parameter("user")) })
        router.add(
            "GET", "/v1/users/{user}/flags/{key}",
            sync: { request throws(APIError) in
                .json(.ok, "general \(request.parameter("user"))|\(request.parameter("key"))")
            })
        router.answerFirst(
            "GET", "/v1/users/{user}/flags/{key}", sync: { _, parameters throws(APIError) in .json(.ok, "quick \(parameters.0)|\(parameters.1)") })
        router.add("POST", "/v1/users/{user}/flags/{key}", sync: { _ throws(APIError) in .json(.ok, "post") })
        router.add("POST", "/v1/users/{user}/events/{event}", sync: { _ throws(APIError) in .json(.ok, "general event") })
        router.answerFirst("POST", "/v1/users/{user}/events/{event}") { _, parameters, sink in
            sink.send(.json(.ok, "quick event \(parameters.0)|\(parameters.1)"))
        }
        return router
    }

    @Test func router_answersTheQuickRouteFirst_andEverythingElseTheGeneralWay() {
        #expect(route(router, "GET", "/v1/users/a%20b/flags/k") == "200 quick a b|k")
        // A query, HEAD, another method, another path: the general way.
        #expect(route(router, "GET", "/v1/users/u1/flags/k?explain=1") == "200 general u1|k")
        #expect(route(router, "GET", "/v1/users/u1/flags/k?") == "200 general u1|k")
        #expect(route(router, "HEAD", "/v1/users/u1/flags/k").hasPrefix("200 general"))
        #expect(route(router, "POST", "/v1/users/u1/flags/k") == "200 post")
        #expect(route(router, "POST", "/v1/users/u1/events/e") == "200 quick event u1|e")
        #expect(route(router, "POST", "/v1/users/u1/events/e?x") == "200 general event")
        #expect(route(router, "GET", "/v1/users/u1/events/e").hasPrefix("405 "))
        #expect(route(router, "GET", "/v1/users/u1") == "200 user u1")
        #expect(route(router, "GET", "/v1/users/%zz/flags/k").hasPrefix("400 "))
        #expect(route(router, "GET", "/v1/users/u1/flags/k/x").hasPrefix("404 "))
    }

    @Test func router_quickRoute_isAuthorizedAndCountedAsTheRoute() {
        let metrics = Metrics()
        var router = router
        router.metrics = metrics
        router.authorize = { request, _ in request.header(.authorization) == nil ? APIError(.unauthorized, code: "unauthorized", message: "no") : nil
        }
        #expect(route(router, "GET", "/v1/users/u1/flags/k").hasPrefix("401 "))
        let captured = Mutex<HTTPResponse?>(nil)
        let request = Request(
            head: HTTPRequestHead(method: "GET", target: "/v1/users/u1/flags/k", headers: ["Authorization": "Bearer x"]), body: [], id: "t")
        router.respond(to: request, sink: .capturing { response in captured.withLock { $0 = response } })
        #expect(captured.withLock { $0 }.map { String(decoding: $0.body, as: UTF8.self) } == "quick u1|k")
        let page = metrics.render(gauges: [])
        #expect(page.contains(#"specd_http_requests_total{route="/v1/users/{user}/flags/{key}",method="GET",status="200"} 1"#))
        #expect(page.contains(#"specd_http_requests_total{route="/v1/users/{user}/flags/{key}",method="GET",status="401"} 1"#))
    }

    @Test func router_pathsCORSCovers_goTheGeneralWay_withTheirHeaders() {
        var router = router
        router.cors = CORSPolicy(origins: .listed(["https://app.example"]), pathPrefixes: ["/v1/"])
        let captured = Mutex<HTTPResponse?>(nil)
        let request = Request(
            head: HTTPRequestHead(method: "GET", target: "/v1/users/u1/flags/k", headers: ["Origin": "https://app.example"]), body: [], id: "t")
        router.respond(to: request, sink: .capturing { response in captured.withLock { $0 = response } })
        let response = captured.withLock { $0 }!
        #expect(String(decoding: response.body, as: UTF8.self) == "general u1|k")
        #expect(response.headers["Access-Control-Allow-Origin"] == "https://app.example")
    }
}

/// A flag read the quick route answers and the same read the general way (a query it ignores sends it there) give
/// the same status, body and validators, for every kind of answer: computed, kept, revalidated, refused.
@Suite(.serialized) struct QuickFlagReadTests {
    @Test func quickAndGeneralReads_answerAlike() throws {
        let api = try APIHarness()
        defer { api.stop() }
        _ = try api.call("POST", "/v1/users/u1/events/appStarted")
        let etag = try api.call("GET", "/v1/users/u1/flags/promo-banner", headers: ["X-App-Version": "1.2"]).header("ETag") ?? ""
        let cases: [(path: String, headers: [String: String])] = [
            ("/v1/users/u1/flags/promo-banner", [:]),
            ("/v1/users/u1/flags/promo-banner", ["X-App-Version": "1.2"]),
            ("/v1/users/u1/flags/promo-banner", ["X-App-Version": "1.2", "If-None-Match": etag]),
            ("/v1/users/u1/flags/promo-banner", ["X-App-Version": "not a version"]),
            ("/v1/users/a%20b/flags/promo-banner", [:]),
            ("/v1/users/never-seen/flags/promo-banner", [:]),
            ("/v1/users/u1/flags/no-such-flag", [:]),
            ("/v1/users/u1/flags/no-such-flag", ["X-App-Version": "bad"]),
            ("/v1/users/%01/flags/promo-banner", [:]),
            ("/v1/users/\(String(repeating: "x", count: 257))/flags/promo-banner", [:])
        ]
        for (path, headers) in cases {
            // Twice each way: the first read may compute the answer, the second finds it kept.
            for _ in 0..<2 {
                let quick = try api.call("GET", path, headers: headers)
                let general = try api.call("GET", path + "?unused=1", headers: headers)
                #expect(quick.status == general.status, "\(path) \(headers)")
                #expect(quick.text == general.text, "\(path) \(headers)")
                // Every header but the two that differ per response.
                func fields(_ reply: APIHarness.Reply) -> [String] {
                    reply.headers.filter { !["date", "x-request-id"].contains($0.0.lowercased()) }.map { "\($0.0.lowercased()): \($0.1)" }.sorted()
                }
                #expect(fields(quick) == fields(general), "\(path) \(headers)")
            }
        }
        #expect(try api.call("GET", "/v1/users/u1/flags/promo-banner", headers: ["If-None-Match": etag, "X-App-Version": "1.2"]).status == 304)
        #expect(try api.call("GET", "/v1/users/%01/flags/promo-banner").errorField == "user")
        // Each read counted once, by the route's own series, whichever way it went.
        let page = api.engine.metrics.render(gauges: [])
        let series = #"specd_http_requests_total{route="/v1/users/{user}/flags/{key}",method="GET",status="200"} "#
        let counted = page.split(separator: "\n").first { $0.hasPrefix(series) }.map { Int($0.dropFirst(series.count)) }
        #expect(counted == 1 + 4 * 4)
    }

    /// The user id is checked only where the answer cache cannot answer; whatever else is wrong with the read, a bad
    /// id is still the error given, as when it was checked first.
    @Test func aBadUserID_isTheErrorGiven_whateverElseIsWrong() throws {
        let api = try APIHarness()
        defer { api.stop() }
        let overlong = String(repeating: "x", count: 257)
        let cases: [(path: String, headers: [String: String])] = [
            ("/v1/users/%01/flags/promo-banner", ["X-App-Version": "not a version"]),
            ("/v1/users/%01/flags/no-such-flag", [:]),
            ("/v1/users/%01/flags/no-such-flag", ["X-App-Version": "bad"]),
            ("/v1/users/%01/flags/promo-banner?at=yesterday", [:]),
            ("/v1/users/\(overlong)/flags/promo-banner", ["If-None-Match": "\"x\""]),
            ("/v1/users/\(overlong)/flags/no-such-flag?at=2026-01-01T00:00:00Z", ["X-App-Version": "1.2"])
        ]
        for (path, headers) in cases {
            for _ in 0..<2 {
                let reply = try api.call("GET", path, headers: headers)
                #expect(reply.status == 400, "\(path) \(headers)")
                #expect(reply.errorField == "user", "\(path) \(headers)")
            }
        }
        // A valid id's kept answer is still found, and its neighbours' bad ids still refused.
        #expect(try api.call("GET", "/v1/users/u1/flags/promo-banner").status == 200)
        #expect(try api.call("GET", "/v1/users/u1/flags/promo-banner").status == 200)
        #expect(try api.call("GET", "/v1/users/u1%01/flags/promo-banner").errorField == "user")
    }

    @Test func quickAndGeneralDonations_answerAlike() throws {
        let api = try APIHarness()
        defer { api.stop() }
        // `{u}` is a user of its own for each case and each way, so both ways see the same history.
        let cases: [(path: String, json: String?, headers: [String: String])] = [
            ("/v1/users/{u}/events/appStarted", nil, [:]),
            ("/v1/users/{u}/events/appStarted", #"{"appVersion":"1.2"}"#, [:]),
            ("/v1/users/{u}/events/appStarted", nil, ["X-App-Version": "2.0"]),
            ("/v1/users/{u}/events/appStarted", #"{"nope":1}"#, [:]),
            ("/v1/users/{u}/events/appStarted", "[", [:]),
            ("/v1/users/{u}/events/appStarted", nil, ["X-App-Version": "bad"]),
            ("/v1/users/%01/events/appStarted", nil, [:]),
            ("/v1/users/{u}/events/%01", nil, [:]),
            ("/v1/users/a%20{u}/events/app%20opened", nil, [:])
        ]
        for (index, (path, json, headers)) in cases.enumerated() {
            for round in 0..<2 {
                let quick = try api.call("POST", path.replacingOccurrences(of: "{u}", with: "q\(index)"), json: json, headers: headers)
                let general = try api.call(
                    "POST", path.replacingOccurrences(of: "{u}", with: "g\(index)") + "?unused=1", json: json, headers: headers)
                #expect(quick.status == general.status, "\(path) \(round)")
                #expect(quick.errorCode == general.errorCode, "\(path) \(round)")
                #expect(quick.errorField == general.errorField, "\(path) \(round)")
                #expect(quick.body?["summary"] == general.body?["summary"], "\(path) \(round)")
                #expect(quick.body?["changes"] == general.body?["changes"], "\(path) \(round)")
                func fields(_ reply: APIHarness.Reply) -> [String] {
                    reply.headers.filter { !["date", "x-request-id", "content-length"].contains($0.0.lowercased()) }
                        .map { "\($0.0.lowercased()): \($0.1)" }.sorted()
                }
                #expect(fields(quick) == fields(general), "\(path) \(round)")
            }
        }
        #expect(try api.call("POST", "/v1/users/%01/events/appStarted").errorField == "user")
        #expect(try api.call("POST", "/v1/users/u1/events/%01").errorField == "event")
        #expect(api.database.context(of: "a q8")?.donations["app opened"]?.count == 2)
        #expect(api.database.context(of: "a g8")?.donations["app opened"]?.count == 2)
    }
}
