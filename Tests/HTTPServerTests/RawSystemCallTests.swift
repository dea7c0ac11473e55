import CLinux
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The loop's reads, sends and waits go through `syscall(2)`, not glibc's cancellable wrappers (CLinux.h): they must
/// answer exactly as `read`, `send` and `epoll_wait` do, errors and `errno` included.
@Suite struct RawSystemCallTests {
    /// A connected pair of non-blocking stream sockets.
    static func pair() -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0)
        return (fds[0], fds[1])
    }

    @Test func readAndSend_moveBytes_andReportAnEmptySocketAsEAGAIN() {
        let (a, b) = Self.pair()
        defer {
            close(a)
            close(b)
        }
        var buffer = [UInt8](repeating: 0, count: 16)
        errno = 0
        #expect(specd_read(b, &buffer, buffer.count) == -1)
        #expect(errno == EAGAIN)
        let message: [UInt8] = Array("hello".utf8)
        #expect(specd_send(a, message, message.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) == 5)
        #expect(specd_read(b, &buffer, buffer.count) == 5)
        #expect(Array(buffer[0..<5]) == message)
    }

    /// A peer gone: the read sees the end of the stream, and a send fails with EPIPE instead of raising SIGPIPE
    /// (which would end the process).
    @Test func aClosedPeer_readsAsEndOfFile_andASendFailsWithEPIPE() {
        let (a, b) = Self.pair()
        defer { close(a) }
        close(b)
        var buffer = [UInt8](repeating: 0, count: 4)
        #expect(specd_read(a, &buffer, buffer.count) == 0)
        errno = 0
        #expect(specd_send(a, [1, 2, 3], 3, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) == -1)
        #expect(errno == EPIPE)
        errno = 0
        #expect(specd_read(-1, &buffer, buffer.count) == -1)
        #expect(errno == EBADF)
    }

    @Test func epollWait_returnsNothingWhenIdle_andTheReadySocketWithItsBits() {
        let (a, b) = Self.pair()
        defer {
            close(a)
            close(b)
        }
        let epoll = specd_epoll_create()
        defer { close(epoll) }
        #expect(specd_epoll_ctl(epoll, 0, b, UInt32(SPECD_EV_READ)) == 0)
        var fds = [Int32](repeating: -1, count: 4)
        var events = [UInt32](repeating: 0, count: 4)
        #expect(specd_epoll_wait(epoll, &fds, &events, 4, 0) == 0)
        #expect(specd_send(a, [7], 1, Int32(MSG_NOSIGNAL)) == 1)
        #expect(specd_epoll_wait(epoll, &fds, &events, 4, 1_000) == 1)
        #expect(fds[0] == b && events[0] & UInt32(SPECD_EV_READ) != 0)
        errno = 0
        #expect(specd_epoll_wait(-1, &fds, &events, 4, 0) == -1)
        #expect(errno == EBADF)
    }
}
