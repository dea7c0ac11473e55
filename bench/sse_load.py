#!/usr/bin/env python3
"""SSE delivery benchmark client (standard library only): opens N event-stream subscribers, publishes M changes,
and measures the time from each publish to each delivery. Works against specd and against nginx + nchan.

  sse_load.py specd  --port P --subscribers N --changes M --mode one|own
  sse_load.py nchan  --port P --subscribers N --changes M --mode one|own

All traffic goes to 127.0.0.1. Every wait is bounded.
"""
import argparse, asyncio, json, statistics, sys, time

async def subscribe(port, path, headers, ready, deliveries, sent_at, done, expected_per):
    reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port, limit=1 << 20), 30)
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
    if b" 200 " not in head.split(b"\r\n")[0]:
        raise RuntimeError(head.split(b"\r\n")[0].decode())
    chunked = b"chunked" in head.lower()
    ready.release()
    got = 0
    buffer = b""
    try:
        while got < expected_per:
            if chunked:
                size_line = await reader.readuntil(b"\r\n")
                size = int(size_line.split(b";")[0], 16)
                if size == 0:
                    break
                data = await reader.readexactly(size + 2)
                buffer += data[:-2]
            else:
                buffer += await reader.read(65536)
            while b"\n\n" in buffer:
                block, buffer = buffer.split(b"\n\n", 1)
                for line in block.split(b"\n"):
                    if line.startswith(b"data:"):
                        try:
                            payload = json.loads(line[5:].strip())
                        except ValueError:
                            continue
                        key = payload.get("bench") or payload.get("seq")
                        if key is not None:
                            # The publisher may learn the seq only after the event arrived: keep the arrival time.
                            deliveries.append((key, time.monotonic()))
                            got += 1
    finally:
        writer.close()
        done.release()

async def http(port, method, path, body=b"", headers=None):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    writer.write(f"{method} {path} HTTP/1.1\r\nHost: bench\r\nContent-Length: {len(body)}\r\nConnection: close\r\n{extra}\r\n".encode() + body)
    await writer.drain()
    response = await asyncio.wait_for(reader.read(), 30)
    writer.close()
    return response.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in response else b""

async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("target", choices=["specd", "nchan"])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--changes", type=int, default=20)
    parser.add_argument("--mode", choices=["one", "own"], default="one")
    args = parser.parse_args()
    n, m = args.subscribers, args.changes
    ready, done = asyncio.Semaphore(0), asyncio.Semaphore(0)
    deliveries, sent_at = [], {}
    run = f"r{int(time.time() * 1000) % 10_000_000}"
    # Fresh channel and user names each run: nchan replays buffered messages to new subscribers of old channels.
    channel = lambda i: f"{run}-u0" if args.mode == "one" else f"{run}-u{i}"
    per = m if args.mode == "one" else max(1, m // n) if m >= n else 1
    tasks = []
    for i in range(n):
        path = f"/v1/users/{channel(i)}/stream?flags=bench" if args.target == "specd" else f"/sub?id={channel(i)}"
        expect = m if args.mode == "one" else (1 if i < m else 0)
        if expect == 0:
            expect = 1 << 30
        tasks.append(asyncio.create_task(subscribe(args.port, path, {}, ready, deliveries, sent_at, done, expect)))
    for _ in range(n):
        await asyncio.wait_for(ready.acquire(), 60)
    start = time.monotonic()
    expected_total = n * m if args.mode == "one" else min(n, m)
    for k in range(m):
        target = channel(0) if args.mode == "one" else channel(k % n)
        if args.target == "specd":
            # One user: toggle. Own users: each gets its segment once, so every change changes the flag.
            op = "addSegment" if args.mode == "own" or k % 2 == 0 else "removeSegment"
            body = json.dumps({"ops": [{"op": op, "segment": "bench"}]}).encode()
            # The seq comes back in the answer; the event carries it. Record the send time before sending.
            t = time.monotonic()
            answer = await http(args.port, "PATCH", f"/v1/users/{target}/context", body, {"Content-Type": "application/json"})
            sent_at[json.loads(answer)["seq"]] = t
        else:
            key = k + 1
            sent_at[key] = time.monotonic()
            await http(args.port, "POST", f"/pub?id={target}", json.dumps({"bench": key}).encode(), {"Content-Type": "application/json"})
        await asyncio.sleep(0.01 if args.mode == "one" else 0.001)
    deadline = time.monotonic() + 30
    while len(deliveries) < expected_total and time.monotonic() < deadline:
        await asyncio.sleep(0.01 if args.mode == "one" else 0.001)
    elapsed = time.monotonic() - start
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    latencies = sorted(arrived - sent_at[key] for key, arrived in deliveries if key in sent_at)
    if not latencies:
        print(json.dumps({"target": args.target, "delivered": 0, "expected": expected_total}))
        return 1
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    print(json.dumps({"target": args.target, "mode": args.mode, "subscribers": n, "changes": m, "delivered": len(latencies),
                      "expected": expected_total, "p50_ms": round(p(0.50), 3), "p99_ms": round(p(0.99), 3),
                      "events_per_s": round(len(latencies) / elapsed)}))
    return 0 if len(latencies) == expected_total else 1

if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
