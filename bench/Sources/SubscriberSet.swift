import CLinux
import Foundation
import Glibc
import Synchronization

/// The load client's subscriptions, read by one thread blocked in `epoll_wait`. Each event is stamped with the
/// monotonic clock when its bytes come out of `read`; the stamps stay on that thread until `stop` hands them over.
final class SubscriberSet: @unchecked Sendable {
    struct Delivery {
        let key: Int
        let at: UInt64
    }

    let headsReceived = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)
    private let epollFD = specd_epoll_create()
    /// Indexed by file descriptor; touched only by the reader thread once `start` ran.
    private var readers: [Int32: SSEStreamReader] = [:]
    private var deliveries: [Delivery] = []

    init(count: Int) {
        readers.reserveCapacity(count)
        deliveries.reserveCapacity(count * 4)
    }

    func add(_ fd: Int32) {
        readers[fd] = SSEStreamReader()
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        specd_epoll_ctl(epollFD, 0, fd, UInt32(SPECD_EV_READ))
    }

    func start() {
        let thread = Thread { [self] in readLoop() }
        thread.name = "sse-load-reader"
        thread.start()
    }

    /// Stops the reader, closes every subscription and returns what was delivered.
    func stop() -> [Delivery] {
        running.store(false, ordering: .releasing)
        finished.wait()
        for fd in readers.keys { close(fd) }
        close(epollFD)
        return deliveries
    }

    private func readLoop() {
        let capacity = 1024
        let fds = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let events = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        defer {
            fds.deallocate()
            events.deallocate()
            buffer.deallocate()
        }
        while running.load(ordering: .acquiring) {
            let count = specd_epoll_wait(epollFD, fds, events, Int32(capacity), 50)
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let fd = fds[index]
                let received = recv(fd, buffer.baseAddress!, buffer.count, 0)
                if received < 0, errno == EAGAIN || errno == EINTR { continue }
                guard received > 0 else {
                    specd_epoll_ctl(epollFD, 2, fd, 0)
                    failures.wrappingAdd(1, ordering: .relaxed)
                    continue
                }
                let at = SSELoad.now()
                let hadHead = readers[fd]!.headReceived
                var found = 0
                readers[fd]!.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<received])) { key in
                    deliveries.append(Delivery(key: key, at: at))
                    found += 1
                }
                if !hadHead, readers[fd]!.headReceived { headsReceived.wrappingAdd(1, ordering: .releasing) }
                if readers[fd]!.failed {
                    specd_epoll_ctl(epollFD, 2, fd, 0)
                    failures.wrappingAdd(1, ordering: .relaxed)
                }
                if found > 0 { delivered.wrappingAdd(found, ordering: .releasing) }
            }
        }
        finished.signal()
    }
}
