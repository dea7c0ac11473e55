import CLinux
import Foundation

/// How many CPUs the process may really use, for the default number of event loops: the CPUs of its affinity mask
/// (`taskset`, a cpuset) and its cgroup CPU quota (`cpu.max` in cgroup v2, `cpu.cfs_quota_us` / `cpu.cfs_period_us`
/// in v1), as a container with a 1-CPU limit sees it. More loops than that only take turns on the same CPU and pay
/// for the hand-offs between them.
public struct CPUBudget: Sendable, Equatable {
    /// The number of loops to run by default.
    public let loops: Int
    /// Why, for the first log line: e.g. `"affinity 1 of 2 online"` or `"cgroup quota 1.50 CPUs"`.
    public let reason: String
    /// Whether a cgroup CPU quota applies at all (whether or not it decided `loops`): CPU time spent polling is
    /// then quota spent, and throttled (see `IdlePoll`).
    public var hasQuota = false

    /// Reads the machine: online CPUs, the affinity mask, then the cgroup quota.
    public static func current() -> CPUBudget {
        let online = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let affinity = Int(specd_affinity_cpu_count())
        var cpuMax: String?
        var cfs: (quota: String, period: String)?
        for path in cgroupV2Paths() {
            if let text = try? String(contentsOfFile: path + "/cpu.max", encoding: .utf8) {
                cpuMax = text
                break
            }
        }
        if cpuMax == nil, let quota = try? String(contentsOfFile: "/sys/fs/cgroup/cpu/cpu.cfs_quota_us", encoding: .utf8),
            let period = try? String(contentsOfFile: "/sys/fs/cgroup/cpu/cpu.cfs_period_us", encoding: .utf8)
        {
            cfs = (quota, period)
        }
        return budget(online: online, affinity: affinity, cpuMax: cpuMax, cfs: cfs)
    }

    /// The process's own cgroup v2 directory (from `/proc/self/cgroup`, `0::/path`), then the root.
    static func cgroupV2Paths() -> [String] {
        var paths: [String] = []
        if let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("0::") {
                let path = String(line.dropFirst(3))
                if path != "/" && !path.contains("..") { paths.append("/sys/fs/cgroup" + path) }
            }
        }
        paths.append("/sys/fs/cgroup")
        return paths
    }

    /// The pure decision, from what was read (`nil` or unparsable: no limit from that source).
    static func budget(online: Int, affinity: Int, cpuMax: String?, cfs: (quota: String, period: String)?) -> CPUBudget {
        var loops = max(1, online)
        var reason = "\(loops) online CPU\(loops == 1 ? "" : "s")"
        if affinity > 0, affinity < loops {
            loops = affinity
            reason = "affinity \(affinity) of \(max(1, online)) online"
        }
        let quota = quota(cpuMax: cpuMax, cfs: cfs)
        if let quota {
            let cpus = Int(quota.rounded(.up))
            if cpus < loops {
                loops = max(1, cpus)
                reason = "cgroup quota " + String(format: "%.2f", quota) + " CPUs"
            }
        }
        var budget = CPUBudget(loops: min(64, loops), reason: reason)
        budget.hasQuota = quota != nil
        return budget
    }

    /// CPUs allowed by the quota: `"150000 100000"` → 1.5; `"max 100000"`, `-1` or garbage → no quota.
    static func quota(cpuMax: String?, cfs: (quota: String, period: String)?) -> Double? {
        if let cpuMax {
            let fields = cpuMax.split(whereSeparator: { $0 == " " || $0 == "\n" })
            guard fields.count >= 2, let quota = Double(fields[0]), let period = Double(fields[1]), quota > 0, period > 0 else { return nil }
            return quota / period
        }
        if let cfs {
            guard let quota = Double(cfs.quota.trimmingCharacters(in: .whitespacesAndNewlines)),
                let period = Double(cfs.period.trimmingCharacters(in: .whitespacesAndNewlines)), quota > 0, period > 0
            else { return nil }
            return quota / period
        }
        return nil
    }
}
