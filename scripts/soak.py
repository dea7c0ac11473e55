#!/usr/bin/env python3
"""Soak client for specd: mixed writes, reads and OFREP at a fixed rate, plus STREAMS user streams that reconnect
with Last-Event-ID. Standard library only; loopback only; every loop bounded by --duration.

The stored data is kept at a steady state: once a user has been sent --history-cap donations, its next request
resets that history (DELETE /v1/users/{u}/events/appStarted), as the daemon's own cap of 1 000 recent donations per
event does in production, only sooner. Without it every donation adds an instant to the store for the whole run and
RSS grows with real data, which is not what a leak check should count.

Warm-up lasts at least --warmup seconds and until the daemon's bounded buffers are full: the stream resume window
and the first snapshot. The window keeps streams.retainEvents events (10 000; every write makes one `context`
event); an event leaving it frees its bytes at once, and only its small slot waits for a bulk compaction once
dropped slots outnumber live ones, so the slot array peaks at twice that many: warm-up waits for 2 x
--retain-events acknowledged writes. RSS growth is measured from the end of
warm-up to the end of the load.

Checks at the end:
  * no SSE gaps: every write acknowledged for a user arrives on that user's stream as one `context` event, across
    reconnects (resumed from the retained window with Last-Event-ID), ids strictly increase on every connection, no
    `reset` was needed, and the last `context` event a stream saw is the user's final stored context;
  * RSS growth after warm-up <= --max-rss-growth percent, open descriptors flat, no request errors;
  * p99 of the first and the last minute after warm-up is reported (not judged: the load client shares the CPU).
Prints one JSON object and a verdict line; exit 1 when a check fails.
"""
import argparse, asyncio, json, os, random, statistics, sys, time


class Totals:
    def __init__(self):
        self.latencies = []          # (monotonic end, seconds, kind)
        self.errors = 0
        self.error_kinds = {}        # "kind status" or "kind exception" -> count
        self.acked = {}              # user -> set of seqs acknowledged by writes
        self.seen = {}               # user -> set of context-event ids seen on streams
        self.last_context = {}       # user -> data of the last context event seen
        self.out_of_order = 0
        self.resets = 0
        self.reconnects = 0
        self.stream_failures = 0
        self.donated = {}            # user -> donations since its history was last reset
        self.history_resets = 0
        self.stop_streams_at = float("inf")  # set once every acknowledged write has been seen (or settling timed out)


async def request(reader, writer, method, path, body=None, headers=()):
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(data)}\r\n"
    if body is not None:
        head += "Content-Type: application/json\r\n"
    for name, value in headers:
        head += f"{name}: {value}\r\n"
    writer.write(head.encode() + b"\r\n" + data)
    await writer.drain()
    status_line = await reader.readline()
    status = int(status_line.split()[1])
    length = 0
    closes = False
    while True:
        line = await reader.readline()
        if line in (b"\r\n", b""):
            break
        name, _, value = line.decode("latin-1").partition(":")
        if name.lower() == "content-length":
            length = int(value.strip())
        elif name.lower() == "connection" and value.strip().lower() == "close":
            closes = True  # e.g. the last of a connection's 1 000 requests
    payload = await reader.readexactly(length) if length else b""
    return status, payload, closes


