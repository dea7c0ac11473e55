import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one allocator setting `serve` changes: how many freed blocks of each size glibc keeps in a thread's own cache
/// (its tcache), 7 by default.
///
/// Why: a loop committing under `fsync always` keeps a round's requests (up to one per connection) alive until the
/// round's fsync returns, then answers and frees them together. Past the seventh freed block of one size, frees and
/// the next round's allocations fall through to the shared bins (`_int_malloc`, `unlink_chunk`,
/// `malloc_consolidate` in a profile, where a request at a time never leaves the cache). With 128 a round fits.
/// Measured (`scripts/bench.sh`'s donation, pinned, 32 connections): 4 000 donations took 2.5 % fewer instructions
/// (247.7 M against 241.4 M), and six alternated runs gave a median of 27.9k against 26.4k donations a second.
/// What the cache can hold past its use is bounded: 128 blocks of each of its 64 sizes (up to 1 KiB), some 4 MiB a
/// thread at the very worst, memory the shared bins would hold as well.
///
/// The count is read once, by the dynamic loader, from `GLIBC_TUNABLES`: it cannot be set by a running process.
/// So `serve` executes itself again, once, with it added, before it does anything else. An operator's own
/// `glibc.malloc.tcache_count` wins; `SPECD_MALLOC_TUNING=0` turns this off (under valgrind, say, which follows
/// an exec only when asked).
enum AllocatorTuning {
    static let tcacheCount = 128
    static let tunable = "glibc.malloc.tcache_count"
    /// Set for the one re-execution, so a loader that ignores `GLIBC_TUNABLES` never makes it loop; removed again
    /// at once, so processes this one starts decide for themselves.
    static let marker = "SPECD_ALLOCATOR_TUNED"
    static let optOut = "SPECD_MALLOC_TUNING"

    /// The environment to execute `serve` again with, or `nil` to go on as is: turned off, already done, or a count
    /// the operator chose.
    static func environment(toReexecWith environment: [String: String]) -> [String: String]? {
        if let setting = environment[optOut], ["0", "off", "false", "no"].contains(setting.lowercased()) { return nil }
        if environment[marker] != nil { return nil }
        let existing = environment["GLIBC_TUNABLES"] ?? ""
        if tcacheCount(in: existing) != nil { return nil }
        var changed = environment
        let ours = "\(tunable)=\(tcacheCount)"
        changed["GLIBC_TUNABLES"] = existing.isEmpty ? ours : existing + ":" + ours
        changed[marker] = "1"
        return changed
    }

    /// The count a `GLIBC_TUNABLES` value sets (`name=value` pairs separated by `:`), `nil` when it sets none.
    static func tcacheCount(in tunables: String) -> Int? {
        for pair in tunables.split(separator: ":") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == tunable { return Int(parts[1]) }
        }
        return nil
    }

    /// For the start-up line: the count this process runs with, as the environment it started with says.
    static func describe(_ environment: [String: String]) -> String {
        tcacheCount(in: environment["GLIBC_TUNABLES"] ?? "").map { "tcache_count=\($0)" } ?? "default"
    }

    /// Executes this program again with the tuned environment when `environment(toReexecWith:)` asks for it; returns
    /// only when it does not, or when the exec failed (the process then runs untuned, as before). Either way the
    /// marker is gone from this process's environment afterwards.
    static func reexecIfNeeded() {
        #if os(Linux)
        defer { unsetenv(marker) }
        guard let changed = environment(toReexecWith: ProcessInfo.processInfo.environment) else { return }
        let entries = changed.map { strdup("\($0.key)=\($0.value)") } + [nil]
        _ = entries.withUnsafeBufferPointer { environment in
            execve("/proc/self/exe", CommandLine.unsafeArgv, UnsafeMutablePointer(mutating: environment.baseAddress))
        }
        for entry in entries { free(entry) }
        #endif
    }
}
