#!/usr/bin/env python3
"""HTTPS servers whose certificates are wrong in one way each (stdlib and the openssl CLI only).

Makes throw-away certificates in a temporary directory with the `openssl` command: a test
certificate authority (CA) and, signed by it, a valid certificate for 127.0.0.1, an expired one,
one not valid yet and one for another host name; a self-signed certificate for 127.0.0.1; and
one for 127.0.0.1 signed by a second CA that nobody is given (an unknown root). Each is served on
its own ephemeral port of 127.0.0.1, and the script prints one line once they all listen:

    READY <path of the test CA (PEM)> valid=<port> expired=<port> not-yet-valid=<port> \
        wrong-host=<port> self-signed=<port> unknown-root=<port>

Any path answers 200 `ok`, except `GET /count` on the valid server, which answers how many
other requests reached any of the servers (none should get past a refused handshake). Exits when
its standard input reaches end-of-file, so it never outlives the test.
"""
import http.server
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading

directory = tempfile.mkdtemp(prefix="courier-certificates-")
CA_CONFIG = """
[ca]
default_ca = test_ca
[test_ca]
dir = {dir}
database = {dir}/index.txt
new_certs_dir = {dir}
serial = {dir}/serial
default_md = sha256
policy = any_name
copy_extensions = copy
unique_subject = no
[any_name]
commonName = supplied
"""


def path(name):
    return os.path.join(directory, name)


def openssl(*arguments):
    subprocess.run(["openssl", *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_ca(name, subject):
    """A CA's key and self-signed certificate, and the files `openssl ca` keeps for it."""
    ca_directory = path(name)
    os.mkdir(ca_directory)
    with open(os.path.join(ca_directory, "index.txt"), "w"):
        pass
    with open(os.path.join(ca_directory, "serial"), "w") as serial:
        serial.write("01\n")
    with open(os.path.join(ca_directory, "ca.cnf"), "w") as config:
        config.write(CA_CONFIG.format(dir=ca_directory))
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", os.path.join(ca_directory, "key.pem"), "-out", os.path.join(ca_directory, "cert.pem"),
            "-days", "2", "-subj", subject)
    return ca_directory


def issue(name, ca_directory, host_name, start, end):
    """A key and a certificate for `host_name` signed by the CA, valid from `start` to `end`
    (openssl's YYYYMMDDHHMMSSZ), with the CA's certificate after it in the chain file."""
    key, request, cert = path(f"{name}.key"), path(f"{name}.csr"), path(f"{name}.pem")
    alternative = f"IP:{host_name}" if host_name[0].isdigit() else f"DNS:{host_name}"
    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", request, "-subj", f"/CN={host_name}", "-addext", f"subjectAltName={alternative}")
    openssl("ca", "-batch", "-notext", "-config", os.path.join(ca_directory, "ca.cnf"),
            "-cert", os.path.join(ca_directory, "cert.pem"), "-keyfile", os.path.join(ca_directory, "key.pem"),
            "-in", request, "-out", cert, "-startdate", start, "-enddate", end)
    return cert, key


def self_signed(name, host_name):
    key, cert = path(f"{name}.key"), path(f"{name}.pem")
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", cert, "-days", "2", "-subj", f"/CN={host_name}",
            "-addext", f"subjectAltName=IP:{host_name}")
    return cert, key


def now_plus(days):
    import datetime
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=days)
    return moment.strftime("%Y%m%d%H%M%SZ")


test_ca = make_ca("test-ca", "/CN=Courier Test CA")
other_ca = make_ca("other-ca", "/CN=Courier Unknown Root")
certificates = {
    "valid": issue("valid", test_ca, "127.0.0.1", now_plus(-1), now_plus(2)),
    "expired": issue("expired", test_ca, "127.0.0.1", "20200101000000Z", "20200102000000Z"),
    "not-yet-valid": issue("not-yet-valid", test_ca, "127.0.0.1", "20900101000000Z", "20900102000000Z"),
    "wrong-host": issue("wrong-host", test_ca, "wrong.example", now_plus(-1), now_plus(2)),
    "self-signed": self_signed("self-signed", "127.0.0.1"),
    "unknown-root": issue("unknown-root", other_ca, "127.0.0.1", now_plus(-1), now_plus(2)),
}

count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        global count
        with lock:
            if self.path == "/count":
                body = str(count).encode()
            else:
                count += 1
                body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a refused handshake is what these servers are for


servers = {}
for kind, (cert, key) in certificates.items():
    server = Server(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    # The handshake runs in the connection's own thread, so a client that refuses the
    # certificate never holds up the others.
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    servers[kind] = server

ports = " ".join(f"{kind}={server.server_address[1]}" for kind, server in servers.items())
print(f"READY {os.path.join(test_ca, 'cert.pem')} {ports}", flush=True)
sys.stdin.read()
for server in servers.values():
    server.shutdown()
shutil.rmtree(directory, ignore_errors=True)
