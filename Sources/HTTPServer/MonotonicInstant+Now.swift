import HTTP

#if canImport(Glibc)
import Glibc
#endif

extension MonotonicInstant {
    /// `CLOCK_MONOTONIC`, the clock the kernel's own timeouts (epoll, poll) run on: it never jumps with the wall
    /// clock. Read through the vDSO, no system call.
    public static var now: MonotonicInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicInstant(nanoseconds: Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec))
    }
}
