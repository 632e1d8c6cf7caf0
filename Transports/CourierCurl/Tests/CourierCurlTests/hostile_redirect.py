#!/usr/bin/env python3
"""A server whose every answer is a 302 to argv[1] followed by a body that never ends.

For CourierCurl's test that a redirect's endless body neither hangs the request nor fills the
memory. Prints `READY <port>` and exits when its standard input reaches end-of-file.
"""
import socket
import sys
import threading

target = sys.argv[1]
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)


def serve(connection):
    try:
        connection.recv(65536)
        connection.sendall(
            f"HTTP/1.1 302 Found\r\nLocation: {target}\r\nTransfer-Encoding: chunked\r\n\r\n".encode())
        block = b"x" * 16384
        chunk = f"{len(block):x}\r\n".encode() + block + b"\r\n"
        while True:
            connection.sendall(chunk)
    except OSError:
        pass
    finally:
        connection.close()


def accept():
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


threading.Thread(target=accept, daemon=True).start()
print(f"READY {listener.getsockname()[1]}", flush=True)
sys.stdin.read()
