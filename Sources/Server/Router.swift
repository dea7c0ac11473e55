import HTTP

/// Method + path-pattern routing. Patterns are literal segments and `{name}` parameters, matched against the raw
/// path; parameters are percent-decoded. A path that matches with another method answers 405 with `Allow`.
public struct Router: Responder {
    public typealias Handler = @Sendable (Request, ResponseSink) -> Void
    public typealias SyncHandler = @Sendable (Request) throws(APIError) -> HTTPResponse

    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    struct Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Segment]
        let handler: Handler
    }

    private(set) var routes: [Route] = []

    public init() {}

    /// Every registered `(method, pattern)`, for the OpenAPI completeness check.
    public var table: [(method: String, pattern: String)] { routes.map { ($0.method, $0.pattern) } }

    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part -> Segment in
            part.hasPrefix("{") && part.hasSuffix("}") ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        routes.append(Route(method: method, pattern: pattern, segments: segments, handler: handler))
    }

    /// Registers a handler that answers at once; a thrown `APIError` becomes its error response.
    public mutating func add(_ method: String, _ pattern: String, sync handler: @escaping SyncHandler) {
        let handler: Handler = { request, sink in
            do throws(APIError) {
                sink.send(try handler(request))
            } catch {
                sink.send(error.response)
            }
        }
        add(method, pattern, handler)
    }

    public func respond(to request: Request, sink: ResponseSink) {
        let path = request.path
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        var allowed: [String] = []
        for route in routes where route.segments.count == parts.count {
            guard let parameters = match(route.segments, parts) else { continue }
            guard route.method == request.method || (request.method == "HEAD" && route.method == "GET") else {
                allowed.append(route.method)
                continue
            }
            guard let decoded = parameters else {
                sink.send(APIError(.badRequest, code: "invalid_path", message: "the path contains a malformed percent-escape").response)
                return
            }
            var routed = request
            routed.parameters = decoded
            route.handler(routed, sink)
            return
        }
        if allowed.isEmpty {
            sink.send(APIError.notFound("no route for \(request.method) \(path)").response)
            return
        }
        if allowed.contains("GET") { allowed.append("HEAD") }
        let allow = Array(Set(allowed)).sorted().joined(separator: ", ")
        sink.send(APIError(.methodNotAllowed, code: "method_not_allowed",
                           message: "\(request.method) is not allowed on \(path); allowed: \(allow)",
                           headers: ["Allow": allow]).response)
    }

    /// `nil` when the pattern does not match; `.some(nil)` when it matches but a parameter fails to decode.
    private func match(_ segments: [Segment], _ parts: ArraySlice<Substring>) -> [String: String]?? {
        var parameters: [String: String] = [:]
        var decodingFailed = false
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal):
                guard part == literal else { return .none }
            case .parameter(let name):
                guard !part.isEmpty else { return .none }
                if let value = PercentDecoding.decode(part) { parameters[name] = value } else { decodingFailed = true }
            }
        }
        return .some(decodingFailed ? nil : parameters)
    }
}
