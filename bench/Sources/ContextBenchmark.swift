import Foundation
import Rules
import Store

/// Large contexts: the time to build a 40k/80k-key context from a request body (what `POST /v1/evaluate` and an
/// OFREP context do), and a 1 000-op batch against a user who already has many segments or attributes. Each is
/// wall time for one build (best of 3), to show how the cost grows with size: it should grow linearly.
enum ContextBenchmark {
    static func run() {
        print("context: building large contexts and applying batches to large users (best of 3)")
        for size in [10_000, 40_000, 80_000] {
            let attributes = (0..<size).map { #""k\#($0)":0"# }.joined(separator: ",") // under the 1 MiB body cap at 80k
            let body = Array(#"{"attributes": {\#(attributes)}}"#.utf8)
            time("parse + decode a \(size)-attribute inline context") {
                guard let value = try? JSONParser().parse(body), let context = try? ContextJSON.decode(value) else {
                    print("  (refused)")
                    return 0
                }
                return context.attributes.count
            }
            let object = (try? JSONParser().parse(body))?["attributes"]?.objectValue ?? [:]
            time("merge \(size) attributes into a context (OFREP)") {
                var context = UserContext()
                for (name, value) in object { context.attributes[name] = value }
                return context.attributes.count
            }
        }
        let now = ISO8601.parse("2026-03-10T12:00:00Z")!
        for existing in [1_000, 35_000] {
            var user = UserContext()
            for index in 0..<existing { user.segments.insert("segment-\(index)") }
            let adds = Mutation(user: "u", now: now, actions: (0..<1_000).map { .addSegment("new-\($0)") })
            time("1000 addSegment ops, user with \(existing) segments") {
                (try? Reducer.apply(adds, to: user))?.state?.segments.count ?? 0
            }
            var attributed = UserContext()
            for index in 0..<existing { attributed.attributes["attr-\(index)"] = .int(index) }
            let sets = Mutation(user: "u", now: now, actions: (0..<1_000).map { .setAttribute(key: "attr-\($0)", value: .int(-$0)) })
            time("1000 setAttribute ops, user with \(existing) attributes") {
                (try? Reducer.apply(sets, to: attributed))?.state?.attributes.count ?? 0
            }
        }
    }

    static func time(_ name: String, _ body: () -> Int) {
        var best = Double.infinity
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            Measure.sink &+= body()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        let label = name.count >= 56 ? name : name + String(repeating: " ", count: 56 - name.count)
        print("  " + label + String(format: " %10.2f ms", best))
    }
}
