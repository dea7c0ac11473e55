#if canImport(Glibc)
import CLinux
import Foundation
import Glibc
import Synchronization

/// One thread blocked in `epoll_wait`, level-triggered, owning its channels outright. Other threads hand it work
/// through a locked task list and an `eventfd` wake-up.
final class EpollEventLoop: EventLoop, @unchecked Sendable {
    private let epollFD: Int32
    private let wakeFD: Int32
    /// Touched only on the loop thread.
    private var channels: [Int32: Channel] = [:]
    private let pendingTasks = Mutex<[@Sendable () -> Void]>([])
    private let loopThread = Atomic<UInt>(0)
    private let running = Atomic<Bool>(true)
    private let stopped = DispatchSemaphore(value: 0)
    private let tickInterval: Duration

    init(tickInterval: Duration = .milliseconds(250)) {
        epollFD = specd_epoll_create()
        wakeFD = specd_eventfd()
        self.tickInterval = tickInterval
        specd_epoll_ctl(epollFD, 0, wakeFD, UInt32(SPECD_EV_READ))
    }

    deinit {
        Glibc.close(wakeFD)
        Glibc.close(epollFD)
    }

    var inEventLoop: Bool { loopThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    func add(_ channel: Channel) {
        channels[channel.fd] = channel
        specd_epoll_ctl(epollFD, 0, channel.fd, UInt32(SPECD_EV_READ))
    }

    func setInterest(_ channel: Channel, read: Bool, write: Bool) {
        let interest = (read ? UInt32(SPECD_EV_READ) : 0) | (write ? UInt32(SPECD_EV_WRITE) : 0)
        specd_epoll_ctl(epollFD, 1, channel.fd, interest)
    }

    func close(_ channel: Channel) {
        guard channels.removeValue(forKey: channel.fd) != nil else { return }
        specd_epoll_ctl(epollFD, 2, channel.fd, 0)
        Glibc.close(channel.fd)
    }

    func execute(_ task: @escaping @Sendable () -> Void) {
        let wasEmpty = pendingTasks.withLock { tasks in
            tasks.append(task)
            return tasks.count == 1
        }
        if wasEmpty { wake() }
    }

    func forEachChannel(_ body: (Channel) -> Void) {
        for channel in Array(channels.values) { body(channel) }
    }

    func start() {
        let thread = Thread { [self] in runLoop() }
        thread.name = "specd-epoll"
        thread.start()
    }

    func stop() {
        running.store(false, ordering: .releasing)
        wake()
        stopped.wait()
    }

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    private func runLoop() {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        let capacity = 512
        let readyFDs = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let readyEvents = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        defer {
            readyFDs.deallocate()
            readyEvents.deallocate()
        }
        let readBits = UInt32(SPECD_EV_READ | SPECD_EV_HANGUP | SPECD_EV_ERROR)
        let writeBits = UInt32(SPECD_EV_WRITE | SPECD_EV_ERROR)
        var nextTick = ContinuousClock.now + tickInterval
        let timeoutMilliseconds = Int32(tickInterval.components.seconds * 1000 + tickInterval.components.attoseconds / 1_000_000_000_000_000)
        while running.load(ordering: .acquiring) {
            let count = specd_epoll_wait(epollFD, readyFDs, readyEvents, Int32(capacity), timeoutMilliseconds)
            if count > 0 {
                for index in 0..<Int(count) {
                    let fd = readyFDs[index]
                    let flags = readyEvents[index]
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = Glibc.read(wakeFD, &value, 8)
                        continue
                    }
                    if flags & writeBits != 0, let channel = channels[fd] { channel.writable() }
                    if flags & readBits != 0, let channel = channels[fd] {
                        channel.readable()
                    }
                }
            }
            runPendingTasks()
            let now = ContinuousClock.now
            if now >= nextTick {
                nextTick = now + tickInterval
                forEachChannel { $0.tick(now: now) }
            }
        }
        runPendingTasks()
        stopped.signal()
    }

    private func runPendingTasks() {
        while true {
            let tasks = pendingTasks.withLock { tasks -> [@Sendable () -> Void] in
                defer { tasks.removeAll(keepingCapacity: true) }
                return tasks
            }
            if tasks.isEmpty { return }
            for task in tasks { task() }
        }
    }
}
#endif
