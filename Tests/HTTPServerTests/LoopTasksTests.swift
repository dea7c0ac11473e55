#if canImport(Glibc)
import Synchronization
import Testing

@testable import HTTPServer

/// `LoopTasks` run on the calling thread, as the loop runs them: queued from anywhere, run in order, tasks that a
/// task queues run in the same call, and nothing a task captured is kept once it ran.
@Suite struct LoopTasksTests {
    final class Marker: Sendable {}

    @Test func enqueue_saysWhetherTheTaskIsTheFirstWaiting_andHasPendingFollows() {
        let tasks = LoopTasks()
        #expect(!tasks.hasPending)
        #expect(tasks.enqueue {})
        #expect(!tasks.enqueue {})
        #expect(tasks.hasPending)
        #expect(tasks.runQueued())
        #expect(!tasks.hasPending)
        #expect(!tasks.runQueued())
        #expect(tasks.enqueue {})
    }

    @Test func tasksRunInOrder_andThoseATaskQueuesRunInTheSameCall() {
        let tasks = LoopTasks()
        let order = Mutex<[Int]>([])
        for index in 0..<3 {
            _ = tasks.enqueue {
                order.withLock { $0.append(index) }
                if index == 1 { _ = tasks.enqueue { order.withLock { $0.append(10) } } }
            }
        }
        #expect(tasks.runQueued())
        #expect(order.withLock { $0 } == [0, 1, 2, 10])
        #expect(!tasks.hasPending)
    }

    /// The list the tasks ran from is kept for the next ones, emptied: a task's captures must not live on in it.
    @Test func whatATaskCaptured_isReleasedOnceItRan() {
        let tasks = LoopTasks()
        weak var released: Marker?
        do {
            let marker = Marker()
            released = marker
            _ = tasks.enqueue { _ = marker }
        }
        #expect(released != nil)
        tasks.runQueued()
        #expect(released == nil)
    }

    /// Rounds after a burst: every task of every round runs once (the lists swapped each time stay sound).
    @Test func manyRoundsOfTasks_eachTaskRunsOnce() {
        let tasks = LoopTasks()
        let count = Mutex(0)
        for round in 0..<50 {
            for _ in 0..<(round == 10 ? LoopTasks.keptCapacity + 5 : round % 7) {
                _ = tasks.enqueue { count.withLock { $0 += 1 } }
            }
            tasks.runQueued()
        }
        let expected = (0..<50).reduce(0) { $0 + ($1 == 10 ? LoopTasks.keptCapacity + 5 : $1 % 7) }
        #expect(count.withLock { $0 } == expected)
    }
}
#endif
