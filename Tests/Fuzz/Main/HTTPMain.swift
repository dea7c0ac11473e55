// The libFuzzer entry point of the HTTP fuzz binary (one target: http).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzHTTPParser(data, size)
}
