/// The routes' patterns as plain numbers and bytes, for matching a path on every request: routes grouped by how many
/// segments their pattern has, each route's literal segments as spans of one byte pool and its parameters as
/// positions. Nothing in it is reference-counted per route, so a match walks candidates without a retain or a
/// release, where the patterns' segment enums (a literal's byte array, a parameter's name) cost a retained and
/// released payload for every segment looked at.
///
/// Owned by the router, built when routes are added (before the server starts) and only read afterwards.
struct RouteTable: Sendable {
    /// One literal segment of one route: where it stands in the pattern, and its bytes in `pool`.
    private struct Literal: Sendable {
        let position: Int
        let start: Int
        let count: Int
    }

    /// One route's slices of `literals` and `parameters`.
    private struct Shape: Sendable {
        let segmentCount: Int
        let literals: Range<Int>
        let parameters: Range<Int>
    }

    private var shapes: [Shape] = []
    private var literals: [Literal] = []
    /// Positions of parameter segments, each route's in pattern order.
    private var parameterPositions: [Int] = []
    private var pool: [UInt8] = []
    /// Route indices by segment count, in registration order (the first match wins, as before).
    private var bySegmentCount: [[Int]] = []

    /// Adds the next route (its index is the number added before it).
    mutating func add(_ segments: [Router.Segment]) {
        let literalStart = literals.count
        let parameterStart = parameterPositions.count
        for (position, segment) in segments.enumerated() {
            switch segment {
            case .literal(let bytes):
                literals.append(Literal(position: position, start: pool.count, count: bytes.count))
                pool.append(contentsOf: bytes)
            case .parameter:
                parameterPositions.append(position)
            }
        }
        let index = shapes.count
        shapes.append(
            Shape(segmentCount: segments.count, literals: literalStart..<literals.count, parameters: parameterStart..<parameterPositions.count))
        while bySegmentCount.count <= segments.count { bySegmentCount.append([]) }
        bySegmentCount[segments.count].append(index)
    }

    /// The routes whose pattern has `segmentCount` segments, in registration order (the first match wins).
    func candidates(segmentCount: Int) -> [Int] {
        segmentCount < bySegmentCount.count ? bySegmentCount[segmentCount] : []
    }

    /// Whether route `index` matches the path: every literal byte for byte, every parameter segment non-empty.
    /// `starts` and `ends` bound each of the path's segments (`Router.segmentBounds`), as many as the route has.
    func matches(
        _ index: Int, _ path: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<Int>, ends: UnsafeBufferPointer<Int>
    ) -> Bool {
        let shape = shapes[index]
        guard shape.segmentCount == ends.count, starts.count == ends.count else { return false }
        return literals.withUnsafeBufferPointer { literals in
            pool.withUnsafeBufferPointer { pool in
                Self.literalsMatch(shape.literals, literals, pool, path, starts: starts, ends: ends)
            }
        } && parameterPositions.withUnsafeBufferPointer { Self.parametersPresent(shape.parameters, $0, starts: starts, ends: ends) }
    }

    /// The parameter positions of route `index`, in pattern order.
    func parameterPositions(of index: Int) -> ArraySlice<Int> { parameterPositions[shapes[index].parameters] }

    private static func literalsMatch(
        _ range: Range<Int>, _ literals: UnsafeBufferPointer<Literal>, _ pool: UnsafeBufferPointer<UInt8>,
        _ path: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<Int>, ends: UnsafeBufferPointer<Int>
    ) -> Bool {
        // Last literal first: routes of one length mostly share their first literals (`v1`, `users`) and differ in
        // a later one, so a candidate that does not match is refused at its first comparison.
        for index in range.reversed() where !matches(literals[index], pool, path, starts: starts, ends: ends) { return false }
        return true
    }

    private static func matches(
        _ literal: Literal, _ pool: UnsafeBufferPointer<UInt8>, _ path: UnsafeBufferPointer<UInt8>,
        starts: UnsafeBufferPointer<Int>, ends: UnsafeBufferPointer<Int>
    ) -> Bool {
        let start = starts[literal.position]
        guard ends[literal.position] - start == literal.count else { return false }
        for offset in 0..<literal.count where pool[literal.start + offset] != path[start + offset] { return false }
        return true
    }

    private static func parametersPresent(
        _ range: Range<Int>, _ positions: UnsafeBufferPointer<Int>, starts: UnsafeBufferPointer<Int>, ends: UnsafeBufferPointer<Int>
    ) -> Bool {
        for index in range where ends[positions[index]] <= starts[positions[index]] { return false }
        return true
    }
}
