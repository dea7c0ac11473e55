import CLinux
import Foundation
import Glibc
import Synchronization

/// The load client's subscriptions, read by one or more threads, each blocked in its own `epoll_wait` over its
/// share of the sockets. Each event is stamped with the monotonic clock when its bytes come out of `recv`; the
/// stamps stay with their thread until `stop` hands them over.
final class SubscriberSet: @unchecked Sendable {
    struct Delivery {
        let key: Int
        let at: UInt64
    }

    /// One reading thread's sockets and what it saw; touched only by that thread once `start` ran.
    private final class Share: @unchecked Sendable {
        let epollFD = specd_epoll_create()
        var readers: [Int32: SSEStreamReader] = [:]
        var deliveries: [Delivery] = []
    }

    let headsReceived = Atomic<Int>(0)
    let failures = Atomic<Int>(0)
    let delivered = Atomic<Int>(0)
    private let running = Atomic<Bool>(true)
    private let finished = DispatchSemaphore(value: 0)
    private let shares: [Share]

    init(count: Int, threads: Int) {
        shares = (0..<max(1, threads)).map { _ in Share() }
        for share in shares { share.deliveries.reserveCapacity(count * 4 / shares.count) }
    }

    func add(_ fd: Int32) {
        let share = shares[Int(fd) % shares.count]
        share.readers[fd] = SSEStreamReader()
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        specd_epoll_ctl(share.epollFD, 0, fd, UInt32(SPECD_EV_READ))
    }

    func start() {
        for (index, share) in shares.enumerated() {
            let thread = Thread { [self] in readLoop(share) }
            thread.name = "sse-load-reader-\(index)"
            thread.start()
        }
    }

    /// Stops the readers, closes every subscription and returns what was delivered.
    func stop() -> [Delivery] {
        running.store(false, ordering: .releasing)
        for _ in shares { finished.wait() }
        var all: [Delivery] = []
        for share in shares {
            for fd in share.readers.keys { close(fd) }
            close(share.epollFD)
            all += share.deliveries
        }
        return all
    }

    private func readLoop(_ share: Share) {
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
            let count = specd_epoll_wait(share.epollFD, fds, events, Int32(capacity), 50)
            guard count > 0 else { continue }
            for index in 0..<Int(count) {
                let fd = fds[index]
                let received = recv(fd, buffer.baseAddress!, buffer.count, 0)
                if received < 0, errno == EAGAIN || errno == EINTR { continue }
                guard received > 0 else {
                    specd_epoll_ctl(share.epollFD, 2, fd, 0)
                    failures.wrappingAdd(1, ordering: .relaxed)
                    continue
                }
                let at = SSELoad.now()
                let hadHead = share.readers[fd]!.headReceived
                var found = 0
                share.readers[fd]!.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<received])) { key in
                    share.deliveries.append(Delivery(key: key, at: at))
                    found += 1
                }
                if !hadHead, share.readers[fd]!.headReceived { headsReceived.wrappingAdd(1, ordering: .releasing) }
                if share.readers[fd]!.failed {
                    specd_epoll_ctl(share.epollFD, 2, fd, 0)
                    failures.wrappingAdd(1, ordering: .relaxed)
                }
                if found > 0 { delivered.wrappingAdd(found, ordering: .releasing) }
            }
        }
        finished.signal()
    }
}
