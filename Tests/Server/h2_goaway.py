#!/usr/bin/env python3
"""A minimal HTTP/2 server (TLS, ALPN "h2") whose first connection ends with GOAWAY (stdlib and
the openssl CLI only).

    h2_goaway.py <expected requests>

Makes a throw-away self-signed certificate for 127.0.0.1. On its first connection it waits until
<expected requests> requests have arrived, answers the lowest-numbered stream only, then sends
GOAWAY with that stream as the last one processed, and processes nothing more on it (it stays open
until the client closes it, as a graceful shutdown does): every other stream was never processed,
as the server declares. Every later connection is served normally. Prints

    READY port=<https port> count=<http port> cert=<path of its certificate (PEM)>

`GET http://127.0.0.1:<count port>/` answers the requests processed so far, by method:
`{"GET": n, "POST": m, "connections": c}`. Exits when its standard input reaches end-of-file.

Only what a client needs to talk to it: SETTINGS, HEADERS (a header block is read just far
enough to find `:method`; responses use HPACK literals without indexing), DATA, WINDOW_UPDATE,
PING and GOAWAY.
"""
import http.server
import json
import os
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import tempfile
import threading

expected = int(sys.argv[1]) if len(sys.argv) > 1 else 1

DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# HPACK static table entries 2 and 3 (RFC 7541 Appendix A).
STATIC_METHODS = {2: "GET", 3: "POST"}

directory = tempfile.mkdtemp(prefix="courier-h2-goaway-")
key, cert = os.path.join(directory, "key.pem"), os.path.join(directory, "cert.pem")
subprocess.run(
    ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
     "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
    check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

lock = threading.Lock()
processed = {"GET": 0, "POST": 0, "other": 0}
connections = 0


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def read_frame(sock):
    head = read_exactly(sock, 9)
    length = int.from_bytes(head[:3], "big")
    stream = struct.unpack(">I", head[5:9])[0] & 0x7FFFFFFF
    return head[3], head[4], stream, read_exactly(sock, length)


def integer(block, index, prefix):
    """An HPACK integer with a `prefix`-bit prefix at block[index]; returns (value, next index)."""
    limit = (1 << prefix) - 1
    value = block[index] & limit
    index += 1
    if value < limit:
        return value, index
    shift = 0
    while True:
        byte = block[index]
        index += 1
        value += (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, index


def string(block, index):
    """Skips an HPACK string; returns (raw bytes, Huffman-coded?, next index)."""
    huffman = bool(block[index] & 0x80)
    length, index = integer(block, index, 7)
    return block[index:index + length], huffman, index + length


def method_of(block):
    """`:method` of a header block, read without decoding Huffman strings: GET and POST are
    static table entries, and a literal method that is not Huffman-coded is read as it is."""
    index = 0
    while index < len(block):
        byte = block[index]
        if byte & 0x80:  # indexed field
            value, index = integer(block, index, 7)
            if value in STATIC_METHODS:
                return STATIC_METHODS[value]
            continue
        if byte & 0xE0 == 0x20:  # dynamic table size update
            _, index = integer(block, index, 5)
            continue
        prefix = 6 if byte & 0x40 else 4
        name_index, index = integer(block, index, prefix)
        if name_index == 0:
            _, _, index = string(block, index)
        value, huffman, index = string(block, index)
        if name_index in (2, 3) and not huffman:
            return value.decode("ascii", "replace")
        if name_index in (2, 3):
            return "other"
    return "other"


def literal(name, value):
    """A header field as an HPACK literal without indexing, new name, no Huffman coding."""
    name, value = name.encode(), value.encode()
    assert len(name) < 127 and len(value) < 127
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def respond(sock, stream, method):
    body = json.dumps({"method": method, "stream": stream}).encode()
    block = literal(":status", "200") + literal("content-type", "application/json") + literal(
        "content-length", str(len(body)))
    sock.sendall(frame(HEADERS, END_HEADERS, stream, block) + frame(DATA, END_STREAM, stream, body))


def serve(sock):
    global connections
    with lock:
        connections += 1
        first = connections == 1
    try:
        if read_exactly(sock, len(PREFACE)) != PREFACE:
            return
        sock.sendall(frame(SETTINGS, 0, 0, struct.pack(">HI", 0x3, 100)))  # MAX_CONCURRENT_STREAMS 100
        blocks, methods, complete = {}, {}, []
        going_away = False
        while True:
            kind, flags, stream, payload = read_frame(sock)
            if kind == SETTINGS and not flags & ACK:
                sock.sendall(frame(SETTINGS, ACK, 0))
            elif kind == PING and not flags & ACK:
                sock.sendall(frame(PING, ACK, 0, payload))
            elif kind in (HEADERS, CONTINUATION):
                if kind == HEADERS:
                    start = 1 if flags & PADDED else 0
                    pad = payload[0] if flags & PADDED else 0
                    if flags & PRIORITY_FLAG:
                        start += 5
                    payload = payload[start:len(payload) - pad]
                    blocks[stream] = b""
                    if flags & END_STREAM:
                        methods[stream] = "ended"
                blocks[stream] += payload
                if flags & END_HEADERS:
                    ended = methods.get(stream) == "ended"
                    methods[stream] = method_of(blocks[stream])
                    if ended:
                        complete.append(stream)
            elif kind == DATA:
                if payload:
                    sock.sendall(frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", len(payload)))
                                 + frame(WINDOW_UPDATE, 0, stream, struct.pack(">I", len(payload))))
                if flags & END_STREAM:
                    complete.append(stream)
            elif kind == GOAWAY:
                return
            if going_away:
                complete.clear()  # streams after GOAWAY are never processed
            elif not first:
                for stream in complete:
                    record(methods[stream])
                    respond(sock, stream, methods[stream])
                complete.clear()
            elif len(complete) >= expected:
                # A graceful shutdown, as nginx does it: the last processed stream is answered,
                # GOAWAY names it, and the connection stays open until the client closes it.
                last = min(complete)
                record(methods[last])
                respond(sock, last, methods[last])
                sock.sendall(frame(GOAWAY, 0, 0, struct.pack(">II", last, 0)))
                going_away = True
                complete.clear()
    except (ConnectionError, OSError, ssl.SSLError):
        pass
    finally:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


def record(method):
    with lock:
        processed[method if method in processed else "other"] += 1


context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
context.set_alpn_protocols(["h2"])
listener = socket.create_server(("127.0.0.1", 0))


def accept():
    while True:
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        try:
            tls = context.wrap_socket(connection, server_side=True)
        except (ssl.SSLError, OSError):
            connection.close()
            continue
        threading.Thread(target=serve, args=(tls,), daemon=True).start()


class Counts(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with lock:
            body = json.dumps(dict(processed, connections=connections)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


counts = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Counts)
threading.Thread(target=accept, daemon=True).start()
threading.Thread(target=counts.serve_forever, daemon=True).start()
print(f"READY port={listener.getsockname()[1]} count={counts.server_address[1]} cert={cert}", flush=True)
sys.stdin.read()
counts.shutdown()
listener.close()
shutil.rmtree(directory, ignore_errors=True)
