import Glibc

// The libFuzzer entry point of the rules-and-store fuzz binary. One binary serves five targets (chosen by
// FUZZ_TARGET) so that the rules, store and engine sources are compiled with instrumentation once, not five times.
let selectedTarget: @Sendable (UnsafePointer<UInt8>, Int) -> CInt = {
    let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
    switch name {
    case "json": return fuzzJSONParser
    case "rules-compiler": return fuzzRuleCompiler
    case "evaluation": return fuzzEvaluation
    case "reducer": return fuzzReducer
    case "store-decoders": return fuzzStoreDecoders
    case "scenario": return fuzzScenario
    default: fatalError("FUZZ_TARGET must be json, rules-compiler, evaluation, reducer, store-decoders or scenario, not '\(name)'")
    }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selectedTarget(data, size)
}
