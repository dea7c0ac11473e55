"""Driver of scripts/cluster-test.sh: starts replicas and nginx on loopback, runs the checks, stops what it started."""
import http.client, json, os, re, shutil, signal, socket, subprocess, sys, tempfile, time, urllib.parse, zlib

BIN, NGINX_CONF = sys.argv[1], sys.argv[2]
WORK = tempfile.mkdtemp(prefix="specd-cluster-")
APP = "Bearer cluster-test-app-secret"
OPS = "Bearer cluster-test-ops-secret"
passed, failed = 0, 0
procs = {}


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + name)
    else:
        failed += 1
        print("FAIL " + name + ("  " + str(detail)[:400] if detail else ""))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def owner(user, n):
    return ((zlib.crc32(user.encode()) >> 16) & 0x7FFF) % n


with open(os.path.join(WORK, "specd.json"), "w") as f:
    json.dump({"tokens": [{"name": "app", "secret": APP.split()[1], "scopes": ["evaluate", "write"]},
                          {"name": "ops", "secret": OPS.split()[1], "scopes": ["admin"]}]}, f)


def start_replica(i, ports):
    members = ",".join("http://127.0.0.1:%d" % p for p in ports)
    log = open(os.path.join(WORK, "replica-%d.log" % i), "ab")
    procs[("specd", i)] = subprocess.Popen(
        [BIN, "serve", "--config", os.path.join(WORK, "specd.json"), "--port", str(ports[i]), "--fsync", "always",
         "--data-dir", data_dir(i, len(ports)), "--cluster-self", str(i), "--cluster-members", members],
        stdout=subprocess.DEVNULL, stderr=log)


def data_dir(i, n):
    return os.path.join(WORK, "data-%d-of-%d" % (i, n))


