#if canImport(Glibc)
import CLinux
import Foundation
import Glibc
import Synchronization

/// One thread blocked in `epoll_wait`, level-triggered, owning its channels outright. Other threads hand it work
/// through a locked task list and an `eventfd` wake-up.
///
/// Deadlines are checked in slices: each wake-up ticks the next tenth of the descriptors, so every channel is
/// ticked once per `tickInterval` but no request ever waits behind a sweep of all ten thousand streams.
final class EpollEventLoop: EventLoop, @unchecked Sendable {
    private static let tickSlices = 10
    private let epollFD: Int32
    private let wakeFD: Int32
    /// Indexed by descriptor (descriptors are small and dense); touched only on the loop thread.
    private var channels: [Channel?] = []
    private var channelCount = 0
    private var tickCursor = 0
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
        let index = Int(channel.fd)
        if index >= channels.count { channels += Array(repeating: nil, count: max(index + 1 - channels.count, channels.count)) }
        if channels[index] == nil { channelCount += 1 }
        channels[index] = channel
        specd_epoll_ctl(epollFD, 0, channel.fd, UInt32(SPECD_EV_READ))
    }

    func setInterest(_ channel: Channel, read: Bool, write: Bool) {
        let interest = (read ? UInt32(SPECD_EV_READ) : 0) | (write ? UInt32(SPECD_EV_WRITE) : 0)
        specd_epoll_ctl(epollFD, 1, channel.fd, interest)
    }

    func close(_ channel: Channel) {
        let index = Int(channel.fd)
        guard index < channels.count, channels[index] === channel else { return }
        channels[index] = nil
        channelCount -= 1
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
        for channel in channels.compactMap({ $0 }) { body(channel) }
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
        let sliceInterval = tickInterval / Self.tickSlices
        var nextSlice = ContinuousClock.now + sliceInterval
        let timeoutMilliseconds = Int32(max(1, sliceInterval.components.seconds * 1000 + sliceInterval.components.attoseconds / 1_000_000_000_000_000))
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
                    if flags & writeBits != 0, let channel = channel(fd) { channel.writable() }
                    if flags & readBits != 0, let channel = channel(fd) { channel.readable() }
                }
            }
            runPendingTasks()
            let now = ContinuousClock.now
            if now >= nextSlice {
                nextSlice = now + sliceInterval
                tickNextSlice(now: now)
            }
        }
        runPendingTasks()
        stopped.signal()
    }

    private func channel(_ fd: Int32) -> Channel? {
        Int(fd) < channels.count ? channels[Int(fd)] : nil
    }

    private func tickNextSlice(now: ContinuousClock.Instant) {
        guard channelCount > 0 else { return }
        let width = (channels.count + Self.tickSlices - 1) / Self.tickSlices
        if tickCursor >= channels.count { tickCursor = 0 }
        let end = min(channels.count, tickCursor + width)
        for index in tickCursor..<end {
            // Bound first: a tick may close the channel, which writes to `channels`.
            if let channel = channels[index] { channel.tick(now: now) }
        }
        tickCursor = end
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
