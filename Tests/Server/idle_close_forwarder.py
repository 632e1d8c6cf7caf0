#!/usr/bin/env python3
"""An HTTP/1.1 origin that closes idle keep-alive connections, and a forwarder in front of it,
both on 127.0.0.1 (stdlib only, asyncio).

The origin answers every request with 200 and a small JSON body on a kept-alive connection,
and closes a connection that stays idle for `--idle` seconds (default 2), as a server's
keep-alive time-out does. The forwarder, as a small proxy does, opens one upstream connection
per client connection, copies bytes both ways, and closes the client side when the upstream
closes: so the origin's idle close reaches the client through it.

Prints `READY origin=<port> forwarder=<port>` once both listen. Routes of the origin (also
reachable through the forwarder):
  GET /stats                  {"connections": n, "open": n, "requests": n, "idle_closes": n}
  GET /wait-idle-closes/<n>   answers once the origin has closed n idle connections in all
  GET /wait-open/<n>          answers once n connections besides this request's are open
Any other request gets {"ok": true}. A request with `Connection: close` is answered so, and its
connection closed. Exits when its standard input reaches end-of-file, so it
never outlives the test or benchmark that started it.
"""
import argparse
import asyncio
import json
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--idle", type=float, default=2.0)
options = parser.parse_args()

stats = {"connections": 0, "open": 0, "requests": 0, "idle_closes": 0}
changed = None  # asyncio.Condition, made in main()


async def read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = (lines[0].split(" ") + ["", "", ""])[:3]
    length = 0
    close = False
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip() or "0")
        if name.strip().lower() == "connection" and value.strip().lower() == "close":
            close = True
    if length:
        await reader.readexactly(length)
    return method, target, close


async def answer(target):
    if target == "/stats":
        return dict(stats)
    if target.startswith("/wait-idle-closes/"):
        wanted = int(target.rsplit("/", 1)[1])
        async with changed:
            await changed.wait_for(lambda: stats["idle_closes"] >= wanted)
        return dict(stats)
    if target.startswith("/wait-open/"):
        wanted = int(target.rsplit("/", 1)[1])
        async with changed:
            await changed.wait_for(lambda: stats["open"] - 1 == wanted)
        return dict(stats)
    return {"ok": True}


async def notify():
    async with changed:
        changed.notify_all()


async def origin(reader, writer):
    stats["connections"] += 1
    stats["open"] += 1
    await notify()
    try:
        while True:
            try:
                method, target, close = await asyncio.wait_for(read_head(reader), options.idle)
            except asyncio.TimeoutError:
                stats["idle_closes"] += 1
                return
            except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
                return
            stats["requests"] += 1
            body = json.dumps(await answer(target)).encode()
            connection = b"close" if close else b"keep-alive"
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: " + connection + b"\r\n"
                + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
            await writer.drain()
            if close:
                return
    finally:
        writer.close()
        stats["open"] -= 1
        await notify()


async def pump(reader, writer):
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def forward(client_reader, client_writer, port):
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        client_writer.close()
        return
    # The client side is closed when the upstream closes, and the other way round.
    await asyncio.gather(
        pump(client_reader, upstream_writer), pump(upstream_reader, client_writer), return_exceptions=True)


async def main():
    global changed
    changed = asyncio.Condition()
    origin_server = await asyncio.start_server(origin, "127.0.0.1", 0)
    origin_port = origin_server.sockets[0].getsockname()[1]
    forwarder = await asyncio.start_server(lambda r, w: forward(r, w, origin_port), "127.0.0.1", 0)
    forwarder_port = forwarder.sockets[0].getsockname()[1]
    print(f"READY origin={origin_port} forwarder={forwarder_port}", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)


if __name__ == "__main__":
    asyncio.run(main())