async def worker(args, totals, deadline, users, rng, interval):
    reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
    next_at = time.monotonic()
    while time.monotonic() < deadline:
        user = rng.choice(users)
        kind = rng.choices(["donate", "patch", "flags", "ofrep", "context"], weights=[3, 3, 2, 1, 1])[0]
        if totals.donated.get(user, 0) >= args.history_cap:
            kind = "reset"
            totals.donated[user] = 0  # before the await: no other worker resets it too
        elif kind == "donate":
            totals.donated[user] = totals.donated.get(user, 0) + 1
        started = time.monotonic()
        try:
            if kind == "reset":
                status, payload, closes = await request(reader, writer, "DELETE", f"/v1/users/{user}/events/appStarted")
                totals.history_resets += 1
            elif kind == "donate":
                status, payload, closes = await request(reader, writer, "POST", f"/v1/users/{user}/events/appStarted",
                                                {"appVersion": "1.2"})
            elif kind == "patch":
                status, payload, closes = await request(reader, writer, "PATCH", f"/v1/users/{user}/context",
                                                {"ops": [{"op": "increment", "counter": "screen_views"},
                                                         {"op": "setAttribute", "key": "n", "value": rng.randrange(1000)}]})
            elif kind == "flags":
                status, payload, closes = await request(reader, writer, "GET", f"/v1/users/{user}/flags")
            elif kind == "ofrep":
                status, payload, closes = await request(reader, writer, "POST", "/ofrep/v1/evaluate/flags",
                                                {"context": {"targetingKey": user, "plan": "pro"}})
            else:
                status, payload, closes = await request(reader, writer, "GET", f"/v1/users/{user}")
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError) as error:
            totals.errors += 1
            name = f"{kind} {type(error).__name__}"
            totals.error_kinds[name] = totals.error_kinds.get(name, 0) + 1
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
            continue
        ended = time.monotonic()
        totals.latencies.append((ended, ended - started, kind))
        if closes:
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
        if kind in ("donate", "patch", "reset"):
            if status == 200:
                totals.acked.setdefault(user, set()).add(json.loads(payload)["seq"])
            else:
                totals.errors += 1
                name = f"{kind} {status}"
                totals.error_kinds[name] = totals.error_kinds.get(name, 0) + 1
        elif status not in (200, 404):
            totals.errors += 1
            name = f"{kind} {status}"
            totals.error_kinds[name] = totals.error_kinds.get(name, 0) + 1
        next_at += interval
        delay = next_at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        elif delay < -1:
            next_at = time.monotonic()  # fell behind: do not burst to catch up
    writer.close()


async def stream(args, totals, user, rng):
    """Holds one user stream; reconnects every 20-60 s (and after any drop) with Last-Event-ID, until told to stop."""
    last_id = None
    seen = totals.seen.setdefault(user, set())
    while time.monotonic() < totals.stop_streams_at:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
            head = f"GET /v1/users/{user}/stream?include=context&events=context HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            if last_id is not None:
                head += f"Last-Event-ID: {last_id}\r\n"
            writer.write((head + "\r\n").encode())
            await writer.drain()
            status_line = await reader.readline()
            if not status_line or int(status_line.split()[1]) != 200:
                totals.stream_failures += 1
                writer.close()
                await asyncio.sleep(0.5)
                continue
            while (await reader.readline()) not in (b"\r\n", b""):
                pass
            hold_until = time.monotonic() + rng.uniform(20, 60)
            event_type, event_id, buffer = None, None, b""
            while True:
                remaining = min(hold_until, totals.stop_streams_at) - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    # At most a second at a time, so a stop is seen promptly; a timed-out readline keeps its bytes.
                    size_line = await asyncio.wait_for(reader.readline(), timeout=min(1.0, remaining))
                except asyncio.TimeoutError:
                    continue
                if not size_line:
                    break
                size = int(size_line.strip() or b"0", 16)
                if size == 0:
                    break
                buffer += await reader.readexactly(size + 2)
                buffer = buffer[:-2] if buffer.endswith(b"\r\n") else buffer
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    event_type, event_id = None, None
                    for line in block.decode().split("\n"):
                        if line.startswith("event:"):
                            event_type = line[6:].strip()
                        elif line.startswith("id:"):
                            event_id = line[3:].strip()
                    if event_id is not None:
                        key = tuple(int(part) for part in event_id.split("-"))
                        if last_id is not None and key <= tuple(int(part) for part in last_id.split("-")):
                            totals.out_of_order += 1
                        last_id = event_id
                    if event_type == "reset":
                        totals.resets += 1
                    elif event_type == "context" and event_id is not None:
                        seen.add(event_id)
                        totals.last_context[user] = block.decode().split("data:", 1)[1].strip()
            writer.close()
            totals.reconnects += 1
        except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
            totals.stream_failures += 1
            await asyncio.sleep(0.2)


