import Foundation

/// The standard `process_*` families of Prometheus' client libraries, read from `/proc/self` at scrape time
/// (proc(5)): resident memory, CPU seconds, open and maximum file descriptors, start time. A file that cannot be
/// read leaves its family out rather than reporting a made-up value.
public enum ProcessMetrics {
    public static func families() -> [MetricFamily] {
        var families: [MetricFamily] = []
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let stat = statFields()
        if let stat, ticks > 0, let user = Double(stat[11]), let system = Double(stat[12]) {
            families.append(
                MetricFamily(
                    name: "process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.", kind: .counter,
                    value: (user + system) / ticks))
        }
        if let stat, let pages = Double(stat[21]) {
            families.append(
                MetricFamily(
                    name: "process_resident_memory_bytes", help: "Resident memory size in bytes.", kind: .gauge,
                    value: pages * Double(sysconf(Int32(_SC_PAGESIZE)))))
        }
        if let stat, ticks > 0, let started = Double(stat[19]), let boot = bootTime() {
            families.append(
                MetricFamily(
                    name: "process_start_time_seconds", help: "Start time of the process since unix epoch in seconds.", kind: .gauge,
                    value: boot + started / ticks))
        }
        if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // The listing itself holds one descriptor open while it reads.
            families.append(
                MetricFamily(name: "process_open_fds", help: "Number of open file descriptors.", kind: .gauge, value: Double(max(0, open.count - 1))))
        }
        var limit = rlimit()
        // RLIM_INFINITY is all ones on Linux.
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            let maximum = limit.rlim_cur == rlim_t.max ? Double.infinity : Double(limit.rlim_cur)
            families.append(
                MetricFamily(name: "process_max_fds", help: "Maximum number of open file descriptors.", kind: .gauge, value: maximum))
        }
        return families
    }

    /// The fields of `/proc/self/stat` from the state on (index i is field i + 3 of proc(5): utime 11, stime 12, starttime 19, rss 21): the command name, which
    /// may hold spaces and parentheses, ends at the last `)`.
    static func statFields() -> [Substring]? {
        guard let text = wholeFile("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        return fields.count > 21 ? fields : nil
    }

    /// The boot time (`btime` of `/proc/stat`), unix seconds.
    static func bootTime(from path: String = "/proc/stat") -> Double? {
        guard let text = wholeFile(path) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") { return Double(line.dropFirst(6)) }
        return nil
    }

    /// A file read to its end. `/proc` files report no size, and `String(contentsOfFile:)` read one page of such a
    /// file: `/proc/stat` runs past it on a host with many CPUs or interrupts (`btime` comes after a line per CPU
    /// and one counting every interrupt), and `process_start_time_seconds` went missing there.
    static func wholeFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
