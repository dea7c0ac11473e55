import Foundation

/// specd-bench: in-process benchmarks (not timed tests). `swift run -c release specd-bench rules|context|json|store|replay|all`;
/// `specd-bench sse-load …` is the SSE load client that scripts/bench-sse.sh drives; `specd-bench seed-data DIR USERS
/// [TAIL]` makes a data directory for the cold-start measurement in scripts/bench-store.sh.
let suites: [String: () -> Void] = [
    "rules": RulesBenchmark.run, "context": ContextBenchmark.run, "json": JSONBenchmark.run, "store": StoreBenchmark.run,
    "replay": { StoreBenchmark.measureReplay(directory: NSTemporaryDirectory() + "specd-bench-replay-\(UUID().uuidString)") }
]
let requested = CommandLine.arguments.dropFirst().first ?? "all"
if requested == "sse-load" {
    exit(SSELoad.main(Array(CommandLine.arguments.dropFirst(2))))
} else if requested == "seed-data" {
    exit(SeedData.main(Array(CommandLine.arguments.dropFirst(2))))
} else if requested == "all" {
    for name in suites.keys.sorted() { suites[name]!() }
} else if let suite = suites[requested] {
    suite()
} else {
    FileHandle.standardError.write(Data("usage: specd-bench [\(suites.keys.sorted().joined(separator: "|"))|all|sse-load …]\n".utf8))
    exit(1)
}
