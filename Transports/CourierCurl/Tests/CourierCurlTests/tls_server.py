#!/usr/bin/env python3
"""A one-route HTTPS server for CourierCurl's pinning tests (stdlib and the openssl CLI only).

Makes a throw-away self-signed certificate for 127.0.0.1 in a temporary directory, serves
HTTPS on an ephemeral port of 127.0.0.1, and prints one line:

    READY <port> <sha256//pin of its public key> <path of its certificate (PEM)>

`GET /count` answers how many other requests arrived; any other path answers 200 `ok`.
Exits when its standard input reaches end-of-file, so it never outlives the test.
"""
import base64
import hashlib
import http.server
import os
import ssl
import subprocess
import sys
import shutil
import tempfile
import threading

directory = tempfile.mkdtemp(prefix="courier-tls-")
key = os.path.join(directory, "key.pem")
cert = os.path.join(directory, "cert.pem")
subprocess.run(
    ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
     "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
     "-addext", "subjectAltName=IP:127.0.0.1"],
    check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
public_key = subprocess.run(["openssl", "x509", "-in", cert, "-pubkey", "-noout"], check=True,
                            capture_output=True).stdout
der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public_key, check=True,
                     capture_output=True).stdout
pin = "sha256//" + base64.b64encode(hashlib.sha256(der).digest()).decode()

count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        global count
        if self.path == "/count":
            with lock:
                body = str(count).encode()
        else:
            with lock:
                count += 1
            body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
print(f"READY {server.server_address[1]} {pin} {cert}", flush=True)
sys.stdin.read()
server.shutdown()
shutil.rmtree(directory, ignore_errors=True)
