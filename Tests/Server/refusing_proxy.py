#!/usr/bin/env python3
"""An HTTP proxy on 127.0.0.1 that refuses every tunnel (stdlib only).

Answers every `CONNECT` (and any other request) with 407 Proxy Authentication Required and a
`Proxy-Authenticate: Basic` challenge, or with the status given as the first argument (401, 403,
502…), then closes the connection. Prints `READY port=<port>` once it listens; `GET /count`
sent to it directly (not as a proxy request) answers how many requests it refused. Exits when its
standard input reaches end-of-file, so it never outlives the test.
"""
import http.server
import sys
import threading

status = int(sys.argv[1]) if len(sys.argv) > 1 else 407
reasons = {401: "Unauthorized", 403: "Forbidden", 407: "Proxy Authentication Required", 502: "Bad Gateway"}
count = 0
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def refuse(self):
        global count
        if self.command == "GET" and self.path == "/count":
            with lock:
                body = str(count).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        with lock:
            count += 1
        body = b"<html><body>Access denied</body></html>"
        self.send_response(status, reasons.get(status))
        if status == 407:
            self.send_header("Proxy-Authenticate", 'Basic realm="courier-proxy"')
        if status == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="courier-proxy"')
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    do_CONNECT = do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = refuse

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print(f"READY port={server.server_address[1]}", flush=True)
sys.stdin.read()
server.shutdown()