def wait_ready(port, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if request(port, "GET", "/readyz")[0] == 200:
                return True
        except OSError:
            pass
        time.sleep(0.05)
    return False


def stop(key, sig=signal.SIGTERM):
    proc = procs.pop(key, None)
    if proc is None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def start_nginx(ports, front):
    text = open(NGINX_CONF).read()
    servers = "".join("    server 127.0.0.1:%d;\n" % p for p in ports)
    text = re.sub(r"(    server specd-\d+\.specd:8080;\n)+", servers, text)
    text = text.replace("listen 80;", "listen 127.0.0.1:%d;" % front)
    nginx_dir = os.path.join(WORK, "nginx-%d" % len(ports))
    os.makedirs(nginx_dir, exist_ok=True)
    with open(os.path.join(nginx_dir, "sharding.conf"), "w") as f:
        f.write(text)
    with open(os.path.join(nginx_dir, "nginx.conf"), "w") as f:
        f.write("worker_processes 1; pid %s/nginx.pid; error_log %s/error.log warn;\n" % (nginx_dir, nginx_dir))
        f.write("events { worker_connections 1024; }\n")
        f.write("http { access_log off; client_body_temp_path %s; proxy_temp_path %s; fastcgi_temp_path %s;\n" % ((nginx_dir,) * 3))
        f.write("  uwsgi_temp_path %s; scgi_temp_path %s; include %s/sharding.conf; }\n" % (nginx_dir, nginx_dir, nginx_dir))
    procs[("nginx", 0)] = subprocess.Popen(["nginx", "-p", nginx_dir, "-c", os.path.join(nginx_dir, "nginx.conf"), "-g", "daemon off;"],
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", front), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)


connections = {}


def request(port, method, target, body=None, headers=None, auth=APP):
    conn = connections.get(port)
    if conn is None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        connections[port] = conn
    all_headers = {"Authorization": auth} if auth else {}
    if body is not None:
        all_headers["Content-Type"] = "application/json"
        body = json.dumps(body)
    all_headers.update(headers or {})
    try:
        conn.request(method, target, body=body, headers=all_headers)
        response = conn.getresponse()
        data = response.read()
    except (OSError, http.client.HTTPException):
        conn.close()
        connections.pop(port, None)
        raise
    if response.getheader("Connection", "").lower() == "close":
        conn.close()
        connections.pop(port, None)
    return response.status, dict(response.getheaders()), data


def path_user(user):
    return urllib.parse.quote(user, safe="")


USERS = ["cu-%03d" % i for i in range(24)] + ["cu-café-1", "cu-日本-2", "cu-a/b-3", "cu-sp ace-4", "cu-plus+5"]
FLAG = "promo-banner"


def answers(port, user):
    """Every read a client could make for `user`, as (name, status, body) through `port`."""
    u = path_user(user)
    out = []
    for name, method, target, body in [
        ("rest user", "GET", "/v1/users/%s" % u, None),
        ("rest flags", "GET", "/v1/users/%s/flags" % u, None),
        ("rest flag", "GET", "/v1/users/%s/flags/%s" % (u, FLAG), None),
        ("ofrep single", "POST", "/ofrep/v1/evaluate/flags/%s" % FLAG, {"context": {"targetingKey": user}}),
        ("ofrep bulk", "POST", "/ofrep/v1/evaluate/flags", {"context": {"targetingKey": user}}),
        ("evaluate user", "POST", "/v1/evaluate", {"user": user, "context": {}}),
    ]:
        status, _, data = request(port, method, target, body)
        if name == "evaluate user" and status == 200:
            # The answer names the instant it was evaluated at; everything else must match byte for byte.
            data = re.sub(rb'"at":"[^"]*"', b'"at":""', data)
        out.append((name, status, data))
    return out


def write(port, user, step):
    ops = [{"op": "increment", "counter": "sessions"}, {"op": "setAttribute", "key": "step", "value": step}]
    return request(port, "PATCH", "/v1/users/%s/context" % path_user(user), {"ops": ops})


def read_stream_until(port, users, seconds, write_fn):
    """Opens GET /v1/stream?include=context on `port`, calls write_fn, returns the context events' users and ids."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=seconds)
    sock.sendall(("GET /v1/stream?include=context&events=context HTTP/1.1\r\nHost: t\r\nAuthorization: %s\r\n\r\n" % OPS).encode())
    buffer = b""
    deadline = time.time() + seconds
    while b"\r\n\r\n" not in buffer and time.time() < deadline:
        buffer += sock.recv(65536)
    time.sleep(0.5)  # every member's own stream opened
    write_fn()
    seen, ids = set(), []
    while time.time() < deadline and not users <= seen:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buffer += chunk
        for block in buffer.decode("utf-8", "replace").split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
            if fields.get("event") == "context":
                try:
                    seen.add(json.loads(fields["data"])["user"])
                    ids.append(fields.get("id", ""))
                except (ValueError, KeyError):
                    pass
    sock.close()
    return seen, ids


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


try:
    ports = [free_port() for _ in range(3)]
    front = free_port()
    for i in range(3):
        start_replica(i, ports)
    check("three replicas ready", all(wait_ready(p) for p in ports))
    start_nginx(ports, front)
    time.sleep(2.5)  # one probe round: every member sees the others up

    # Writes enter through nginx and through each replica directly (most of them forwarded).
    entries = [front] + ports
    acknowledged = {}
    statuses = []
    for index, user in enumerate(USERS):
        status, _, data = write(entries[index % 4], user, index)
        statuses.append(status)
        if status == 200:
            acknowledged[user] = True
    check("writes through nginx and every replica acknowledged", all(s == 200 for s in statuses), statuses)

    # Ownership: a request marked as already forwarded is answered only by the owner (421 elsewhere).
    placement_ok = True
    for user in USERS:
        codes = [request(p, "GET", "/v1/users/%s" % path_user(user), headers={"X-Specd-Forwarded": "9"})[0] for p in ports]
        expected = [200 if i == owner(user, 3) else 421 for i in range(3)]
        if codes != expected:
            placement_ok = False
            print("  placement", user, codes, expected)
    check("each user is held by its owner alone (421 elsewhere on a marked request)", placement_ok)

    # Same answers whichever replica a request enters.
    baseline = {}
    same = True
    for user in USERS:
        per_entry = [answers(p, user) for p in entries]
        baseline[user] = per_entry[0]
        for other in per_entry[1:]:
            for (name, s1, b1), (_, s2, b2) in zip(per_entry[0], other):
                if s1 != s2 or b1 != b2 or s1 != 200:
                    same = False
                    print("  differs", user, name, s1, s2, b1[:120], b2[:120])
    check("REST, OFREP single/bulk and /v1/evaluate answer the same through nginx and every replica", same)
    track = [request(p, "POST", "/ofrep/v1/track", {"context": {"targetingKey": USERS[0]}, "trackingEventName": "checkout"})[0] for p in entries]
    check("OFREP track answers the same wherever it enters", len(set(track)) == 1, track)
    events_codes = []
    for p in entries:
        sock = socket.create_connection(("127.0.0.1", p), timeout=5)
        sock.sendall(("GET /ofrep/v1/events?targetingKey=%s HTTP/1.1\r\nHost: t\r\nAuthorization: %s\r\n\r\n" % (path_user(USERS[1]), APP)).encode())
        head = sock.recv(4096).decode("latin-1")
        events_codes.append(head.split(" ")[1] if " " in head else "?")
        sock.close()
    check("OFREP event stream opens wherever it enters", events_codes == ["200"] * 4, events_codes)

    # A browser's stream ticket: issued by a replica that does not own the user, the stream opened through nginx
    # (which sends it to the owner) hears a flag change; the ticket opens nothing a second time.
    ticket_user = "cu-ticket-holder"
    issuer = ports[(owner(ticket_user, 3) + 1) % 3]
    status, _, data = request(issuer, "POST", "/v1/stream-tickets", {"stream": "/v1/users/%s/stream" % ticket_user})
    ticket = json.loads(data).get("ticket", "") if status == 200 else ""
    stream_target = "/v1/users/%s/stream?ticket=%s" % (ticket_user, urllib.parse.quote(ticket, safe=""))
    sock = socket.create_connection(("127.0.0.1", front), timeout=10)
    sock.sendall(("GET %s HTTP/1.1\r\nHost: t\r\n\r\n" % stream_target).encode())
    buffer = b""
    deadline = time.time() + 10
    while b"\r\n\r\n" not in buffer and time.time() < deadline:
        buffer += sock.recv(65536)
    opened = buffer.startswith(b"HTTP/1.1 200")
    request(front, "PATCH", "/v1/users/%s/context" % ticket_user, {"ops": [{"op": "increment", "counter": "editor_opened", "by": 2}]})
    heard = False
    while opened and not heard and time.time() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buffer += chunk
        heard = any("event: flag" in block and "onboarding-tip" in block for block in buffer.decode("utf-8", "replace").split("\n\n"))
    sock.close()
    check("a ticket from another replica opens a user stream through nginx that hears a flag change", opened and heard,
          (status, buffer[:300]))
    again = request(front, "GET", stream_target, auth=None)
    check("the ticket opens nothing a second time (401 invalid_ticket)", again[0] == 401 and b"invalid_ticket" in again[2], again[0])

    # Files: each user's id appears in exactly one replica's data directory.
    def holders(user, n):
        needle = user.encode()
        found = []
        for i in range(n):
            directory = data_dir(i, n)
            for name in os.listdir(directory):
                with open(os.path.join(directory, name), "rb") as f:
                    if needle in f.read():
                        found.append(i)
                        break
        return found
    on_disk = {user: holders(user, 3) for user in USERS}
    check("each user's records are in exactly its owner's data directory",
          all(on_disk[u] == [owner(u, 3)] for u in USERS), {u: h for u, h in on_disk.items() if h != [owner(u, 3)]})

    # The merged global stream on one replica sees writes owned by all three.
    targets = {}
    for user in USERS:
        targets.setdefault(owner(user, 3), user)
    seen, ids = read_stream_until(ports[1], set(targets.values()), 15,
                                  lambda: [write(front, u, "stream") for u in targets.values()])
    check("merged global stream on one replica sees writes on all three", set(targets.values()) <= seen, (seen, targets))
    check("merged stream ids are vectors over the members", bool(ids) and all(re.fullmatch(r"\d-\d+(-\d+)?(\.\d-\d+(-\d+)?)*", i) for i in ids), ids[-3:])

    # kill -9 one replica: its users answer 503 + Retry-After, the others as before.
    for user in USERS:
        baseline[user] = answers(front, user)
    watcher = socket.create_connection(("127.0.0.1", ports[0]), timeout=10)
    watcher.sendall(("GET /v1/stream?events=rules HTTP/1.1\r\nHost: t\r\nAuthorization: %s\r\n\r\n" % OPS).encode())
    time.sleep(0.5)
    stop(("specd", 2), signal.SIGKILL)
    time.sleep(0.3)
    down_ok, others_ok = True, True
    for user in USERS:
        for p in [front, ports[0], ports[1]]:
            status, headers, data = request(p, "GET", "/v1/users/%s" % path_user(user))
            if owner(user, 3) == 2:
                if status != 503 or not headers.get("Retry-After", "").isdigit():
                    down_ok = False
                    print("  down user", user, p, status, headers.get("Retry-After"))
                status, _, _ = request(p, "POST", "/ofrep/v1/evaluate/flags", {"context": {"targetingKey": user}})
                if status != 503:
                    down_ok = False
                    print("  down bulk", user, p, status)
            elif status != 200 or data != baseline[user][0][2]:
                others_ok = False
                print("  other user", user, p, status)
    check("after kill -9, the killed replica's users get 503 + Retry-After everywhere", down_ok)
    check("after kill -9, every other user answers as before", others_ok)

    start_replica(2, ports)
    check("killed replica restarts", wait_ready(ports[2]))
    time.sleep(0.3)
    back = all(answers(front, u)[0] == baseline[u][0] for u in USERS)
    check("after restart, everything acknowledged is back", back)
    member_events = b""
    deadline = time.time() + 8
    while time.time() < deadline and member_events.count(b"event: member") < 2:
        try:
            member_events += watcher.recv(65536)
        except socket.timeout:
            break
    watcher.close()
    check("the merged stream announced member 2 down, then up",
          b'{"member":2,"state":"down"}' in member_events and b'{"member":2,"state":"up"}' in member_events
          and member_events.index(b'"state":"down"') < member_events.index(b'"state":"up"'), member_events[-300:])
    final = {u: answers(front, u) for u in USERS}

    # Forwarding overhead: an OFREP single evaluation sent to its owner vs to another replica.
    user = USERS[0]
    own, other = ports[owner(user, 3)], ports[(owner(user, 3) + 1) % 3]
    timings = {}
    for name, port in [("direct", own), ("forwarded", other)]:
        samples = []
        for _ in range(50):
            request(port, "POST", "/ofrep/v1/evaluate/flags/%s" % FLAG, {"context": {"targetingKey": user}})
        for _ in range(400):
            started = time.perf_counter()
            request(port, "POST", "/ofrep/v1/evaluate/flags/%s" % FLAG, {"context": {"targetingKey": user}})
            samples.append((time.perf_counter() - started) * 1000)
        timings[name] = (percentile(samples, 0.5), percentile(samples, 0.99))
    print("overhead: OFREP single, 400 calls each: direct p50 %.3f ms p99 %.3f ms; forwarded p50 %.3f ms p99 %.3f ms"
          % (timings["direct"] + timings["forwarded"]))

    # Offline reshard 3 -> 4: stop everything, reshard, start four replicas, every user answers the same.
    stop(("nginx", 0))
    for i in range(3):
        stop(("specd", i))
    for conn in connections.values():
        conn.close()
    connections.clear()
    result = subprocess.run([BIN, "reshard", "--from"] + [data_dir(i, 3) for i in range(3)] + ["--to"] + [data_dir(i, 4) for i in range(4)]
                            + ["--members", "4"], capture_output=True, text=True)
    check("reshard 3 -> 4 succeeds", result.returncode == 0, result.stdout + result.stderr)
    ports4 = ports + [free_port()]
    front4 = free_port()
    for i in range(4):
        start_replica(i, ports4)
    check("four replicas ready", all(wait_ready(p) for p in ports4))
    start_nginx(ports4, front4)
    time.sleep(2.5)
    same4 = True
    for user in USERS:
        for p in [front4] + ports4:
            got = answers(p, user)
            if [(n, s, b) for n, s, b in got] != final[user]:
                same4 = False
                print("  after reshard", user, p, [(n, s) for n, s, _ in got])
    check("after reshard, every user answers the same through nginx and every replica", same4)
    on_disk4 = {user: holders(user, 4) for user in USERS}
    check("after reshard, each user's records are in exactly its new owner's directory",
          all(on_disk4[u] == [owner(u, 4)] for u in USERS), {u: h for u, h in on_disk4.items() if h != [owner(u, 4)]})
finally:
    for key in list(procs):
        stop(key)
    shutil.rmtree(WORK, ignore_errors=True)

print("cluster: %d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
