"""Hostile and unlucky TCP clients against a running daemon: half-closes, resets and slow readers at the moments
that used to go wrong. Each check prints PASS or FAIL with what it saw; the last line is the tally.

    python3 scripts/hostile_tcp.py NEVER_PORT NEVER_PID ALWAYS_PORT ALWAYS_PID CAPPED_PORT CAPPED_PID

NEVER_* is a daemon under `--fsync never`, ALWAYS_* one under `--fsync always` (its answers wait for the disk, so a
client's end of file more often arrives while its answer is pending), CAPPED_* one with `--loops 1
--max-connections 2` (over the cap, probe connections are evicted oldest first). Loopback only; every loop is bounded.
"""
import os
import signal
import socket
import struct
import subprocess
import sys
import time

NEVER_PORT, NEVER_PID, ALWAYS_PORT, ALWAYS_PID, CAPPED_PORT, CAPPED_PID = (int(arg) for arg in sys.argv[1:7])
results = []


def check(name, ok, detail):
    results.append(ok)
    print(("PASS " if ok else "FAIL ") + name + ": " + detail, flush=True)


def connect(port, rcvbuf=None):
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.connect(("127.0.0.1", port))
    s.settimeout(20)
    return s


def reset(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def cpu_ticks(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def read_to_end(s, slow=range(0), pause=0.0):
    """Everything until EOF; `end` says how the stream ended. Sleeps `pause` after each read that ends in `slow`."""
    data = bytearray()
    end = "eof"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            chunk = s.recv(16384)
        except ConnectionResetError:
            end = "reset"
            break
        except socket.timeout:
            end = "timeout"
            break
        if not chunk:
            break
        data += chunk
        if len(data) in slow:
            time.sleep(pause)
    else:
        end = "deadline"
    return bytes(data), end


def answer_size(port, path):
    s = connect(port)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    data, _ = read_to_end(s)
    s.close()
    return len(data) - len(b"Connection: close\r\n")


def pipeline(count, path="/openapi.json"):
    """`count` GETs, the last with `Connection: close`."""
    one = f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    return one * (count - 1) + f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()


def healthy(port):
    s = connect(port)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data, _ = read_to_end(s)
    s.close()
    return data.startswith(b"HTTP/1.1 200")


# 1. Half-close, then reset with the answer pending: the loop must not spin on the reset (it ran at full CPU until
#    the 75 s keep-alive deadline), and the connections must be closed.
for port, pid, mode in ((NEVER_PORT, NEVER_PID, "never"), (ALWAYS_PORT, ALWAYS_PID, "always")):
    baseline = open_fds(pid)
    clients = []
    for index in range(8):
        s = connect(port)
        s.sendall(b"POST /v1/users/hostile-%d/events/appStarted HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n" % index)
        s.shutdown(socket.SHUT_WR)
        clients.append(s)
    time.sleep(0.3)
    for s in clients:
        s.close()  # the answer is unread: the kernel resets the connection
    time.sleep(0.3)
    before = cpu_ticks(pid)
    time.sleep(2)
    spent = cpu_ticks(pid) - before
    fds = open_fds(pid)
    check(f"reset after half-close ({mode}): no spinning, descriptors closed",
          spent <= 20 and fds <= baseline and healthy(port),
          f"{spent} clock ticks in 2 s idle, fds {fds} (before {baseline})")

# 2. End of file after many pipelined requests (`nc -N`), answers still being written: all arrive whole.
size = answer_size(NEVER_PORT, "/openapi.json")
count = 150
s = connect(NEVER_PORT, rcvbuf=4096)
s.sendall(pipeline(count)[: -len(b"Connection: close\r\n\r\n")] + b"\r\n")
time.sleep(0.5)
s.shutdown(socket.SHUT_WR)
data, end = read_to_end(s, slow=range(0, count * size), pause=0.002)
s.close()
check("half-close after pipelined requests: every answer whole",
      len(data) >= count * size and end == "eof",
      f"{len(data)} of {count * size} bytes, then {end}")

# 3. A FIN with data while the server lingers after `Connection: close`, part of its answer still in the socket:
#    the server reads and discards, so its close does not reset the connection and drop that part.
have_ss = subprocess.run(["sh", "-c", "command -v ss"], capture_output=True).returncode == 0
if have_ss:
    count = 120
    s = connect(NEVER_PORT, rcvbuf=4096)
    local = s.getsockname()[1]
    s.sendall(pipeline(count))
    data = bytearray()
    deadline = time.time() + 30
    while time.time() < deadline:
        state = subprocess.run(["ss", "-tnH", "dst", f"127.0.0.1:{local}"], capture_output=True, text=True).stdout
        if "FIN-WAIT" in state:
            break
        data += s.recv(65536)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)  # the bytes and the FIN in one segment
    s.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    s.shutdown(socket.SHUT_WR)
    rest, end = read_to_end(s)
    data += rest
    s.close()
    check("FIN with data while lingering: the answer's tail still arrives",
          len(data) >= count * size and end == "eof",
          f"{len(data)} of {count * size} bytes, then {end}")
else:
    check("FIN with data while lingering (needs ss from iproute2)", False, "ss not found")

# 4. Half-close with a stray CRLF after a request whose answer waits for the disk: answered with
#    `Connection: close` and closed, not held for the header deadline and sent a 408.
started = time.time()
s = connect(ALWAYS_PORT)
s.sendall(b"POST /v1/users/hostile-crlf/events/appStarted HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n\r\n")
s.shutdown(socket.SHUT_WR)
data, end = read_to_end(s)
s.close()
took = time.time() - started
check("half-close with a stray CRLF: one answer, then the close",
      data.startswith(b"HTTP/1.1 200") and data.count(b"HTTP/1.1 ") == 1 and end == "eof" and took < 5,
      f"{data.count(b'HTTP/1.1 ')} answer(s), {end} after {took:.1f} s")

# 5. A slow reader of a long pipeline: while our answers wait for the socket the server holds the next request
#    back, and that wait is not the client's: no 408 at the header deadline in mid-pipeline, and the last answer
#    (`Connection: close`) is not cut at the linger deadline while it is still being written.
count = 120
s = connect(NEVER_PORT, rcvbuf=4096)
s.sendall(pipeline(count))
total = count * size
data, end = read_to_end(s, slow=range(total - 3_200_000, total - 2_400_000), pause=0.15)
s.close()
check("slow reader of a long pipeline: every answer whole, no 408",
      len(data) >= total and end == "eof" and b"HTTP/1.1 408" not in data,
      f"{len(data)} of {total} bytes, then {end}")

# 6. A stale hang-up event: over the connection cap, accepting a probe evicts the oldest, and the next accept in the
#    same round gets its descriptor number while the round's events still hold the evicted one's reset. The
#    newcomer must be answered, not closed for the event of the connection before it. The daemon is stopped for
#    a moment so that the accepts and the reset land in one round.
slots = [connect(CAPPED_PORT) for _ in range(2)]
killed = 0
for _ in range(10):
    probes = [connect(CAPPED_PORT) for _ in range(16)]
    time.sleep(0.3)
    os.kill(CAPPED_PID, signal.SIGSTOP)
    try:
        a, b = connect(CAPPED_PORT), connect(CAPPED_PORT)
        for s in (a, b):
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        reset(probes[0])
        time.sleep(0.05)
    finally:
        os.kill(CAPPED_PID, signal.SIGCONT)
    try:
        b.settimeout(2)
        answer = b.recv(100).split(b"\r\n")[0]
    except OSError as error:
        answer = repr(error).encode()
    killed += answer != b"HTTP/1.1 200 OK"
    for s in probes[1:] + [a, b]:
        reset(s)
    time.sleep(0.3)
for s in slots:
    s.close()
check("a stale hang-up event does not close the connection given its descriptor", killed == 0,
      f"the newcomer was not answered in {killed} of 10 rounds")

passed = sum(results)
print(f"hostile-tcp: {passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
