import Foundation

/// Runs `body` in rounds until at least `minimum` has passed, reports the best round's nanoseconds per
/// operation (the least disturbed by the other core's noise) and operations per second.
enum Measure {
    nonisolated(unsafe) static var sink = 0

    @discardableResult
    static func run(_ name: String, operations: Int, rounds: Int = 5, _ body: () -> Int) -> Double {
        var best = Double.infinity
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            sink &+= body()
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
            best = min(best, elapsed / Double(operations))
        }
        let perSecond = 1e9 / best
        let label = name.count >= 46 ? name : name + String(repeating: " ", count: 46 - name.count)
        print("  " + label + String(format: " %10.1f ns/op %14.0f op/s", best, perSecond))
        return best
    }
}
