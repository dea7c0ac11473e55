import Engine
import HTTP
import HTTPServer
import Rules

/// Method + path-pattern routing. Patterns are literal segments and `{name}` parameters, matched against the raw
/// path; parameters are percent-decoded. A path that matches with another method answers 405 with `Allow`.
public struct Router: Responder {
    public typealias Handler = @Sendable (Request, ResponseSink) -> Void
    public typealias SyncHandler = @Sendable (Request) throws(APIError) -> HTTPResponse

    /// A literal keeps its bytes: the path is matched byte by byte (request targets are ASCII, the parser refuses
    /// anything else), never split into substrings.
    enum Segment: Sendable, Equatable {
        case literal([UInt8])
        case parameter(String)
    }

    /// A class of constants: the matched route is handed from the match to the handler with each request, and a
    /// struct of six fields was copied field by field through the runtime's generic tuple copy (some 650
    /// instructions a request with its destroy); a reference is one retain.
    final class Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Segment]
        /// The names of the pattern's `{name}` segments, in order.
        let parameterNames: [String]
        let scope: Scope?
        let handler: Handler
        /// What counts this route's responses in the metrics: its method's and, for a GET route, HEAD's (answered
        /// by it).
        let observers: (own: ResponseObserver, head: ResponseObserver?)?

        init(
            method: String, pattern: String, segments: [Segment], scope: Scope?, handler: @escaping Handler,
            observers: (own: ResponseObserver, head: ResponseObserver?)?
        ) {
            self.method = method
            self.pattern = pattern
            self.segments = segments
            parameterNames = segments.compactMap { segment in
                guard case .parameter(let name) = segment else { return nil }
                return name
            }
            self.scope = scope
            self.handler = handler
            self.observers = observers
        }

        /// The same route, counted by `observers`.
        func observed(by observers: (own: ResponseObserver, head: ResponseObserver?)?) -> Route {
            Route(method: method, pattern: pattern, segments: segments, scope: scope, handler: handler, observers: observers)
        }
    }

    private(set) var routes: [Route] = []
    /// The routes tried before the others are matched (`QuickRoute`), in the order they were made quick.
    private var quickRoutes: [QuickRoute] = []
    /// The same routes' patterns, for matching (`RouteTable`): a route's index is the same in both.
    private var patterns = RouteTable()
    /// Checks a request against the route's scope before the handler runs; `nil` lets it through. It must not read
    /// the route's parameters: the quick route (`answerQuickly`) does not set them.
    public var authorize: @Sendable (Request, Scope?) -> APIError? = { _, _ in nil }
    /// Counts every routed response by pattern, method and status, with its seconds from request to response. Each
    /// route's series are registered when the route is (or when this is set), so a request is counted by index.
    public var metrics: Metrics? {
        didSet { routes = routes.map { $0.observed(by: observers($0.method, $0.pattern)) } }
    }
    /// The CORS policy: its headers go on every answer to a path it covers, whoever makes it (handlers, refusals
    /// 401, 403 and 429, 404 and 405 alike), and it answers preflights before any auth. `nil`: no CORS at all.
    public var cors: CORSPolicy?

    public init() {}

    /// Every registered `(method, pattern, scope)`, for the OpenAPI completeness check and the auth matrix.
    public var table: [(method: String, pattern: String, scope: Scope?)] { routes.map { ($0.method, $0.pattern, $0.scope) } }

    public mutating func add(_ method: String, _ pattern: String, scope: Scope? = nil, _ handler: @escaping Handler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
        }
        patterns.add(segments)
        routes.append(
            Route(
                method: method, pattern: pattern, segments: segments, scope: scope, handler: handler,
                observers: observers(method, pattern)))
    }

    private func observers(_ method: String, _ pattern: String) -> (own: ResponseObserver, head: ResponseObserver?)? {
        guard let metrics else { return nil }
        func observer(_ series: Metrics.RequestSeries) -> ResponseObserver {
            ResponseObserver { status, seconds in metrics.observe(series, status: status, seconds: seconds) }
        }
        let head = method == "GET" ? observer(metrics.requestSeries(route: pattern, method: "HEAD")) : nil
        return (observer(metrics.requestSeries(route: pattern, method: method)), head)
    }

    /// Makes the route added for `method` and `pattern` a quick one (`QuickRoute`): a request of its method whose path
    /// matches its pattern is answered by `answer`, given the two parameters, before any other pattern is tried.
    /// `answer` must answer as the route's handler does. The route must have been added, its pattern must have two
    /// parameters, and no route added before it may match a path it matches (the first pattern that matches
    /// answers, and trying this one first must not change which).
    public mutating func answerFirst(
        _ method: String, _ pattern: String,
        _ answer: @escaping @Sendable (_ request: borrowing Request, _ parameters: (String, String), _ sink: ResponseSink) -> Void
    ) {
        guard let index = routes.firstIndex(where: { $0.method == method && $0.pattern == pattern }) else {
            preconditionFailure("no route \(method) \(pattern) to answer first")
        }
        let route = routes[index]
        let earlier = routes[..<index].contains { other in
            (other.method == route.method || (other.method == "GET" && route.method == "HEAD")) && QuickRoute.overlaps(other.segments, route.segments)
        }
        precondition(!earlier, "an earlier route may answer what \(route.method) \(route.pattern) matches")
        guard let made = QuickRoute(route: index, method: route.method, segments: route.segments, answer: answer) else {
            preconditionFailure("\(route.pattern) does not have two parameters")
        }
        quickRoutes.append(made)
    }

    /// `answerFirst` for a handler that answers at once; a thrown `APIError` becomes its error response.
    public mutating func answerFirst(
        _ method: String, _ pattern: String,
        sync answer: @escaping @Sendable (_ request: borrowing Request, _ parameters: (String, String)) throws(APIError) -> HTTPResponse
    ) {
        answerFirst(method, pattern) { request, parameters, sink in
            do throws(APIError) {
                sink.send(try answer(request, parameters))
            } catch {
                sink.send(error.response)
            }
        }
    }

    /// Registers a handler that answers at once; a thrown `APIError` becomes its error response.
    public mutating func add(_ method: String, _ pattern: String, scope: Scope? = nil, sync handler: @escaping SyncHandler) {
        let handler: Handler = { request, sink in
            do throws(APIError) {
                sink.send(try handler(request))
            } catch {
                sink.send(error.response)
            }
        }
        add(method, pattern, scope: scope, handler)
    }

    /// Takes the request by value: the route's parameters are set on it in place, where setting them on a copy
    /// cost a copy and a destroy of every field per request.
    public func respond(to request: consuming Request, sink given: consuming ResponseSink) {
        var sink = consume given
        if !quickRoutes.isEmpty, answerQuickly(request, sink: &sink) { return }
        // The path's bytes read in the target in place (`HTTPRequestHead.pathRange`), no string made.
        // Decoded straight into a local the request then takes: returned along with the route, the parameters
        // were moved through two returns (copies of the whole value).
        var parameters = RouteParameters()
        // The sink comes back through `inout` and the route alone as the optional: an optional pair of route and
        // sink was destroyed through the runtime's generic witnesses, some 170 instructions a request.
        let pathRange = request.head.pathRange
        let matched = request.head.withTargetBytes { bytes in
            guard let range = pathRange else {
                return ("/" as StaticString).withUTF8Buffer { match(request, path: $0, parameters: &parameters, sink: &sink) }
            }
            return match(request, path: UnsafeBufferPointer(rebasing: bytes[range]), parameters: &parameters, sink: &sink)
        }
        guard let route = matched else { return }
        var routed = consume request
        routed.parameters = consume parameters
        // Moved, not copied: a copy retained the sink's receiver, released again when `sink` ended.
        var target = consume sink
        if let observers = route.observers {
            // The request's method is the route's, or HEAD answered by a GET route. Timed from when the head was
            // read, the loop's reading for that pass: a clock read fewer per request, and the time the request
            // waited in its pass counted too.
            target = target.observed(by: routed.method == route.method ? observers.own : observers.head ?? observers.own, since: routed.received)
        }
        if let refusal = authorize(routed, route.scope) {
            target.send(refusal.response)
            return
        }
        route.handler(routed, target)
    }

    /// Answers the request by the quick route its method and path match (`QuickRoute`), through the route's metrics
    /// and after its authorization, as the general way would; `false` leaves it to the general way: no quick route's
    /// method and path, a parameter that does not decode (a 400 there), a query (`?at=`, `?explain=`) or a path CORS
    /// covers (its headers depend on the request's origin, set on the way out by a sink of their own).
    private func answerQuickly(_ request: borrowing Request, sink: inout ResponseSink) -> Bool {
        guard request.head.query == nil, let pathRange = request.head.pathRange else { return false }
        let method = request.method
        // A quick route is a reference, and read by index: a struct copied out of the array (in the loop, or
        // returned) was some 350 instructions of retains and releases of its arrays and closure. Each is lent
        // unretained: the router holds its quick routes and routes for as long as it answers, and a retain and a
        // release around every use (two atomic operations each) were most of what this way still cost.
        let found = request.head.withTargetBytes { bytes -> (index: Int, parameters: (String, String))? in
            let path = UnsafeBufferPointer(rebasing: bytes[pathRange])
            for index in quickRoutes.indices {
                let parameters = Unmanaged.passUnretained(quickRoutes[index])._withUnsafeGuaranteedRef { quick in
                    quick.method == method ? quick.parameters(in: path) : nil
                }
                guard let parameters else { continue }
                if let cors, cors.covers(path) { return nil }
                return (index, parameters)
            }
            return nil
        }
        guard let found else { return false }
        let quick = Unmanaged.passUnretained(quickRoutes[found.index])
        let route = Unmanaged.passUnretained(routes[quick._withUnsafeGuaranteedRef { $0.route }])
        // Observed in place: the sink is the router's own (`respond` takes it), so no copy of it is made.
        let scope = route._withUnsafeGuaranteedRef { route in
            if let own = route.observers?.own { sink.observe(by: own, since: request.received) }
            return route.scope
        }
        // Authorized without the route's parameters set on the request (setting them is the cost this way saves):
        // `authorize` reads the scope, the headers, the peer and the query, never a parameter.
        if let refusal = authorize(request, scope) {
            sink.send(refusal.response)
        } else {
            quick._withUnsafeGuaranteedRef { $0.answer(request, found.parameters, sink) }
        }
        return true
    }

    /// The route that answers the request, with its decoded parameters and the sink its answer goes through (`sink`,
    /// CORS headers added); `nil` when the router answered itself: a preflight, 400, 404 or 405.
    private func match(
        _ request: borrowing Request, path: UnsafeBufferPointer<UInt8>, parameters: inout RouteParameters, sink: inout ResponseSink
    ) -> Route? {
        // Segments in the path: one per `/` (what precedes the first is not one). Routes of another length are
        // skipped without a look at their literals. The slashes are found a word at a time (`ByteSearch`): walked
        // byte by byte, they were some 800 instructions of a 40-byte path. Where each segment starts and ends is
        // found once for every route tried (each used to walk the path again), in one pass into room for
        // `segmentRoom` segments: counting the slashes first, to size the room, was another pass (some 175
        // instructions a request). A path with more segments than that, which no route has, is bounded again in
        // room of its size, for the 404 or 405 it gets.
        let room = Self.segmentRoom
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: room * 2) { bounds in
            let starts = UnsafeMutableBufferPointer(rebasing: bounds[..<room])
            let ends = UnsafeMutableBufferPointer(rebasing: bounds[room...])
            let segmentCount = Self.segmentBounds(path, starts: starts, ends: ends)
            guard segmentCount <= room else { return match(request, path: path, segmentCount: segmentCount, parameters: &parameters, sink: &sink) }
            return match(
                request, path: path, starts: UnsafeBufferPointer(rebasing: starts[..<segmentCount]),
                ends: UnsafeBufferPointer(rebasing: ends[..<segmentCount]), parameters: &parameters, sink: &sink)
        }
    }

    /// Segments bounded in place before the room for them must grow: more than any route's pattern has.
    static let segmentRoom = 16

    private func match(
        _ request: borrowing Request, path: UnsafeBufferPointer<UInt8>, segmentCount: Int, parameters: inout RouteParameters,
        sink: inout ResponseSink
    ) -> Route? {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: segmentCount * 2) { bounds in
            let starts = UnsafeMutableBufferPointer(rebasing: bounds[..<segmentCount])
            let ends = UnsafeMutableBufferPointer(rebasing: bounds[segmentCount...])
            _ = Self.segmentBounds(path, starts: starts, ends: ends)
            return match(
                request, path: path, starts: UnsafeBufferPointer(starts), ends: UnsafeBufferPointer(ends), parameters: &parameters,
                sink: &sink)
        }
    }

    private func match(
        _ request: borrowing Request, path: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<Int>,
        ends: UnsafeBufferPointer<Int>, parameters: inout RouteParameters, sink: inout ResponseSink
    ) -> Route? {
        // Whether the CORS policy covers this path, asked in place: the policy copied out as an optional went through
        // the runtime's generic witnesses on every request, with or without a policy.
        let covered = cors?.covers(path) ?? false
        let origin = covered ? request.header(.origin) : nil
        // A preflight carries no credentials (the Fetch standard): it is answered here, before auth and rate limits,
        // with the methods this path's routes answer.
        if covered, let policy = cors, request.method == "OPTIONS", request.headers.contains("Access-Control-Request-Method") {
            var methods = Set<String>()
            for index in patterns.candidates(segmentCount: ends.count) where patterns.matches(index, path, starts: starts, ends: ends) {
                methods.insert(routes[index].method)
            }
            if methods.isEmpty {
                Self.setting(policy.decide(origin: origin).headers, on: sink).send(APIError.notFound("no route for \(request.path)").response)
            } else {
                sink.send(policy.preflight(origin: origin, methods: Array(methods)))
            }
            return nil
        }
        // `sink` is still the caller's here: a route's answer goes through the CORS headers from now on.
        if covered, let policy = cors { sink = Self.setting(policy.decide(origin: origin).headers, on: sink) }
        let method = request.method
        var allowed: [String] = []
        var winner: Int?
        for index in patterns.candidates(segmentCount: ends.count) where patterns.matches(index, path, starts: starts, ends: ends) {
            let routeMethod = routes[index].method
            guard routeMethod == method || (method == "HEAD" && routeMethod == "GET") else {
                allowed.append(routeMethod)
                continue
            }
            winner = index
            break
        }
        if let winner {
            let route = routes[winner]
            // Parameters are decoded once, for the route that won.
            guard decodeParameters(of: winner, route.parameterNames, path, starts: starts, ends: ends, into: &parameters) else {
                sink.send(APIError(.badRequest, code: "invalid_path", message: "the path contains a malformed percent-escape").response)
                return nil
            }
            return route
        }
        if allowed.isEmpty {
            sink.send(APIError.notFound("no route for \(request.method) \(request.path)").response)
            return nil
        }
        if allowed.contains("GET") { allowed.append("HEAD") }
        let allow = Array(Set(allowed)).sorted().joined(separator: ", ")
        sink.send(
            APIError(
                .methodNotAllowed, code: "method_not_allowed",
                message: "\(request.method) is not allowed on \(request.path); allowed: \(allow)",
                headers: ["Allow": allow]
            ).response)
        return nil
    }

    private static func setting(_ extra: HTTPHeaders, on sink: ResponseSink) -> ResponseSink {
        var openStream: (@Sendable (HTTPHeaders) -> EventStream)?
        if sink.canStream {
            openStream = { headers in
                var headers = headers
                merge(extra, into: &headers)
                // `canStream` held: a stream opens.
                return sink.stream(headers: headers)!
            }
        }
        return ResponseSink(
            deliver: { response in
                var response = response
                merge(extra, into: &response.headers)
                sink.send(response)
            }, openStream: openStream)
    }

    /// Sets each field, except that `Vary` adds to the one a handler set: both reasons the answer varies hold.
    private static func merge(_ extra: HTTPHeaders, into headers: inout HTTPHeaders) {
        for field in extra {
            if field.name == "Vary", let existing = headers["Vary"], !headers.listContains("Vary", token: field.value) {
                headers.set("Vary", existing + ", " + field.value)
            } else {
                headers.set(field.name, field.value)
            }
        }
    }

    /// Where each of the path's segments starts and ends: a segment follows each `/` (what precedes the first is
    /// not one) and runs to the next `/` or the path's end. Returns how many segments the path has (one per `/`);
    /// only the first `starts.count` are bounded, so a count above it asks for more room.
    static func segmentBounds(
        _ path: UnsafeBufferPointer<UInt8>, starts: UnsafeMutableBufferPointer<Int>, ends: UnsafeMutableBufferPointer<Int>
    ) -> Int {
        precondition(starts.count == ends.count, "one start and one end per segment")
        let room = starts.count
        var segment = 0
        ByteSearch.forEachIndex(of: UInt8(ascii: "/"), in: path) { slash in
            if segment > 0, segment <= room { ends[segment - 1] = slash }
            if segment < room { starts[segment] = slash + 1 }
            segment += 1
        }
        if segment > 0, segment <= room { ends[segment - 1] = path.count }
        return segment
    }

    /// False when a parameter is not valid percent-encoded UTF-8. Called only for a route the table matched, so
    /// every parameter segment is where the pattern has it.
    private func decodeParameters(
        of route: Int, _ names: [String], _ path: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<Int>,
        ends: UnsafeBufferPointer<Int>, into parameters: inout RouteParameters
    ) -> Bool {
        for (name, position) in zip(names, patterns.parameterPositions(of: route)) {
            let segment = UnsafeBufferPointer(rebasing: path[starts[position]..<ends[position]])
            guard let value = PercentDecoding.decode(segment) else { return false }
            parameters.append(name: name, value: value)
        }
        return true
    }
}
