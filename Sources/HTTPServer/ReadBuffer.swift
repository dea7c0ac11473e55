/// A per-loop scratch buffer for `read(2)`; only the loop's thread touches it.
final class ReadBuffer: @unchecked Sendable {
    private var storage: UnsafeMutableBufferPointer<UInt8>

    init(size: Int = 64 * 1024) {
        storage = .allocate(capacity: size)
    }

    deinit { storage.deallocate() }

    func withBuffer<T>(_ body: (UnsafeMutableBufferPointer<UInt8>) -> T) -> T { body(storage) }
}
