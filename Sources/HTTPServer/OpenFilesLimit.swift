#if canImport(Glibc)
import Glibc
#endif

/// The process's descriptor limit (`RLIMIT_NOFILE`). Every connection holds one descriptor; systemd and most
/// shells start processes with a soft limit of 1 024 under a far higher hard one, which would cap specd well below
/// its default `--max-connections`.
public enum OpenFilesLimit {
    /// Raises the soft limit to the hard one (at most 1 048 576) and returns the limit now in force.
    public static func raiseToHard() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return -1 }
        let target = min(limit.rlim_max, 1 << 20)
        if limit.rlim_cur < target {
            var raised = limit
            raised.rlim_cur = target
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// Descriptors the daemon holds besides connections: log segments, listeners, event loops, stdio.
    public static let reserved = 64
}
