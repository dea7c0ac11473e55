import Dispatch

/// Hands free heap pages back to the system (glibc's `malloc_trim`); elsewhere, nothing.
///
/// glibc gives threads arenas of their own and returns a freed block to the arena it came from, where only the
/// threads allocating from that arena reuse it. Memory freed in one go by other threads than the ones that will
/// allocate next (recovery's buffers, the snapshot records that users decode out of) would otherwise stay with the
/// process for good.
enum HeapRelease {
    /// Now, on the calling thread (about 100 ms with two million users' contexts in the heap).
    static func returnFreePages() {
        #if os(Linux)
        _ = mallocTrim(0)
        #endif
    }

    /// On a background thread: the caller holds a lock, or a request is waiting.
    static func returnFreePagesInBackground() {
        DispatchQueue.global(qos: .utility).async { returnFreePages() }
    }
}

#if os(Linux)
/// malloc.h's `malloc_trim`, which Swift's Glibc module does not export.
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32
#endif
