import Dispatch
import Foundation
import HTTP

#if canImport(Glibc)
import Glibc
#endif

/// Readiness through Dispatch sources on one serial queue per loop: the design's first choice, kept behind the
/// same interface as the epoll loop so the two can be benchmarked against each other.
final class DispatchEventLoop: EventLoop, @unchecked Sendable {
    private struct Watch {
        let channel: Channel
        let read: DispatchSourceRead
        var readSuspended = false
        var write: DispatchSourceWrite?
    }

    let queue: DispatchQueue
    private let key = DispatchSpecificKey<UInt8>()
    /// Touched only on `queue`.
    private var watches: [Int32: Watch] = [:]
    private var timer: DispatchSourceTimer?
    private let tickInterval: Duration

    init(label: String, tickInterval: Duration = .milliseconds(250)) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: key, value: 1)
        self.tickInterval = tickInterval
    }

    var inEventLoop: Bool { DispatchQueue.getSpecific(key: key) != nil }
    /// Dispatch keeps what waits to itself.
    var hasWaitingWork: Bool { true }

    /// Dispatch hands out events one by one: each call reads the clock.
    var now: MonotonicInstant { .now }

    /// Dispatch hands out events one by one; there is no end of a round to hook.
    func addIterationHook(_ hook: @escaping @Sendable () -> Void, gatherWhile pending: (@Sendable () -> Bool)?) -> Bool { false }

    func sendAtRoundEnd(_ channel: Channel) -> Bool { false }
    func repliedAtOnce() {}

    /// The Dispatch loop ticks every channel on its timer; it does not need the hint.
    func setDeadline(_ channel: Channel, _ deadline: MonotonicInstant?) {}

    func add(_ channel: Channel) {
        let source = DispatchSource.makeReadSource(fileDescriptor: channel.fd, queue: queue)
        source.setEventHandler { [unowned channel] in channel.readable() }
        watches[channel.fd] = Watch(channel: channel, read: source)
        source.resume()
    }

    /// A read source fires again while bytes remain: nothing to do.
    func readAgain(_ channel: Channel) {}

    func setInterest(_ channel: Channel, read: Bool, write: Bool) {
        guard var watch = watches[channel.fd] else { return }
        if read, watch.readSuspended {
            watch.read.resume()
            watch.readSuspended = false
        } else if !read, !watch.readSuspended {
            watch.read.suspend()
            watch.readSuspended = true
        }
        if write, watch.write == nil {
            let source = DispatchSource.makeWriteSource(fileDescriptor: channel.fd, queue: queue)
            source.setEventHandler { [unowned channel] in channel.writable() }
            watch.write = source
            source.resume()
        } else if !write, let source = watch.write {
            source.cancel()
            watch.write = nil
        }
        watches[channel.fd] = watch
    }

    func close(_ channel: Channel) {
        guard let watch = watches.removeValue(forKey: channel.fd) else { return }
        watch.write?.cancel()
        let fd = channel.fd
        // The descriptor may only be closed once Dispatch has stopped watching it.
        watch.read.setCancelHandler { _ = Glibc.close(fd) }
        if watch.readSuspended { watch.read.resume() }
        watch.read.cancel()
    }

    func execute(_ task: @escaping @Sendable () -> Void) {
        queue.async(execute: task)
    }

    func forEachChannel(_ body: (Channel) -> Void) {
        for watch in Array(watches.values) { body(watch.channel) }
    }

    func start() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = DispatchTimeInterval.milliseconds(Int(tickInterval.millisecondsForTimers))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(20))
        timer.setEventHandler { [unowned self] in
            let now = MonotonicInstant.now
            forEachChannel { $0.tick(now: now) }
        }
        self.timer = timer
        timer.resume()
    }

    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }
}
