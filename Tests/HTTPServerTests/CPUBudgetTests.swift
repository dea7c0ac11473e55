import Testing

@testable import HTTPServer

/// Default loops follow the CPUs the process may use: affinity and cgroup quota, as a container sees them.
@Suite struct CPUBudgetTests {
    @Test(
        arguments: [
            // (online, affinity, cpu.max, expected loops)
            (2, 2, nil, 2),
            (2, 1, nil, 1), // taskset -c 1
            (8, 8, "max 100000\n", 8), // no quota
            (8, 8, "100000 100000\n", 1), // a 1-CPU container
            (8, 8, "150000 100000\n", 2), // 1.5 CPUs round up
            (8, 8, "50000 100000\n", 1), // half a CPU is still one loop
            (8, 2, "400000 100000\n", 2), // affinity is the tighter one
            (4, 4, "garbage", 4),
            (4, 4, "0 100000", 4),
            (4, -1, nil, 4), // affinity unreadable
            (200, 200, nil, 64) // capped
        ] as [(Int, Int, String?, Int)])
    func cgroupV2(online: Int, affinity: Int, cpuMax: String?, loops: Int) {
        #expect(CPUBudget.budget(online: online, affinity: affinity, cpuMax: cpuMax, cfs: nil).loops == loops)
    }

    @Test(arguments: [("-1", "100000", 4), ("100000", "100000", 1), ("250000", "100000", 3), ("x", "100000", 4)])
    func cgroupV1(quota: String, period: String, loops: Int) {
        #expect(CPUBudget.budget(online: 4, affinity: 4, cpuMax: nil, cfs: (quota, period)).loops == loops)
    }

    @Test func reasonNamesWhatDecided() {
        #expect(CPUBudget.budget(online: 2, affinity: 1, cpuMax: nil, cfs: nil).reason == "affinity 1 of 2 online")
        #expect(CPUBudget.budget(online: 8, affinity: 8, cpuMax: "150000 100000", cfs: nil).reason == "cgroup quota 1.50 CPUs")
        #expect(CPUBudget.budget(online: 2, affinity: 2, cpuMax: nil, cfs: nil).reason == "2 online CPUs")
        // Any quota counts for idle polling, even one that leaves the loops to the affinity mask.
        #expect(CPUBudget.budget(online: 8, affinity: 1, cpuMax: "400000 100000", cfs: nil).hasQuota)
        #expect(CPUBudget.budget(online: 8, affinity: 8, cpuMax: nil, cfs: ("50000", "100000")).hasQuota)
        #expect(!CPUBudget.budget(online: 8, affinity: 8, cpuMax: "max 100000", cfs: nil).hasQuota)
    }
}
