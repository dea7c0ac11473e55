#if canImport(Glibc)
import CLinux
import Foundation
import Synchronization
import Testing

@testable import HTTPServer

/// Threads are named where the system shows them (`top -H`, `ps -L`, profilers: /proc/…/task/N/comm), not only on
/// Foundation's `Thread` object: a name set on the object before `start` never reached the kernel, and every thread
/// of the daemon showed as the executable's name.
@Suite struct ThreadNameTests {
    /// The name the kernel holds for a thread that runs `name` first.
    private func kernelName(afterNaming name: String) -> String? {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            specd_name_current_thread(name)
            seen.withLock { $0 = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) }
            done.signal()
        }.start()
        _ = done.wait(timeout: .now() + 10)
        return seen.withLock { $0 }?.trimmingCharacters(in: .newlines)
    }

    @Test func aShortName_isTheThreadsNameInTheKernel() {
        #expect(kernelName(afterNaming: "specd-epoll") == "specd-epoll")
        #expect(kernelName(afterNaming: "specd-log-fsync") == "specd-log-fsync")
    }

    /// The kernel keeps 15 bytes; `pthread_setname_np` refuses a longer name whole, which left the thread unnamed.
    @Test func aLongName_isCutAtFifteenBytes_onACharacterBoundary() {
        #expect(kernelName(afterNaming: "specd-hook-12-345") == "specd-hook-12-3")
        // "é" is two bytes, the 15th and 16th: cut before it, not inside it.
        #expect(kernelName(afterNaming: "specd-merge-ab\u{E9}") == "specd-merge-ab")
        // A three-byte character from the 14th byte: cut before it too.
        #expect(kernelName(afterNaming: "specd-merge-a\u{20AC}x") == "specd-merge-a")
    }

    @Test func theEventLoopsThread_isNamedSpecdEpoll() throws {
        let loop = EpollEventLoop(tickInterval: .seconds(60))
        loop.start()
        defer { loop.stop() }
        let named = DispatchSemaphore(value: 0)
        let seen = Mutex<String?>(nil)
        loop.execute {
            seen.withLock { $0 = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) }
            named.signal()
        }
        _ = named.wait(timeout: .now() + 10)
        #expect(seen.withLock { $0 }?.trimmingCharacters(in: .newlines) == "specd-epoll")
    }
}
#endif
