#!/usr/bin/env python3
"""Soak client for specd: mixed writes, reads and OFREP at a fixed rate, plus STREAMS user streams that reconnect
with Last-Event-ID. Standard library only; loopback only; every loop bounded by --duration.

Checks at the end:
  * no SSE gaps: every write acknowledged for a user arrives on that user's stream as one `context` event, across
    reconnects (resumed from the retained window with Last-Event-ID), ids strictly increase on every connection, no
    `reset` was needed, and the last `context` event a stream saw is the user's final stored context;
  * RSS growth after warm-up, open descriptors at the start and the end, p99 of the first and the last minute.
Prints one JSON object; exit 1 when a check fails.
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
        started = time.monotonic()
        try:
            if kind == "donate":
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
        if kind in ("donate", "patch"):
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


async def stream(args, totals, deadline, user, rng):
    """Holds one user stream; reconnects every 20-60 s (and after any drop) with Last-Event-ID."""
    last_id = None
    seen = totals.seen.setdefault(user, set())
    while time.monotonic() < deadline + args.settle:
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
            hold_until = min(time.monotonic() + rng.uniform(20, 60), deadline + args.settle)
            event_type, event_id, buffer = None, None, b""
            while time.monotonic() < hold_until:
                try:
                    size_line = await asyncio.wait_for(reader.readline(), timeout=max(0.05, hold_until - time.monotonic()))
                except asyncio.TimeoutError:
                    break
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
    return {"rss_mib": round(rss_kib / 1024, 1), "fds": len(os.listdir(f"/proc/{pid}/fd"))}


def p99(values):
    return round(statistics.quantiles(values, n=100)[98] * 1000, 2) if len(values) >= 100 else None


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--duration", type=float, default=600)
    parser.add_argument("--warmup", type=float, default=60)
    parser.add_argument("--streams", type=int, default=500)
    parser.add_argument("--rate", type=float, default=400, help="requests per second over all workers")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--settle", type=float, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    users = [f"soak-{i}" for i in range(args.streams)]
    totals = Totals()
    start = time.monotonic()
    deadline = start + args.duration
    samples = []

    async def sampler():
        while time.monotonic() < deadline:
            samples.append((time.monotonic() - start, process_sample(args.pid)))
            await asyncio.sleep(5)

    streams = [asyncio.create_task(stream(args, totals, deadline, user, random.Random(rng.random()))) for user in users]
    await asyncio.sleep(2)  # let every stream subscribe before the first write
    workers = [asyncio.create_task(worker(args, totals, deadline, users, random.Random(rng.random()),
                                          args.workers / args.rate)) for _ in range(args.workers)]
    probe = asyncio.create_task(sampler())
    await asyncio.gather(*workers)
    await asyncio.gather(*streams, probe)

    after_warmup = [s for t, s in samples if t >= args.warmup] or [samples[-1][1]]
    first, last = after_warmup[0], samples[-1][1]
    window_start = [l for (t, l, _) in totals.latencies if start + args.warmup <= t < start + args.warmup + 60]
    window_end = [l for (t, l, _) in totals.latencies if t >= deadline - 60]
    # An event's id is its write's seq, or `seq-n` when it was published after a later seq: count events, not ids.
    missing = sum(max(0, len(seqs) - len(totals.seen.get(user, set()))) for user, seqs in totals.acked.items())
    stale = 0
    reader, writer = await asyncio.open_connection("127.0.0.1", args.port)
    for user in totals.acked:
        status, payload, closes = await request(reader, writer, "GET", f"/v1/users/{user}")
        stored = json.loads(payload)
        seen_last = json.loads(totals.last_context.get(user, "{}"))
        if (seen_last.get("counters"), seen_last.get("attributes")) != (stored.get("counters"), stored.get("attributes")):
            stale += 1
    writer.close()
    acked = sum(len(seqs) for seqs in totals.acked.values())
    growth = (last["rss_mib"] - first["rss_mib"]) / first["rss_mib"] * 100
    result = {
        "duration_s": args.duration, "requests": len(totals.latencies), "errors": totals.errors, "error_kinds": totals.error_kinds,
        "acknowledged_writes": acked, "missing_stream_events": missing,
        "stale_final_context": stale, "ids_out_of_order": totals.out_of_order, "resets": totals.resets,
        "reconnects": totals.reconnects, "stream_failures": totals.stream_failures,
        "rss_mib_after_warmup": first["rss_mib"], "rss_mib_end": last["rss_mib"], "rss_growth_pct": round(growth, 2),
        "fds_after_warmup": first["fds"], "fds_end": last["fds"],
        "p99_ms_first_minute": p99(window_start), "p99_ms_last_minute": p99(window_end),
        "rss_mib_every_30s": [sample["rss_mib"] for t, sample in samples[::6]],
    }
    print(json.dumps(result))
    ok = (missing == 0 and stale == 0 and totals.out_of_order == 0 and totals.resets == 0 and totals.errors == 0 and growth <= 5
          and abs(last["fds"] - first["fds"]) <= max(10, args.streams // 20))
    sys.exit(0 if ok else 1)


asyncio.run(main())