def process_sample(pid):
    with open(f"/proc/{pid}/status") as status:
        rss_kib = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))
    anonymous_kib = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup") as rollup:
            anonymous_kib = next((int(line.split()[1]) for line in rollup if line.startswith("Anonymous:")), 0)
    except OSError:
        pass
    return {"rss_mib": round(rss_kib / 1024, 1), "anonymous_mib": round(anonymous_kib / 1024, 1),
            "fds": len(os.listdir(f"/proc/{pid}/fd"))}


async def snapshot_seq(port):
    """The seq the daemon's last snapshot covered (`specd_snapshot_seq` in /metrics), or None when unreadable."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        status, payload, _ = await request(reader, writer, "GET", "/metrics")
        writer.close()
    except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
        return None
    for line in payload.decode(errors="replace").splitlines():
        if line.startswith("specd_snapshot_seq "):
            return int(float(line.split()[1]))
    return None


def missing_events(totals):
    # An event's id is its write's seq, or `seq-n` when it was published after a later seq: count events, not ids.
    return sum(max(0, len(seqs) - len(totals.seen.get(user, set()))) for user, seqs in totals.acked.items())


def p99(values):
    return round(statistics.quantiles(values, n=100)[98] * 1000, 2) if len(values) >= 100 else None


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--duration", type=float, default=600)
    parser.add_argument("--warmup", type=float, default=120, help="the shortest warm-up, in seconds")
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--rate", type=float, default=400, help="requests per second over all workers")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--retain-events", type=int, default=10_000,
                        help="the daemon's streams.retainEvents: warm-up lasts until this many writes were acknowledged")
    parser.add_argument("--history-cap", type=int, default=20, help="donations per user before its history is reset")
    parser.add_argument("--max-rss-growth", type=float, default=5.0, help="percent, after warm-up")
    parser.add_argument("--max-settle", type=float, default=30, help="seconds to wait for the last events after the load")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    users = [f"soak-{i}" for i in range(args.streams)]
    totals = Totals()
    start = time.monotonic()
    deadline = start + args.duration
    samples = []                  # (seconds since start, process sample, acknowledged writes, snapshot seq)

    async def sampler():
        while time.monotonic() < deadline:
            acked = sum(len(seqs) for seqs in totals.acked.values())
            samples.append((time.monotonic() - start, process_sample(args.pid), acked, await snapshot_seq(args.port)))
            await asyncio.sleep(5)
        samples.append((time.monotonic() - start, process_sample(args.pid), sum(len(seqs) for seqs in totals.acked.values()),
                        await snapshot_seq(args.port)))

    streams = [asyncio.create_task(stream(args, totals, user, random.Random(rng.random()))) for user in users]
    await asyncio.sleep(2)  # let every stream subscribe before the first write
    workers = [asyncio.create_task(worker(args, totals, deadline, users, random.Random(rng.random()),
                                          args.workers / args.rate)) for _ in range(args.workers)]
    probe = asyncio.create_task(sampler())
    await asyncio.gather(*workers)
    await probe
    # Every acknowledged write must reach its stream; on a busy machine the last ones may still be on their way.
    settle_until = time.monotonic() + args.max_settle
    while missing_events(totals) > 0 and time.monotonic() < settle_until:
        await asyncio.sleep(0.5)
    await asyncio.sleep(1)  # the last context event of each user, after its last write's event
    totals.stop_streams_at = time.monotonic()
    await asyncio.gather(*streams)

    # Warm-up ends at the first sample past --warmup where the resume window's slots are at their high-water mark
    # (twice --retain-events, see the top) and a snapshot has been taken.
    first_snapshot_seq = next((seq for _, _, _, seq in samples if seq), None)
    warm = [(t, sample) for t, sample, acked, seq in samples
            if t >= args.warmup and acked >= 2 * args.retain_events and (seq or 0) > 0]
    warmup_end, first = warm[0] if warm else (None, None)
    last = samples[-1][1]
    measured_s = round(samples[-1][0] - warmup_end, 1) if warmup_end is not None else 0
    window_start = [l for (t, l, _) in totals.latencies if warmup_end is not None and start + warmup_end <= t < start + warmup_end + 60]
    window_end = [l for (t, l, _) in totals.latencies if t >= deadline - 60]
    missing = missing_events(totals)
    stale = 0
    reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
    for user in totals.acked:
        status, payload, closes = await request(reader, writer, "GET", f"/v1/users/{user}")
        stored = json.loads(payload)
        seen_last = json.loads(totals.last_context.get(user, "{}"))
        if (seen_last.get("counters"), seen_last.get("attributes")) != (stored.get("counters"), stored.get("attributes")):
            stale += 1
        if closes:
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
    writer.close()
    acked = sum(len(seqs) for seqs in totals.acked.values())
    growth = (last["rss_mib"] - first["rss_mib"]) / first["rss_mib"] * 100 if first else None
    snapshots_measured = len({seq for t, _, _, seq in samples if warmup_end is not None and t >= warmup_end and seq})
    result = {
        "duration_s": args.duration, "requests": len(totals.latencies), "errors": totals.errors, "error_kinds": totals.error_kinds,
        "acknowledged_writes": acked, "history_resets": totals.history_resets, "missing_stream_events": missing,
        "stale_final_context": stale, "ids_out_of_order": totals.out_of_order, "resets": totals.resets,
        "reconnects": totals.reconnects, "stream_failures": totals.stream_failures,
        "warmup_end_s": round(warmup_end, 1) if warmup_end is not None else None, "measured_s": measured_s,
        "first_snapshot_seq": first_snapshot_seq, "snapshots_while_measured": snapshots_measured,
        "rss_mib_after_warmup": first["rss_mib"] if first else None, "rss_mib_end": last["rss_mib"],
        "rss_growth_pct": round(growth, 2) if growth is not None else None,
        "anonymous_mib_after_warmup": first["anonymous_mib"] if first else None, "anonymous_mib_end": last["anonymous_mib"],
        "fds_after_warmup": first["fds"] if first else None, "fds_end": last["fds"],
        "p99_ms_first_minute": p99(window_start), "p99_ms_last_minute": p99(window_end),
        "rss_mib_every_30s": [sample["rss_mib"] for t, sample, _, _ in samples[::6]],
    }
    print(json.dumps(result))
    failures = []
    if first is None:
        failures.append(f"warm-up never ended (needs {2 * args.retain_events} acknowledged writes and a snapshot after "
                        f"{args.warmup:g} s; got {acked} writes, snapshot seq {first_snapshot_seq})")
    elif measured_s < 120:
        failures.append(f"only {measured_s} s measured after warm-up: run longer")
    else:
        if growth > args.max_rss_growth:
            failures.append(f"RSS grew {growth:.1f} % after warm-up (limit {args.max_rss_growth:g} %)")
        if abs(last["fds"] - first["fds"]) > max(10, args.streams // 20):
            failures.append(f"descriptors went from {first['fds']} to {last['fds']}")
    for name, count in (("stream events missing", missing), ("final contexts stale", stale),
                        ("ids out of order", totals.out_of_order), ("resets", totals.resets), ("request errors", totals.errors)):
        if count:
            failures.append(f"{count} {name}")
    summary = (f"RSS {result['rss_mib_after_warmup']} -> {result['rss_mib_end']} MiB ({result['rss_growth_pct']} %) over "
               f"{measured_s} s after a {result['warmup_end_s']} s warm-up, fds {result['fds_after_warmup']} -> {result['fds_end']}, "
               f"p99 {result['p99_ms_first_minute']} -> {result['p99_ms_last_minute']} ms, {acked} writes, {missing} events missing")
    print(("soak verdict: PASS: " + summary) if not failures else ("soak verdict: FAIL: " + "; ".join(failures) + " (" + summary + ")"),
          file=sys.stderr)
    sys.exit(0 if not failures else 1)


asyncio.run(main())
