import Foundation
import Testing

@testable import Engine

#if canImport(Glibc)
import Glibc
#endif

/// `/proc` files report no size; the process metrics read them to their end all the same.
@Suite struct ProcessMetricsFileTests {
    /// A named pipe stands in for a `/proc` file: no size to go by, and the boot time past the first page, where a
    /// host with many CPUs has it in `/proc/stat`.
    @Test func bootTime_pastTheFirstPageOfAFileWithNoSize_isFound() throws {
        let path = NSTemporaryDirectory() + "specd-proc-stat-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try #require(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        var text = ""
        for cpu in 0..<128 { text += "cpu\(cpu) 1234567 89 2345678 987654321 12345 0 6789 0 0 0\n" }
        text += "intr " + (0..<600).map { "\($0)" }.joined(separator: " ") + "\n"
        text += "btime 1796471378\nprocesses 4242\n"
        #expect(text.utf8.count > 2 * 4096)
        let bytes = Array(text.utf8)
        // A reader that stops early must not end the test process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let writer = Thread {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, bytes.count - offset) }
                guard written > 0 else { break }
                offset += written
            }
            close(fd)
        }
        writer.start()
        #expect(ProcessMetrics.bootTime(from: path) == 1_796_471_378)
    }

    @Test func aProcFileLongerThanAPage_isReadWhole() throws {
        // This process's memory map: every library and thread stack, many pages on any test run.
        let read = try #require(ProcessMetrics.wholeFile("/proc/self/maps"))
        #expect(read.utf8.count > 4096)
        #expect(read.hasSuffix("\n"))
        #expect(read.split(separator: "\n").allSatisfy { $0.contains("-") })
    }

    @Test func theStandardFamilies_includeTheStartTime() {
        let names = ProcessMetrics.families().map(\.name)
        #expect(names.contains("process_start_time_seconds"))
        #expect(names.contains("process_cpu_seconds_total"))
    }
}
