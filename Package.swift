// swift-tools-version:6.0
import Foundation
import PackageDescription

// specd promises one small binary built from the Swift toolchain alone: no package dependencies, ever.
let package = Package(
    name: "specd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "specd", targets: ["specd"])
    ],
    targets: [
        .target(name: "HTTP"),
        .target(name: "Rules"),
        .target(name: "Store", dependencies: ["Rules", "CCRC32C", "CLinux"]),
        .target(name: "CLinux"),
        .target(name: "CCRC32C"),
        // Each arrow points one way: HTTPServer knows nothing of rules or users, Engine nothing of HTTP, and only
        // `specd` (the composition root) sees everything.
        .target(name: "HTTPServer", dependencies: ["HTTP", "CLinux"]),
        .target(name: "Engine", dependencies: ["Rules", "Store", "CLinux"]),
        // The dashboard's page, script and style are embedded as Swift by scripts/embed-dashboard.sh, not bundled.
        .target(name: "API", dependencies: ["HTTP", "HTTPServer", "Engine", "Rules", "Store", "CLinux"], exclude: ["Dashboard"]),
        .executableTarget(name: "specd", dependencies: ["HTTP", "HTTPServer", "Rules", "Store", "Engine", "API", "CLinux"]),
        .executableTarget(
            name: "specd-bench", dependencies: ["HTTP", "Rules", "Store", "HTTPServer", "Engine", "API", "CLinux"], path: "bench/Sources"),
        .target(name: "HTTPFixtures", dependencies: ["HTTP"], path: "Tests/HTTPFixtures"),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "HTTPFixtures", "TestRandom"]),
        .target(name: "TestRandom", path: "Tests/TestRandom"),
        .testTarget(name: "RulesTests", dependencies: ["Rules", "TestRandom"], exclude: ["Fixtures"]),
        .target(name: "StoreFixtures", dependencies: ["Store", "TestRandom"], path: "Tests/StoreFixtures"),
        .testTarget(name: "StoreTests", dependencies: ["Store", "Rules", "StoreFixtures", "TestRandom", "CLinux"]),
        .executableTarget(name: "store-crash-writer", dependencies: ["Store", "Rules"], path: "Tests/CrashWriter"),
        .target(name: "NetworkFixtures", path: "Tests/NetworkFixtures"),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTP", "HTTPFixtures", "NetworkFixtures", "CLinux"]),
        .testTarget(name: "EngineTests", dependencies: ["Engine", "Rules", "Store", "TestRandom"]),
        // API tests run the daemon as `Daemon.assemble` builds it.
        .testTarget(
            name: "APITests", dependencies: ["specd", "API", "Engine", "HTTPServer", "HTTP", "Rules", "Store", "StoreFixtures", "NetworkFixtures"]),
        .testTarget(name: "SpecdTests", dependencies: ["specd", "API", "Engine", "HTTPServer", "Rules", "Store", "NetworkFixtures"])
    ]
)

// Swift 6 language mode everywhere; strict concurrency comes with it. Release builds optimize across modules: a
// request crosses HTTP, HTTPServer, API, Engine, Rules and Store, and without it every small function of another
// module (a getter, a key comparison) is a call that cannot be inlined or specialized (callgrind: a flag read
// 3 % fewer instructions, a donation 0.7 %; the build takes as long).
//
// Profile-guided optimization: release builds read bench/specd.profdata, how often each branch of each function ran
// under the benchmark loads (scripts/pgo-profile.sh makes it). The compiler then inlines and lays out the code the
// requests run, and moves what they never run out of their way (callgrind: a durable donation and a cached flag
// read both 5 % fewer instructions). A function changed since the profile was made builds as without one. The
// profile's format is the toolchain's LLVM's: a toolchain older than the one that wrote it could not read it, so
// older ones build without it. SPECD_PGO=off leaves it out (the instrumented build that replaces it).
//
// A profile the compiler cannot read fails the whole build ("error reading profile"), so one that is not whole (a
// Git LFS pointer, a truncated or emptied copy) is left out too: the build is then as fast to make and as correct,
// only a few percent slower to run.

/// Whether the file looks like a whole LLVM indexed profile: its magic first, and from byte 32 the offsets of the
/// sections written after the records, each inside the file. In format 12 (Swift 6.3's) those are the hash table,
/// memory-profile records, binary ids, virtual table names and temporal traces, where present; without traces the
/// names come last, as a length and the names padded to 8 bytes, so the file must end where they do. A file cut
/// short is left out, then; one damaged within keeps its length and is not caught (the build fails, and
/// SPECD_PGO=off builds without it).
func isWholeIndexedProfile(atPath path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path), data.count > 72 else { return false }
    let bytes = [UInt8](data)
    let size = UInt64(bytes.count)
    // Only offsets already known to lie 8 bytes or more before the end are read: no index here can trap.
    func word(at offset: UInt64) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[Int(offset) + $1]) << (8 * UInt64($1)) }
    }
    let magic: UInt64 = 0x8169_666f_7270_6cff // "\xfflprofi\x81"
    guard word(at: 0) == magic, word(at: 32) != 0, word(at: 32) < size else { return false }
    // Other formats: the magic and the hash table are all that is checked (their headers differ in length).
    guard word(at: 8) & 0xFFFF_FFFF == 12 else { return true }
    let sections = stride(from: 32, to: 72, by: 8).map { word(at: UInt64($0)) }
    guard sections.allSatisfy({ $0 < size }) else { return false }
    let (traces, names) = (sections[3], sections[4])
    guard traces == 0, names != 0 else { return true }
    guard names <= size - 8 else { return false }
    let length = word(at: names)
    guard length <= size - names - 8 else { return false }
    return names + 8 + (length + 7) / 8 * 8 == size
}

var releaseFlags = ["-cross-module-optimization"]
#if compiler(>=6.3)
let profile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("bench/specd.profdata").path
if ProcessInfo.processInfo.environment["SPECD_PGO"] != "off", isWholeIndexedProfile(atPath: profile) {
    releaseFlags += ["-Xfrontend", "-ir-profile-use=\(profile)"]
}
#endif
for target in package.targets where target.name != "CLinux" && target.name != "CCRC32C" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.swiftLanguageMode(.v6), .unsafeFlags(releaseFlags, .when(configuration: .release))]
}
