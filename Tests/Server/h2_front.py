#!/usr/bin/env python3
"""An HTTPS front for Courier's test server: nginx with TLS 1.3 and HTTP/2, proxying to it.

    h2_front.py <upstream port> [--http1-only] [--cert CERT.pem --key KEY.pem]

Makes a throw-away self-signed certificate for 127.0.0.1 and localhost in a temporary
directory (or uses the given one, so that many fronts share one trusted certificate), starts nginx (from the distribution: .ci/run installs it) listening on an ephemeral
port of 127.0.0.1 with HTTP/2 on (`--http1-only`: off, to test the fall-back), proxying every
request to http://127.0.0.1:<upstream port> without buffering either way, so the test server's
trickles, delays and early ends reach the client as they happen. Prints one line:

    READY <port> <sha256//pin of its public key> <path of its certificate (PEM)>
    PORT <port>

(the second for TestServer's port reader). Used by CurlTransport's HTTP/2 tests, and by
TestServer itself when COURIER_TEST_SERVER_FRONT names this script (see TestServer+Front.swift).

Every response carries `X-Front-Protocol` (`HTTP/2.0` or `HTTP/1.1`): the protocol the client
spoke. Exits, stopping nginx by its pid, when its standard input reaches end-of-file, so it
never outlives the test.
"""
import argparse
import base64
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

parser = argparse.ArgumentParser(description="nginx with TLS 1.3 and HTTP/2 before a test server")
parser.add_argument("upstream", type=int, help="the test server's port on 127.0.0.1")
parser.add_argument("--http1-only", action="store_true", help="offer HTTP/1.1 only (ALPN without h2)")
parser.add_argument("--cert", help="a PEM certificate to serve instead of a new one")
parser.add_argument("--key", help="the key of --cert")
args = parser.parse_args()
upstream = args.upstream
http2 = not args.http1_only

nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
if nginx is None:
    print("ERROR nginx is not installed (apt-get install nginx)", flush=True)
    sys.exit(1)

directory = tempfile.mkdtemp(prefix="courier-h2-")
key = args.key or os.path.join(directory, "key.pem")
cert = args.cert or os.path.join(directory, "cert.pem")
if not args.cert:
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
public_key = subprocess.run(["openssl", "x509", "-in", cert, "-pubkey", "-noout"], check=True,
                            capture_output=True).stdout
der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public_key, check=True,
                     capture_output=True).stdout
pin = "sha256//" + base64.b64encode(hashlib.sha256(der).digest()).decode()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def config(port: int) -> str:
    return f"""
daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {directory}/client_body;
    proxy_temp_path {directory}/proxy;
    fastcgi_temp_path {directory}/fastcgi;
    uwsgi_temp_path {directory}/uwsgi;
    scgi_temp_path {directory}/scgi;
    keepalive_requests 1000000;
    keepalive_timeout 300s;
    http2_max_concurrent_streams 256;
    http2_max_field_size 128k;
    http2_max_header_size 512k;
    large_client_header_buffers 8 128k;
    client_max_body_size 0;
    upstream origin {{
        server 127.0.0.1:{upstream};
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port} ssl{" http2" if http2 else ""};
        ssl_certificate {cert};
        ssl_certificate_key {key};
        ssl_protocols TLSv1.3;
        add_header X-Front-Protocol $server_protocol always;
        location / {{
            proxy_pass http://origin;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_buffer_size 256k;
            proxy_buffers 8 256k;
            proxy_busy_buffers_size 256k;
            proxy_read_timeout 600s;
            proxy_send_timeout 600s;
            proxy_redirect off;
            proxy_intercept_errors off;
        }}
        # The server dropped the connection before a whole answer: reset the client's stream
        # (or close its HTTP/1.1 connection), as the server did, rather than answer 502.
        error_page 502 504 = @dropped;
        location @dropped {{
            return 444;
        }}
    }}
}}
"""


process = None
for _ in range(5):  # a port taken between probing and binding: try another
    port = free_port()
    with open(os.path.join(directory, "nginx.conf"), "w") as file:
        file.write(config(port))
    process = subprocess.Popen(
        [nginx, "-p", directory, "-c", os.path.join(directory, "nginx.conf"), "-e", os.path.join(directory, "error.log")],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    listening = False
    for _ in range(200):
        if process.poll() is not None:
            break
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            listening = True
            break
        except OSError:
            time.sleep(0.025)
    if listening:
        break
    if process.poll() is None:
        process.terminate()
        process.wait()
    process = None

if process is None:
    with open(os.path.join(directory, "error.log")) as log:
        print("ERROR nginx did not start: " + log.read().replace("\n", " | "), flush=True)
    shutil.rmtree(directory, ignore_errors=True)
    sys.exit(1)

print(f"READY {port} {pin} {cert}", flush=True)
print(f"PORT {port}", flush=True)
sys.stdin.read()
process.terminate()
try:
    process.wait(timeout=10)
except subprocess.TimeoutExpired:
    process.kill()
    process.wait()
shutil.rmtree(directory, ignore_errors=True)
