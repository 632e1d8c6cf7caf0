#!/usr/bin/env python3
"""Courier's local HTTP/1.1 test server (Python 3.11 standard library only).

Start:  python3 Tests/Server/server.py [--port 0] [--host 127.0.0.1]
                                       [--token-lifetime SECONDS|none] [--no-stdin-watch]

Prints exactly ``PORT <n>`` on its own line once it listens, then serves until its
stdin reaches end-of-file (so it never outlives the process that started it), or until
it is killed. See README.md next to this file for the route list.
"""

from __future__ import annotations

import argparse
import base64
import functools
import hashlib
import json
import os
import random
import secrets
import signal
import socket
import struct
import sys
import threading
import time
import traceback
import urllib.parse
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dpop

BLOCK = 64 * 1024

# The 256-byte cycle of the deterministic download content: byte i = (i * 31 + 7) % 256.
_PATTERN = bytes((i * 31 + 7) % 256 for i in range(256))
_PATTERN_BLOCK = _PATTERN * (BLOCK // 256)


def pattern_bytes(start: int, length: int) -> bytes:
    """Deterministic content bytes [start, start + length)."""
    offset = start % 256
    repeats = (offset + length) // 256 + 1
    return (_PATTERN * repeats)[offset:offset + length]


@functools.cache
def big_json() -> bytes:
    """The ~1 MiB body of /json/big, built on first use (keeps start-up fast)."""
    items = []
    size = len('{"items":[]}')
    i = 0
    while size < 1024 * 1024:
        item = {"id": i, "name": f"item-{i}"}
        items.append(item)
        size += len(json.dumps(item, separators=(",", ":"))) + 1
        i += 1
    return json.dumps({"items": items}, separators=(",", ":")).encode()


NESTED_JSON = json.dumps(
    {
        "data": {"user": {"name": "Ada", "tags": ["a", "b"]}, "items": [{"id": 1}, {"id": 2}]},
        "message": "hello",
    }
).encode()

FAULT_MODES = {
    "500",
    "timeout",
    "drop",
    "malformed",
    "missing_access_token",
    "invalid_grant",
    "invalid_client",
    "huge_access_token",
}

COUNTER_NAMES = (
    "token_requests",
    "password_grants",
    "refresh_grants",
    "refresh_successes",
    "client_credentials_grants",
    "protected_requests",
    "protected_ok",
    "protected_401",
    "requests_total",
    "auth_headers_seen",
    "stale_token_uses",
    "stale_after_refresh",
    "protected_faults",
    "token_random_faults",
    "refresh_token_reuses",
    "dpop_nonce_challenges",
    "dpop_proof_rejections",
    "dpop_bound_issued",
    "dpop_bearer_misuses",
    "dpop_redirect_hops",
    "dpop_nonce_reuses",
)


class BadRequest(Exception):
    """The request cannot be read; answer 400 and close the connection."""


class ClientGone(Exception):
    """The peer went away while we were writing; stop quietly."""


class BodyStalled(Exception):
    """The announced request body stopped arriving; close the connection without an answer.

    libcurl (under URLSession on Linux) silently resends a request whose reused keep-alive
    connection closed without an answer (the token fault "drop"), and swift-corelibs-
    foundation then sends the headers of a POST without its body; without this time-out the
    retry would hang until the client's own request time-out.
    """


BODY_IDLE_TIMEOUT = 2.0


class State:
    """Everything mutable the server shares between threads, behind one lock."""

    def __init__(self, token_lifetime: float | None) -> None:
        self.lock = threading.Lock()
        self.config: dict = {
            "token_lifetime": token_lifetime,
            "rotate_refresh_tokens": True,
            "include_refresh_token": True,
            "refresh_delay_ms": 0,
            # A hold key (see HeldRequests): refresh grants wait for its release.
            "refresh_hold": None,
            "token_fault": None,
            "token_fault_sleep": 30.0,
            "invalid_client_challenge": True,
            # Soak settings: random transient faults and the grace for in-flight requests.
            "token_fault_rate": 0.0,
            "api_fault_rate": 0.0,
            "stale_grace_ms": 500,
            # A used (rotated-away) refresh token presented again revokes its whole family:
            # every refresh and access token descended from the same sign-in (RFC 9700 §4.14.2).
            "reuse_detection": False,
            # JSON text sent verbatim as /oauth/token's expires_in ('"nan"', '-5', '1e309' …)
            # instead of the real lifetime; the server still enforces token_lifetime.
            "expires_in_override": None,
        }
        self.random = random.Random(0)
        # When the newest access token was issued (time.monotonic()).
        self.latest_issued_at: float | None = None
        self.counters = {name: 0 for name in COUNTER_NAMES}
        self.generation = 0
        # access token -> {"generation", "issued_at", "expires_at" (None: never), "revoked", "family"}
        self.access_tokens: dict[str, dict] = {}
        # refresh token -> {"valid": bool, "family": int}
        self.refresh_tokens: dict[str, dict] = {}
        # A family is every token descended from one grant (password, client credentials,
        # admin issue) through refresh grants.
        self.next_family = 0
        self.flaky: dict[str, int] = {}
        # DPoP mode (see dpop.py): nonces, jti replay; tokens issued against a proof are bound
        # to its key ("jkt" in their records) and accepted only with a proof by that key.
        self.dpop = dpop.DPoPServer()

    # All methods below expect self.lock to be held by the caller.

    def issue(
        self,
        lifetime: float | None,
        refresh_token: str | None,
        new_refresh: bool,
        family: int | None = None,
        jkt: str | None = None,
    ) -> dict:
        """Issue an access token (and maybe a refresh token); returns the RFC 6749 response.

        `family`: the family of the refresh token presented; None starts a new family.
        `jkt`: the thumbprint of the DPoP key the tokens are bound to (token_type DPoP)."""
        if family is None:
            self.next_family += 1
            family = self.next_family
        self.generation += 1
        gen = self.generation
        token = f"at-{gen}-{secrets.token_hex(12)}"
        now = time.monotonic()
        self.latest_issued_at = now
        self.access_tokens[token] = {
            "generation": gen,
            "issued_at": now,
            "expires_at": None if lifetime is None else now + lifetime,
            "revoked": False,
            "family": family,
            "jkt": jkt,
        }
        response: dict = {"access_token": token, "token_type": "DPoP" if jkt else "Bearer"}
        if lifetime is not None:
            response["expires_in"] = _number(lifetime)
        if new_refresh:
            refresh_token = f"rt-{secrets.token_hex(16)}"
            self.refresh_tokens[refresh_token] = {"valid": True, "family": family, "jkt": jkt}
        if refresh_token is not None:
            response["refresh_token"] = refresh_token
        return response

    def revoke_family(self, family: int) -> None:
        """Reuse detected: every token of `family` stops working."""
        for record in self.refresh_tokens.values():
            if record.get("family") == family:
                record["valid"] = False
        for record in self.access_tokens.values():
            if record.get("family") == family:
                record["revoked"] = True

    def check_access(self, token: str | None) -> tuple[str, int | None]:
        """('ok', generation) | ('stale', generation) | ('unknown', None)."""
        if token is None:
            return "unknown", None
        record = self.access_tokens.get(token)
        if record is None:
            return "unknown", None
        expired = record["expires_at"] is not None and time.monotonic() >= record["expires_at"]
        if record["revoked"] or expired:
            return "stale", record["generation"]
        return "ok", record["generation"]

    def snapshot_counters(self) -> dict:
        result = dict(self.counters)
        result["generation"] = self.generation
        return result


def _number(value: float) -> int | float:
    """3600.0 -> 3600, 1.5 -> 1.5 (JSON numbers without a needless fraction)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# ---------------------------------------------------------------------------------------
# multipart/form-data (RFC 7578), hand-written
# ---------------------------------------------------------------------------------------


def parse_header_params(value: str) -> tuple[str, dict[str, str]]:
    """Parse ``type; a=b; c="d \\" e"; f*=utf-8''%C3%A9`` into (type, params).

    Quoted strings honour backslash escapes; ``name*`` params (RFC 5987/8187) are
    percent-decoded in their charset and win over the plain ``name``.
    """
    i = 0
    n = len(value)
    while i < n and value[i] not in ";":
        i += 1
    main = value[:i].strip().lower()
    params: dict[str, str] = {}
    extended: dict[str, str] = {}
    while i < n:
        # skip ';' and whitespace
        while i < n and value[i] in "; \t":
            i += 1
        if i >= n:
            break
        start = i
        while i < n and value[i] not in "=;":
            i += 1
        key = value[start:i].strip().lower()
        if i >= n or value[i] == ";":
            if key:
                params[key] = ""
            continue
        i += 1  # '='
        while i < n and value[i] in " \t":
            i += 1
        if i < n and value[i] == '"':
            i += 1
            chars = []
            closed = False
            while i < n:
                c = value[i]
                if c == "\\" and i + 1 < n:
                    chars.append(value[i + 1])
                    i += 2
                    continue
                if c == '"':
                    closed = True
                    i += 1
                    break
                chars.append(c)
                i += 1
            if not closed:
                raise ValueError(f"unterminated quoted string in parameter {key!r}")
            val = "".join(chars)
            while i < n and value[i] != ";":
                i += 1
        else:
            start = i
            while i < n and value[i] != ";":
                i += 1
            val = value[start:i].strip()
        if key.endswith("*"):
            extended[key[:-1]] = _decode_ext_value(val)
        else:
            params[key] = val
    params.update(extended)
    return main, params


def _decode_ext_value(val: str) -> str:
    parts = val.split("'", 2)
    if len(parts) != 3:
        raise ValueError(f"malformed extended parameter value {val!r}")
    charset = parts[0] or "utf-8"
    try:
        return urllib.parse.unquote(parts[2], encoding=charset, errors="strict")
    except (LookupError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot decode extended parameter value {val!r}: {exc}") from None


def _decode_header_bytes(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def parse_multipart(body: bytes, content_type: str) -> dict:
    """Parse a multipart/form-data body; raises ValueError when it is malformed."""
    kind, params = parse_header_params(content_type)
    if kind != "multipart/form-data":
        raise ValueError(f"Content-Type is {kind or 'missing'}, expected multipart/form-data")
    boundary = params.get("boundary")
    if not boundary:
        raise ValueError("Content-Type has no boundary parameter")
    if len(boundary) > 70:
        raise ValueError("boundary is longer than 70 characters")
    delimiter = b"--" + boundary.encode("latin-1", errors="replace")
    if body.startswith(delimiter):
        pos = len(delimiter)
    else:
        found = body.find(b"\r\n" + delimiter)
        if found < 0:
            raise ValueError("body does not contain the opening boundary")
        pos = found + 2 + len(delimiter)
    parts = []
    while True:
        if body[pos:pos + 2] == b"--":
            break  # close delimiter; the epilogue is ignored
        # transport padding, then CRLF
        while body[pos:pos + 1] in (b" ", b"\t"):
            pos += 1
        if body[pos:pos + 2] != b"\r\n":
            raise ValueError("boundary line is not followed by CRLF")
        pos += 2
        end = body.find(b"\r\n" + delimiter, pos)
        if end < 0:
            raise ValueError("part is not terminated by a boundary (missing close delimiter)")
        parts.append(_parse_part(body[pos:end]))
        pos = end + 2 + len(delimiter)
    return {"parts": parts, "boundary": boundary}


def _parse_part(raw: bytes) -> dict:
    if raw.startswith(b"\r\n"):
        header_block, content = b"", raw[2:]
    else:
        split = raw.find(b"\r\n\r\n")
        if split < 0:
            raise ValueError("part has no blank line between headers and content")
        header_block, content = raw[:split], raw[split + 4:]
    headers: dict[str, str] = {}
    last = None
    for line in header_block.split(b"\r\n"):
        if line[:1] in (b" ", b"\t") and last is not None:  # obsolete folding
            headers[last] += " " + _decode_header_bytes(line).strip()
            continue
        if b":" not in line:
            raise ValueError(f"malformed part header line {line[:80]!r}")
        name, _, value = line.partition(b":")
        last = name.decode("latin-1").strip().lower()
        headers[last] = _decode_header_bytes(value).strip()
    disposition = headers.get("content-disposition")
    if disposition is None:
        raise ValueError("part has no Content-Disposition header")
    kind, params = parse_header_params(disposition)
    if kind != "form-data":
        raise ValueError(f"part Content-Disposition is {kind!r}, expected form-data")
    if "name" not in params:
        raise ValueError("part Content-Disposition has no name parameter")
    filename = params.get("filename")
    value = None
    if filename is None and len(content) < 1024:
        value = content.decode("utf-8", errors="replace")
    return {
        "name": params["name"],
        "filename": filename,
        "content_type": headers.get("content-type"),
        "length": len(content),
        "sha256": hashlib.sha256(content).hexdigest(),
        "value": value,
    }


# ---------------------------------------------------------------------------------------
# Request handler
# ---------------------------------------------------------------------------------------


# ----- hostile routes ------------------------------------------------------------------------
#
# Servers that misbehave on purpose, for the tests of Courier's defences (issue 10). Each
# route that a test counts takes a <key> in its path, so tests sharing one server never see
# each other's counts; GET /hostile/count/<key> reads them.


class HostileLog:
    """Per-key counts of what the hostile routes saw, behind their own lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.counts: dict[str, dict[str, int]] = {}

    def add(self, key: str, name: str, amount: int = 1) -> None:
        with self.lock:
            entry = self.counts.setdefault(key, {"requests": 0, "complete_bodies": 0, "incomplete_bodies": 0, "bytes_sent": 0})
            entry[name] += amount

    def get(self, key: str) -> dict[str, int]:
        with self.lock:
            return dict(self.counts.get(key, {"requests": 0, "complete_bodies": 0, "incomplete_bodies": 0, "bytes_sent": 0}))


HOSTILE_LOG = HostileLog()

# A gzip member whose first deflate block has the reserved block type 3: every inflater
# rejects it ("invalid block type").
CORRUPT_GZIP = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03" + b"\xff" * 64
# A zlib stream (Content-Encoding: deflate) with the same invalid block.
CORRUPT_DEFLATE = b"\x78\x9c" + b"\xff" * 64


@functools.lru_cache(maxsize=4)
def gzip_of_zeros(size: int) -> bytes:
    """`size` zero bytes, gzip-compressed (about 1000:1), built block by block."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(BLOCK * 16)
    parts = []
    remaining = size
    while remaining:
        n = min(len(zeros), remaining)
        parts.append(compressor.compress(zeros[:n]))
        remaining -= n
    parts.append(compressor.flush())
    return b"".join(parts)


class HostileRoutes:
    """The /hostile/... routes; mixed into Handler."""

    def _hostile(self, name: str) -> None:
        kind, _, key = name.partition("/")
        if kind == "count":
            self._drain_body()
            return self._send_json(200, HOSTILE_LOG.get(key))
        if key:
            HOSTILE_LOG.add(key, "requests")
        if kind == "drop-after-body":
            return self._hostile_drop_after_body(key)
        if kind == "gzip-corrupt":
            self._drain_body()
            return self._send(200, CORRUPT_GZIP, "text/plain", [("Content-Encoding", "gzip")])
        if kind == "deflate-corrupt":
            self._drain_body()
            return self._send(200, CORRUPT_DEFLATE, "text/plain", [("Content-Encoding", "deflate")])
        if kind == "gzip-bomb":
            size = self._int_arg("size", 64 * 1024 * 1024)
            if not 0 <= size <= 1024 * 1024 * 1024:
                raise BadRequest("size must be between 0 and 1 GiB")
            self._drain_body()
            return self._send(200, gzip_of_zeros(size), "application/octet-stream", [("Content-Encoding", "gzip")])
        if kind == "huge":
            return self._hostile_huge(key)
        if kind == "disposition":
            return self._hostile_disposition()
        if kind in HOSTILE_TIME_ROUTES:
            return HOSTILE_TIME_ROUTES[kind](self, key)
        self._drain_body()
        self._send_json(404, {"error": "not found"})

    def _hostile_drop_after_body(self, key: str) -> None:
        """Reads the whole body, counts it, then closes the connection without an answer."""
        try:
            self._drain_body()
        except (BadRequest, BodyStalled):
            # Headers alone, or a body cut short or stalled: not a request anyone could act on.
            HOSTILE_LOG.add(key, "incomplete_bodies")
            return self._abort_connection(reset=False)
        HOSTILE_LOG.add(key, "complete_bodies")
        self._abort_connection(reset=False)

    def _hostile_huge(self, key: str) -> None:
        """`size` bytes (default 1 GiB, at most 16 GiB) of the /bytes pattern; `chunked=1`
        sends no length; `block_delay_ms` sleeps after each 64 KiB block. Counts the bytes
        written, so a test can see when the client stopped."""
        size = self._int_arg("size", 1024 * 1024 * 1024)
        if not 0 <= size <= 16 * 1024 * 1024 * 1024:
            raise BadRequest("size must be between 0 and 16 GiB")
        chunked = self._arg("chunked") == "1"
        block_delay = max(0, self._int_arg("block_delay_ms", 0)) / 1000
        self._drain_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(size))
        self.end_headers()
        self._headers_sent = True
        sent = 0
        try:
            while sent < size:
                n = min(BLOCK, size - sent)
                block = _PATTERN_BLOCK[:n]
                self._write(b"%x\r\n%s\r\n" % (n, block) if chunked else block)
                sent += n
                HOSTILE_LOG.add(key, "bytes_sent", n)
                if block_delay:
                    time.sleep(block_delay)
            if chunked:
                self._write(b"0\r\n\r\n")
        except ClientGone:
            self.close_connection = True

    def _hostile_disposition(self) -> None:
        """A small download named by the query: `filename=<name>` (quoted), or `header=<raw
        Content-Disposition value>`. CR and LF become spaces so the answer stays one header."""
        self._drain_body()
        raw = self._arg("header")
        if raw is None:
            name = (self._arg("filename") or "").replace("\\", "\\\\").replace('"', '\\"')
            raw = f'attachment; filename="{name}"'
        raw = raw.replace("\r", " ").replace("\n", " ")
        # Non-Latin-1 names go out as raw UTF-8 bytes, as real servers send them.
        raw = raw.encode("utf-8").decode("latin-1")
        self._send(200, b"hostile download\n", "application/octet-stream", [("Content-Disposition", raw)])


# ----- held requests -----------------------------------------------------------------------
#
# A request a test can cancel while it is known to be at the server, and an event that says
# it arrived, so the test never sleeps or polls: GET /hold/<key> is answered 200 only once
# POST /_admin/hold/release/<key> lets it go (or after `max_ms`, default 600000);
# GET /_admin/hold/arrived/<key>?timeout_ms=N (default 60000) answers 200 once a /hold/<key>
# request has arrived, or 504 when none did within N ms.


class HeldRequests:
    """Per-key events: a /hold/<key> request arrived; the test released it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: dict[str, tuple[threading.Event, threading.Event]] = {}

    def get(self, key: str) -> tuple[threading.Event, threading.Event]:
        with self.lock:
            return self.events.setdefault(key, (threading.Event(), threading.Event()))


HELD_REQUESTS = HeldRequests()


class HoldRoutes:
    """/hold/<key> and /_admin/hold/...; mixed into Handler."""

    def _hold(self, key: str) -> None:
        if not key:
            raise BadRequest("/hold/ needs a key")
        self._drain_body()
        arrived, released = HELD_REQUESTS.get(key)
        arrived.set()
        max_ms = max(0, self._int_arg("max_ms", 600_000))
        was_released = released.wait(max_ms / 1000)
        return self._send_json(200, {"held": key, "released": was_released})

    def _hold_control(self, name: str) -> None:
        self._drain_body()
        action, _, key = name.partition("/")
        if not key:
            raise BadRequest("/_admin/hold/<action>/ needs a key")
        arrived, released = HELD_REQUESTS.get(key)
        if action == "arrived":
            timeout_ms = max(0, self._int_arg("timeout_ms", 60_000))
            if arrived.wait(timeout_ms / 1000):
                return self._send_json(200, {"arrived": key})
            return self._send_json(504, {"error": f"no /hold/{key} request arrived within {timeout_ms} ms"})
        if action == "release":
            released.set()
            return self._send_json(200, {"released": key})
        return self._send_json(404, {"error": "not found"})


class Handler(HostileRoutes, HoldRoutes, BaseHTTPRequestHandler):
    # Headers and body go out in separate writes; without TCP_NODELAY, Nagle's algorithm
    # and the client's delayed ACK add ~40 ms to every keep-alive response.
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server_version = "CourierTestServer/1.0"
    server: "Server"

    # Any method (GET, POST, PATCH, PROPFIND, …) goes through the same dispatcher.
    def __getattr__(self, name: str):
        if name.startswith("do_"):
            return self._dispatch
        raise AttributeError(name)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - silence per-request log
        pass

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Protocol-level errors (bad request line, oversized headers…) answer JSON too."""
        self.close_connection = True
        short = self.responses.get(code, ("error",))[0]
        body = json.dumps({"error": message or short}).encode()
        self.send_response(code, message)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD" and code >= 200 and code not in (204, 304):
            self.wfile.write(body)

    # ----- plumbing --------------------------------------------------------------------

    @property
    def state(self) -> State:
        return self.server.state

    def _dispatch(self) -> None:
        self._body_started = False
        self._body_done = False
        self._headers_sent = False
        raw_path, _, query = self.path.partition("?")
        self.raw_path = raw_path
        self.query = query
        self.args = urllib.parse.parse_qs(query, keep_blank_values=True)
        try:
            if not raw_path.startswith("/_admin/"):
                with self.state.lock:
                    self.state.counters["requests_total"] += 1
            self._route()
            if not self.close_connection and not self._body_done:
                self._drain_body()
        except ClientGone:
            self.close_connection = True
        except BodyStalled:
            self._abort_connection(reset=False)
        except BadRequest as exc:
            self.close_connection = True
            if not self._headers_sent:
                self._send_json(400, {"error": str(exc)}, close=True)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True
        except Exception as exc:  # never crash on bad input
            traceback.print_exc(file=sys.stderr)
            sys.stderr.flush()
            self.close_connection = True
            if not self._headers_sent:
                try:
                    self._send_json(500, {"error": f"internal error: {type(exc).__name__}: {exc}"}, close=True)
                except OSError:
                    pass

    def _arg(self, name: str, default: str | None = None) -> str | None:
        values = self.args.get(name)
        return values[0] if values else default

    def _int_arg(self, name: str, default: int) -> int:
        value = self._arg(name)
        if value is None or value == "":
            return default
        try:
            return int(value)
        except ValueError:
            raise BadRequest(f"query parameter {name} must be an integer, got {value!r}") from None

    # ----- request bodies ----------------------------------------------------------------

    def _is_chunked(self) -> bool:
        encodings = ",".join(self.headers.get_all("Transfer-Encoding") or [])
        return "chunked" in [e.strip().lower() for e in encodings.split(",")]

    def _iter_body(self):
        """Yield the request body in blocks of at most 64 KiB (Content-Length or chunked).

        A body that stalls for BODY_IDLE_TIMEOUT seconds ends the connection without an
        answer (see BodyStalled).
        """
        if self._body_started:
            raise RuntimeError("request body read twice")
        self._body_started = True
        if not self._is_chunked() and self.headers.get("Content-Length") in (None, "0"):
            self._body_done = True
            return
        self.connection.settimeout(BODY_IDLE_TIMEOUT)
        try:
            yield from self._iter_body_blocks()
        except TimeoutError:
            raise BodyStalled() from None
        finally:
            self.connection.settimeout(None)

    def _iter_body_blocks(self):
        rfile = self.rfile
        if self._is_chunked():
            while True:
                line = rfile.readline(1024)
                if not line.endswith(b"\n"):
                    raise BadRequest("truncated chunk size line")
                size_text = line.split(b";", 1)[0].strip()
                try:
                    size = int(size_text, 16)
                except ValueError:
                    raise BadRequest(f"invalid chunk size {size_text[:20]!r}") from None
                if size < 0:
                    raise BadRequest("negative chunk size")
                if size == 0:
                    while True:  # trailer section
                        trailer = rfile.readline(65537)
                        if not trailer:
                            raise BadRequest("truncated chunked trailer")
                        if trailer in (b"\r\n", b"\n"):
                            break
                    break
                remaining = size
                while remaining:
                    data = rfile.read(min(BLOCK, remaining))
                    if not data:
                        raise BadRequest("truncated chunk")
                    remaining -= len(data)
                    yield data
                if rfile.readline(3) not in (b"\r\n", b"\n"):
                    raise BadRequest("chunk not followed by CRLF")
        else:
            length_text = self.headers.get("Content-Length")
            if length_text is not None:
                try:
                    remaining = int(length_text)
                except ValueError:
                    raise BadRequest(f"invalid Content-Length {length_text!r}") from None
                if remaining < 0:
                    raise BadRequest("negative Content-Length")
                while remaining:
                    data = rfile.read(min(BLOCK, remaining))
                    if not data:
                        raise BadRequest("request body shorter than Content-Length")
                    remaining -= len(data)
                    yield data
        self._body_done = True

    def _read_body(self) -> bytes:
        return b"".join(self._iter_body())

    def _drain_body(self) -> int:
        total = 0
        for block in self._iter_body():
            total += len(block)
        return total

    # ----- responses ---------------------------------------------------------------------

    def _send(
        self,
        status: int,
        body: bytes = b"",
        content_type: str | None = "application/json",
        headers: list[tuple[str, str]] | None = None,
        close: bool = False,
        content_length: bool = True,
    ) -> None:
        self.send_response(status)
        if content_type is not None and (body or content_length):
            self.send_header("Content-Type", content_type)
        for name, value in headers or []:
            self.send_header(name, value)
        if content_length:
            self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self._headers_sent = True
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _send_json(self, status: int, obj, headers=None, close: bool = False) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json", headers, close)

    def _write(self, data: bytes) -> None:
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            raise ClientGone() from None

    def _abort_connection(self, reset: bool) -> None:
        """Close the socket now; with reset=True the peer sees a TCP RST (SO_LINGER 0)."""
        self.close_connection = True
        self._body_done = True
        conn = self.connection
        try:
            self.wfile.flush()
        except OSError:
            pass
        try:
            if reset:
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            else:
                conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        # rfile holds a reference to the socket (makefile); close it so close() is real.
        try:
            self.rfile.close()
        except OSError:
            pass
        try:
            conn.close()
        except OSError:
            pass

    # ----- routing -----------------------------------------------------------------------

    def _route(self) -> None:
        path = self.raw_path
        if path == "/echo" or path.startswith("/echo/"):
            return self._echo()
        if path.startswith("/status/"):
            return self._status(path[len("/status/"):])
        if path == "/challenge/basic":
            self._drain_body()
            return self._send_json(
                401, {"error": "unauthorized"}, [("WWW-Authenticate", 'Basic realm="courier"')]
            )
        if path == "/challenge/digest":
            self._drain_body()
            return self._send_json(
                401,
                {"error": "unauthorized"},
                [("WWW-Authenticate", 'Digest realm="courier", qop="auth", nonce="abc123", opaque="xyz"')],
            )
        if path.startswith("/delay/"):
            ms = self._path_int(path[len("/delay/"):], "delay")
            self._drain_body()
            time.sleep(ms / 1000)
            return self._send_json(200, {"delayed_ms": ms})
        if path == "/redirect":
            return self._redirect()
        if path == "/redirect-loop":
            self._drain_body()
            return self._send(302, b"", None, [("Location", self.path)])
        if path.startswith("/redirect-same/"):
            self._drain_body()
            target = "/" + path[len("/redirect-same/"):]
            if self.query:
                target += "?" + self.query
            return self._send(302, b"", None, [("Location", target)])
        if path.startswith("/bytes/"):
            return self._bytes(self._path_int(path[len("/bytes/"):], "byte count"))
        if path.startswith("/slow-bytes/"):
            return self._slow_bytes(self._path_int(path[len("/slow-bytes/"):], "byte count"))
        if path == "/upload":
            return self._upload()
        if path == "/slow-upload":
            return self._upload(block_delay=max(0, self._int_arg("block_delay_ms", 10)) / 1000)
        if path == "/slower-upload":
            # For clients that cancel mid-way: 250 ms a block keeps a 4 MiB upload in flight for
            # 16 s, so a cancellation that a loaded machine delays still lands mid-way.
            return self._upload(block_delay=0.25)
        if path == "/multipart":
            return self._multipart()
        if path == "/json/big":
            self._drain_body()
            return self._send(200, big_json())
        if path == "/json/invalid":
            self._drain_body()
            return self._send(200, b'{"broken": ')
        if path == "/json/nested":
            self._drain_body()
            return self._send(200, NESTED_JSON)
        if path.startswith("/fault/"):
            return self._fault(path[len("/fault/"):])
        if path.startswith("/flaky/"):
            return self._flaky(path[len("/flaky/"):])
        if path == "/oauth/token":
            return self._token()
        if path.startswith("/api/dpop-redirect/"):
            return self._dpop_redirect(path[len("/api/dpop-redirect/"):])
        if path.startswith("/api/"):
            return self._protected(business=False)
        if path.startswith("/biz/"):
            return self._protected(business=True)
        if path.startswith("/hold/"):
            return self._hold(path[len("/hold/"):])
        if path.startswith("/_admin/hold/"):
            return self._hold_control(path[len("/_admin/hold/"):])
        if path.startswith("/_admin/"):
            return self._admin(path[len("/_admin/"):])
        if path.startswith("/hostile/"):
            return self._hostile(path[len("/hostile/"):])
        if path.startswith("/html-status/"):
            return self._html_status(path[len("/html-status/"):])
        self._drain_body()
        self._send_json(404, {"error": "not found"})

    def _path_int(self, text: str, what: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise BadRequest(f"{what} must be an integer, got {text!r}") from None
        if value < 0:
            raise BadRequest(f"{what} must not be negative")
        return value

    # ----- simple routes -----------------------------------------------------------------

    def _echo(self) -> None:
        body = self._read_body()
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        content_type = (self.headers.get("Content-Type") or "").lower()
        media_type = content_type.split(";", 1)[0].strip()
        parsed_json = None
        if media_type == "application/json" or media_type.endswith("+json"):
            try:
                parsed_json = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                parsed_json = None
        form = None
        if media_type == "application/x-www-form-urlencoded":
            form = urllib.parse.parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
        self._send_json(
            200,
            {
                "method": self.command,
                "path": self.raw_path,
                "query": self.query,
                "args": self.args,
                "headers": headers,
                "body": body.decode("utf-8", errors="replace"),
                "body_base64": base64.b64encode(body).decode("ascii"),
                "body_length": len(body),
                "json": parsed_json,
                "form": form,
            },
        )

    def _status(self, text: str) -> None:
        code = self._path_int(text, "status code")
        if not 200 <= code <= 599:
            raise BadRequest("status code must be between 200 and 599")
        self._drain_body()
        if code in (204, 304):
            self._send(code, b"", None, content_length=False)
        else:
            self._send_json(code, {"status": code})

    def _redirect(self) -> None:
        self._drain_body()
        target = self._arg("to")
        if not target:
            raise BadRequest("/redirect needs a ?to=<absolute url> parameter")
        status = self._int_arg("status", 302)
        if not 300 <= status <= 399:
            raise BadRequest("redirect status must be 3xx")
        headers = [("Location", target)]
        if self._arg("set_cookie"):
            headers.append(("Set-Cookie", self._arg("set_cookie")))
        self._send(status, b"", None, headers)

    def _bytes(self, n: int) -> None:
        self._drain_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(n))
        self.end_headers()
        self._headers_sent = True
        if self.command == "HEAD":
            return
        sent = 0
        while sent < n:
            size = min(BLOCK, n - sent)
            self._write(_PATTERN_BLOCK[:size])  # BLOCK is a multiple of 256: blocks align
            sent += size

    def _slow_bytes(self, n: int) -> None:
        chunks = max(1, self._int_arg("chunks", 10))
        delay = max(0, self._int_arg("delay_ms", 100)) / 1000
        self._drain_body()
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(n))
        self.end_headers()
        self._headers_sent = True
        if self.command == "HEAD":
            return
        try:
            self.wfile.flush()
        except OSError:
            raise ClientGone() from None
        base, extra = divmod(n, chunks)
        offset = 0
        for index in range(chunks):
            size = base + (1 if index < extra else 0)
            if index > 0 and delay:
                time.sleep(delay)
            if size:
                self._write(pattern_bytes(offset, size))
            offset += size

    def _upload(self, block_delay: float = 0) -> None:
        if self.command not in ("POST", "PUT"):
            self._drain_body()
            return self._send_json(405, {"error": "method not allowed"}, [("Allow", "POST, PUT")])
        digest = hashlib.sha256()
        length = 0
        for block in self._iter_body():
            digest.update(block)
            length += len(block)
            if block_delay:
                time.sleep(block_delay)  # /slow-upload: a slow reader keeps an upload in flight
        self._send_json(
            200,
            {"length": length, "sha256": digest.hexdigest(), "content_type": self.headers.get("Content-Type")},
        )

    def _multipart(self) -> None:
        if self.command != "POST":
            self._drain_body()
            return self._send_json(405, {"error": "method not allowed"}, [("Allow", "POST")])
        body = self._read_body()
        try:
            result = parse_multipart(body, self.headers.get("Content-Type") or "")
        except ValueError as exc:
            return self._send_json(400, {"error": str(exc)})
        result["args"] = self.args  # uploadCompositeMultipart's URL parameters
        result["length"] = len(body)
        self._send_json(200, result)

    def _send_partial(self, promised: int, sent: int) -> None:
        """A 200 whose Content-Length promises `promised` bytes, followed by only `sent`."""
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(promised))
        self.end_headers()
        self._headers_sent = True
        try:
            self.wfile.write(pattern_bytes(0, sent))
            self.wfile.flush()
        except OSError:
            pass

    def _fault(self, name: str) -> None:
        if name == "reset":
            self._send_partial(promised=1000, sent=10)
            time.sleep(0.05)  # let the client read the head before the reset arrives
            return self._abort_connection(reset=True)
        if name == "close-before-headers":
            return self._abort_connection(reset=False)
        if name.startswith("slow-headers/"):
            ms = self._path_int(name[len("slow-headers/"):], "delay")
            self._drain_body()
            time.sleep(ms / 1000)
            return self._send_json(200, {"delayed_ms": ms})
        if name == "truncated":
            self._drain_body()
            self._send_partial(promised=1000, sent=100)
            return self._abort_connection(reset=False)
        if name == "huge-headers":
            size = self._int_arg("size", 65536)
            if not 0 < size <= 16 * 1024 * 1024:
                raise BadRequest("size must be between 1 byte and 16 MiB")
            self._drain_body()
            return self._send_json(200, {"huge_header_length": size}, [("X-Huge", "h" * size)])
        self._drain_body()
        self._send_json(404, {"error": "not found"})

    def _flaky(self, key: str) -> None:
        fail = self._int_arg("fail", 1)
        status = self._int_arg("status", 503)
        retry_after = self._arg("retry_after")
        self._drain_body()
        with self.state.lock:
            attempt = self.state.flaky.get(key, 0) + 1
            self.state.flaky[key] = attempt
        if attempt <= fail:
            headers = [("Retry-After", retry_after)] if retry_after is not None else []
            return self._send_json(status, {"error": "flaky", "key": key, "attempt": attempt}, headers)
        self._send_json(200, {"key": key, "attempt": attempt})

    # ----- OAuth2 --------------------------------------------------------------------------

    def _token(self) -> None:
        state = self.state
        body = self._read_body()
        form = urllib.parse.parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)

        def field(name: str) -> str | None:
            values = form.get(name)
            return values[0] if values else None

        grant = field("grant_type")
        with state.lock:
            counters = state.counters
            counters["token_requests"] += 1
            if grant == "password":
                counters["password_grants"] += 1
            elif grant == "refresh_token":
                counters["refresh_grants"] += 1
            elif grant == "client_credentials":
                counters["client_credentials_grants"] += 1
            fault = None
            if state.config["token_fault_rate"] and state.random.random() < state.config["token_fault_rate"]:
                fault = "500"
                counters["token_random_faults"] += 1
            rule = state.config["token_fault"] if fault is None else None
            if rule is not None:
                fault = rule["mode"]
                if rule["count"] > 0:
                    rule["count"] -= 1
                    if rule["count"] == 0:
                        state.config["token_fault"] = None
            fault_sleep = state.config["token_fault_sleep"]
            challenge = state.config["invalid_client_challenge"]
            delay_ms = state.config["refresh_delay_ms"] if grant == "refresh_token" else 0
            hold = state.config["refresh_hold"] if grant == "refresh_token" else None
            expires_in_text = state.config["expires_in_override"]

        if delay_ms:
            time.sleep(delay_ms / 1000)
        if hold is not None:
            arrived, released = HELD_REQUESTS.get(hold)
            arrived.set()
            released.wait(600)
        if fault is not None:
            return self._token_fault(fault, fault_sleep, challenge)
        if self.command != "POST":
            return self._send_json(405, {"error": "invalid_request", "error_description": "use POST"})

        # A proof binds the tokens to its key; it is checked before the grant, so that a nonce
        # challenge or a refused proof never uses up a refresh token.
        proof = self._single_header("DPoP")
        jkt = None
        nonce_header = []
        if proof is not None:
            verdict = state.dpop.check(proof, "as", self.command, self._request_uri(), None)
            if verdict["nonce"] is not None:
                nonce_header = [("DPoP-Nonce", verdict["nonce"])]
            if "error" in verdict:
                with state.lock:
                    counter = "dpop_nonce_challenges" if verdict["error"] == "use_dpop_nonce" else "dpop_proof_rejections"
                    state.counters[counter] += 1
                return self._send_json(
                    400, {"error": verdict["error"], "error_description": verdict["description"]}, nonce_header
                )
            jkt = verdict["jkt"]

        def send_token(response: dict) -> None:
            body = json.dumps(response)
            if expires_in_text is not None:
                response.pop("expires_in", None)
                body = json.dumps(response)[:-1] + ', "expires_in": ' + expires_in_text + "}"
            if jkt is not None:
                with state.lock:
                    state.counters["dpop_bound_issued"] += 1
            headers = [("Cache-Control", "no-store")] + nonce_header
            self._send(200, body.encode(), "application/json", headers)

        if grant == "password":
            username = field("username")
            password = field("password")
            if username is None:
                return self._send_json(
                    400, {"error": "invalid_request", "error_description": "username is missing"}
                )
            if not password or username == "bad":
                return self._send_json(
                    400, {"error": "invalid_grant", "error_description": "wrong username or password"}
                )
            with state.lock:
                response = state.issue(
                    state.config["token_lifetime"], None, state.config["include_refresh_token"], jkt=jkt
                )
            return send_token(response)

        if grant == "refresh_token":
            presented = field("refresh_token")
            with state.lock:
                record = state.refresh_tokens.get(presented) if presented else None
                if record is not None and not record["valid"] and state.config["reuse_detection"]:
                    # A refresh token used twice: one of the two users may be a thief, so the
                    # whole family is revoked, as real servers with rotation do.
                    state.counters["refresh_token_reuses"] += 1
                    state.revoke_family(record["family"])
                if record is None or not record["valid"]:
                    reason = (
                        "refresh_token is missing"
                        if not presented
                        else "refresh token is unknown"
                        if record is None
                        else "refresh token was already used or revoked"
                    )
                    return self._send_json(400, {"error": "invalid_grant", "error_description": reason})
                if record.get("jkt") is not None and record["jkt"] != jkt:
                    # RFC 9449 §5: a bound refresh token is refreshed only with a proof by its key.
                    state.counters["dpop_proof_rejections"] += 1
                    what = "has no DPoP proof" if jkt is None else "is signed by another key than the refresh token's"
                    return self._send_json(
                        400,
                        {"error": "invalid_dpop_proof", "error_description": f"the refresh request {what}"},
                        nonce_header,
                    )
                config = state.config
                family = record["family"]
                if not config["include_refresh_token"]:
                    response = state.issue(config["token_lifetime"], None, False, family, jkt)
                elif config["rotate_refresh_tokens"]:
                    record["valid"] = False
                    response = state.issue(config["token_lifetime"], None, True, family, jkt)
                else:
                    response = state.issue(config["token_lifetime"], presented, False, family, jkt)
                state.counters["refresh_successes"] += 1
            return send_token(response)

        if grant == "client_credentials":
            with state.lock:
                response = state.issue(state.config["token_lifetime"], None, False, jkt=jkt)
            return send_token(response)

        self._send_json(
            400,
            {
                "error": "unsupported_grant_type",
                "error_description": f"grant_type {grant!r} is not supported" if grant else "grant_type is missing",
            },
        )

    def _token_fault(self, mode: str, sleep_seconds: float, challenge: bool) -> None:
        if mode == "500":
            return self._send_json(500, {"error": "server_error"})
        if mode == "timeout":
            time.sleep(sleep_seconds)
            return self._send_json(503, {"error": "temporarily_unavailable"})
        if mode == "drop":
            return self._abort_connection(reset=False)
        if mode == "malformed":
            return self._send(200, b'{"access_token": "x"')
        if mode == "missing_access_token":
            return self._send_json(200, {"token_type": "Bearer", "expires_in": 3600})
        if mode == "invalid_grant":
            return self._send_json(400, {"error": "invalid_grant"})
        if mode == "invalid_client":
            headers = [("WWW-Authenticate", 'Basic realm="oauth"')] if challenge else []
            return self._send_json(401, {"error": "invalid_client"}, headers)
        if mode == "huge_access_token":
            # 200 with a 1 MiB access token (no server takes an Authorization header that long)
            # and a rotated refresh token that was never issued: a client that stores this
            # answer has lost its session. The presented refresh token stays valid.
            return self._send_json(
                200,
                {
                    "access_token": "at-huge-" + "x" * (1 << 20),
                    "token_type": "Bearer",
                    "expires_in": 3600,
                    "refresh_token": "rt-never-issued",
                },
            )
        raise RuntimeError(f"unknown token fault mode {mode!r}")

    def _single_header(self, name: str) -> str | None:
        """The header's value when it is given exactly once; None when absent or repeated."""
        values = self.headers.get_all(name) or []
        return values[0].strip() if len(values) == 1 else None

    def _request_uri(self) -> str:
        """The URI a DPoP proof's htu names: scheme, the Host the client sent, and the path
        without query or fragment."""
        host = self.headers.get("Host") or f"127.0.0.1:{self.server.server_address[1]}"
        return f"http://{host.lower()}{urllib.parse.urlsplit(self.raw_path).path}"

    def _dpop_token(self) -> str | None:
        """The token of `Authorization: DPoP <token>`, or None."""
        value = self._single_header("Authorization")
        if value is None:
            return None
        scheme, _, token = value.partition(" ")
        token = token.strip()
        if scheme.lower() != "dpop" or not token or any(c in token for c in " ,\t"):
            return None
        return token

    def _dpop_refusal(self, error: str, description: str, nonce: str | None, counter: str) -> None:
        with self.state.lock:
            counters = self.state.counters
            counters[counter] += 1
            counters["protected_requests"] += 1
            counters["auth_headers_seen"] += 1
            counters["protected_401"] += 1
        quoted = description.replace("\\", "\\\\").replace('"', '\\"')
        headers = [("WWW-Authenticate", f'DPoP algs="ES256", error="{error}", error_description="{quoted}"')]
        if nonce is not None:
            headers.append(("DPoP-Nonce", nonce))
        self._send_json(401, {"error": error, "error_description": description}, headers)

    def _dpop_redirect(self, rest: str) -> None:
        """`/api/dpop-redirect/<status>/<rest>`: a <status> redirect (301, 302, 303, 307, 308) to
        `/api/<rest>` on this origin, answered only to a request whose DPoP proof is valid for
        this hop (its own URL and method, an unused jti, the nonce): RFC 9449 §4.3 asks a proof
        per request, so a client that resends the first hop's proof after a redirect is
        refused at the next hop. A request with no DPoP token is redirected as it is."""
        self._drain_body()
        status_text, _, target = rest.partition("/")
        try:
            status = int(status_text)
        except ValueError:
            status = 0
        if status not in (301, 302, 303, 307, 308):
            raise BadRequest("/api/dpop-redirect/<301|302|303|307|308>/<path>")
        state = self.state
        headers = [("Location", "/api/" + target)]
        dpop_token = self._dpop_token()
        if dpop_token is not None:
            verdict = state.dpop.check(self._single_header("DPoP"), "rs", self.command, self._request_uri(), dpop_token)
            if "error" in verdict:
                counter = "dpop_nonce_challenges" if verdict["error"] == "use_dpop_nonce" else "dpop_proof_rejections"
                return self._dpop_refusal(verdict["error"], verdict["description"], verdict["nonce"], counter)
            if verdict["nonce"] is not None:
                headers.append(("DPoP-Nonce", verdict["nonce"]))
            with state.lock:
                state.counters["dpop_redirect_hops"] += 1
        self._send(status, b"", None, headers)

    def _bearer_token(self) -> tuple[bool, str | None]:
        """(carried an Authorization header, bearer token or None if absent/malformed)."""
        values = self.headers.get_all("Authorization") or []
        if not values:
            return False, None
        if len(values) > 1:
            return True, None  # two Authorization headers: a request signed twice is invalid
        scheme, _, token = values[0].strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token or any(c in token for c in " ,\t"):
            return True, None
        return True, token

    def _protected(self, business: bool) -> None:
        body_length = self._drain_body()
        carried, token = self._bearer_token()
        state = self.state
        # DPoP: a bound token is accepted only as `Authorization: DPoP` with a proof by its key.
        dpop_token = self._dpop_token()
        nonce_header = []
        if dpop_token is not None:
            token = dpop_token
            with state.lock:
                record = state.access_tokens.get(token)
                bound = record.get("jkt") if record else None
            verdict = state.dpop.check(self._single_header("DPoP"), "rs", self.command, self._request_uri(), token)
            if "error" in verdict:
                counter = "dpop_nonce_challenges" if verdict["error"] == "use_dpop_nonce" else "dpop_proof_rejections"
                return self._dpop_refusal(verdict["error"], verdict["description"], verdict["nonce"], counter)
            if verdict["nonce"] is not None:
                nonce_header = [("DPoP-Nonce", verdict["nonce"])]
            if bound is not None and bound != verdict["jkt"]:
                return self._dpop_refusal(
                    "invalid_token", "the token is bound to another key", verdict["nonce"], "dpop_proof_rejections"
                )
            if record is not None and bound is None:
                return self._dpop_refusal(
                    "invalid_token", "a bearer token sent as DPoP", verdict["nonce"], "dpop_bearer_misuses"
                )
        elif token is not None:
            with state.lock:
                record = state.access_tokens.get(token)
                bound = record.get("jkt") if record else None
            if bound is not None:
                # A DPoP-bound token presented as a bearer token: refused, as RFC 9449 §7.2 asks.
                return self._dpop_refusal(
                    "invalid_token", "a DPoP-bound token sent as Bearer", state.dpop.current_nonce("rs"),
                    "dpop_bearer_misuses",
                )
        always_401 = not business and self.raw_path.startswith("/api/always-401/")
        carried = carried or dpop_token is not None
        with state.lock:
            counters = state.counters
            counters["protected_requests"] += 1
            if state.config["api_fault_rate"] and state.random.random() < state.config["api_fault_rate"]:
                counters["protected_faults"] += 1
                fault = True
            else:
                fault = False
        if fault:
            return self._send_json(503, {"error": "injected fault"}, [("Retry-After", "0")])
        with state.lock:
            if carried:
                counters["auth_headers_seen"] += 1
            verdict, generation = state.check_access(token)
            if verdict == "stale":
                counters["stale_token_uses"] += 1
                # A token already replaced by a newer one, arriving well after the newer one
                # was issued: the client reused a token it should have dropped.
                grace = state.config["stale_grace_ms"] / 1000
                if (
                    generation is not None
                    and generation < state.generation
                    and state.latest_issued_at is not None
                    and time.monotonic() - state.latest_issued_at > grace
                ):
                    counters["stale_after_refresh"] += 1
            ok = verdict == "ok" and not always_401
            counters["protected_ok" if ok else "protected_401"] += 1
        if business:
            if ok:
                return self._send_json(200, {"status": "0", "generation": generation}, nonce_header)
            return self._send_json(200, {"status": "8", "message": "token expired"}, nonce_header)
        if ok:
            return self._send_json(
                200,
                {
                    "ok": True,
                    "path": self.raw_path,
                    "method": self.command,
                    "generation": generation,
                    "body_length": body_length,
                },
                nonce_header,
            )
        scheme = "DPoP" if dpop_token is not None else "Bearer"
        self._send_json(
            401,
            {"error": "invalid_token"},
            [("WWW-Authenticate", f'{scheme} realm="courier", error="invalid_token"')] + nonce_header,
        )

    # ----- admin ---------------------------------------------------------------------------

    def _admin(self, name: str) -> None:
        body = self._read_body()
        payload = None
        if body.strip():
            try:
                payload = json.loads(body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError) as exc:
                return self._send_json(400, {"error": f"admin body is not JSON: {exc}"})
        state = self.state
        if name == "counters":
            reuses = state.dpop.take_reuses()
            with state.lock:
                state.counters["dpop_nonce_reuses"] += reuses
                snapshot = state.snapshot_counters()
            return self._send_json(200, snapshot)
        if name == "config":
            if self.command == "GET":
                with state.lock:
                    return self._send_json(200, _config_json(state.config, state.dpop.snapshot()))
            try:
                if isinstance(payload, dict) and "dpop" in payload:
                    payload = dict(payload)
                    changes = payload.pop("dpop")
                    if not isinstance(changes, dict):
                        raise ValueError("dpop must be a JSON object")
                    state.dpop.configure(changes)
                with state.lock:
                    _apply_config(state.config, payload or {})
                    if isinstance(payload, dict) and "fault_seed" in payload:
                        state.random.seed(payload["fault_seed"])
                    return self._send_json(200, _config_json(state.config, state.dpop.snapshot()))
            except ValueError as exc:
                return self._send_json(400, {"error": str(exc)})
        if self.command != "POST":
            return self._send_json(405, {"error": "admin actions other than counters/config need POST"})
        if name == "expire-access-tokens":
            with state.lock:
                now = time.monotonic()
                live = 0
                for record in state.access_tokens.values():
                    expired = record["expires_at"] is not None and now >= record["expires_at"]
                    if not record["revoked"] and not expired:
                        live += 1
                    record["revoked"] = True
                count = len(state.access_tokens)
            return self._send_json(200, {"expired": count, "live_expired": live})
        if name == "revoke-refresh-tokens":
            with state.lock:
                for record in state.refresh_tokens.values():
                    record["valid"] = False
                count = len(state.refresh_tokens)
            return self._send_json(200, {"revoked": count})
        if name == "reset-counters":
            state.dpop.take_reuses()
            with state.lock:
                for key in state.counters:
                    state.counters[key] = 0
                snapshot = state.snapshot_counters()
            return self._send_json(200, snapshot)
        if name == "issue":
            payload = payload or {}
            if not isinstance(payload, dict):
                return self._send_json(400, {"error": "issue body must be a JSON object"})
            with state.lock:
                lifetime = payload.get("lifetime", state.config["token_lifetime"])
                if lifetime is not None and (not _is_number(lifetime) or lifetime < 0):
                    return self._send_json(400, {"error": "lifetime must be a non-negative number or null"})
                with_refresh = payload.get("refresh_token", True)
                response = state.issue(
                    None if lifetime is None else float(lifetime), None, bool(with_refresh)
                )
            return self._send_json(200, response, [("Cache-Control", "no-store")])
        self._send_json(404, {"error": "not found"})


    # ----- pages that are not OAuth answers ------------------------------------------------

    def _html_status(self, text: str) -> None:
        """That status with an HTML page: what an SSO error page, a captive portal or a
        gateway answers (any method), which says nothing about a refresh token."""
        code = self._path_int(text, "status code")
        if not 200 <= code <= 599:
            raise BadRequest("status code must be between 200 and 599")
        self._drain_body()
        page = f"<!DOCTYPE html><html><body><h1>{code}</h1><p>Please sign in to the network.</p></body></html>"
        self._send(code, page.encode(), "text/html; charset=utf-8")


def _config_json(config: dict, dpop_settings: dict | None = None) -> dict:
    result = dict(config)
    if dpop_settings is not None:
        result["dpop"] = dpop_settings
    for key in ("token_lifetime", "refresh_delay_ms", "token_fault_sleep"):
        if result[key] is not None:
            result[key] = _number(result[key])
    if result["token_fault"] is not None:
        result["token_fault"] = dict(result["token_fault"])
    return result


def _apply_config(config: dict, changes) -> None:
    """Validate every change first, then apply them all (raises ValueError)."""
    if not isinstance(changes, dict):
        raise ValueError("config body must be a JSON object")
    updates = {}
    for key, value in changes.items():
        if key == "token_lifetime":
            if value is not None and (not _is_number(value) or value < 0):
                raise ValueError("token_lifetime must be a non-negative number or null")
            updates[key] = None if value is None else float(value)
        elif key == "expires_in_override":
            # Raw JSON text, sent as is: hostile lifetimes are the point.
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise ValueError("expires_in_override must be JSON text (a string) or null")
            updates[key] = value
        elif key in ("rotate_refresh_tokens", "include_refresh_token", "invalid_client_challenge", "reuse_detection"):
            if not isinstance(value, bool):
                raise ValueError(f"{key} must be a boolean")
            updates[key] = value
        elif key == "refresh_hold":
            if value is not None and (not isinstance(value, str) or not value):
                raise ValueError("refresh_hold must be a hold key (a string) or null")
            updates[key] = value
        elif key == "refresh_delay_ms":
            if not _is_number(value) or value < 0:
                raise ValueError("refresh_delay_ms must be a non-negative number")
            updates[key] = value
        elif key in ("token_fault_rate", "api_fault_rate"):
            if not _is_number(value) or not 0 <= value <= 1:
                raise ValueError(f"{key} must be a number from 0 to 1")
            updates[key] = float(value)
        elif key == "stale_grace_ms":
            if not _is_number(value) or value < 0:
                raise ValueError("stale_grace_ms must be a non-negative number")
            updates[key] = value
        elif key == "fault_seed":
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError("fault_seed must be an integer")
            updates[key] = value
        elif key == "token_fault_sleep":
            if not _is_number(value) or value < 0:
                raise ValueError("token_fault_sleep must be a non-negative number")
            updates[key] = float(value)
        elif key == "token_fault":
            if value is None:
                updates[key] = None
                continue
            if not isinstance(value, dict):
                raise ValueError('token_fault must be {"mode": …, "count": n} or null')
            mode = str(value.get("mode"))
            if mode not in FAULT_MODES:
                raise ValueError(f"token_fault mode must be one of {sorted(FAULT_MODES)}")
            count = value.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or count < -1:
                raise ValueError("token_fault count must be an integer ≥ -1 (-1: forever)")
            updates[key] = None if count == 0 else {"mode": mode, "count": count}
        else:
            raise ValueError(f"unknown config key {key!r}")
    config.update(updates)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 2048

    def __init__(self, address, state: State) -> None:
        self.state = state
        super().__init__(address, Handler)

    def handle_error(self, request, client_address) -> None:
        exc = sys.exc_info()[1]
        if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)):
            return
        sys.stderr.write(f"error while serving {client_address}:\n")
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()


def _watch_stdin() -> None:
    """End the whole process when stdin reaches EOF (the parent closed it or died)."""
    try:
        while sys.stdin.buffer.read1(4096):
            pass
    except Exception:
        pass
    os._exit(0)


def _lifetime(text: str) -> float | None:
    if text.lower() in ("none", "null", "never"):
        return None
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError("token lifetime must not be negative")
    return value


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Courier's local HTTP test server")
    parser.add_argument("--port", type=int, default=0, help="port to bind (0: an ephemeral port)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--token-lifetime",
        type=_lifetime,
        default=3600.0,
        help="access-token lifetime in seconds (float), or 'none' for tokens that never expire",
    )
    parser.add_argument(
        "--no-stdin-watch",
        action="store_true",
        help="keep running when stdin reaches EOF (for running by hand in the background)",
    )
    args = parser.parse_args(argv)

    # Foundation's Process (Linux) spawns children with most signals blocked or ignored,
    # inherited from the spawning thread: restore the defaults so SIGTERM stops us.
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)

    server = Server((args.host, args.port), State(args.token_lifetime))
    print(f"PORT {server.server_address[1]}", flush=True)
    if not args.no_stdin_watch:
        threading.Thread(target=_watch_stdin, name="stdin-watch", daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()



# ----- hostile routes: time and redirect chains (issue 21) -----------------------------------
#
# Servers that take their time on purpose, for the time-out tests: each sends something every
# `interval_ms` (default 250) for `seconds` (default 60) — long after any time-out under test —
# and only then finishes, so a test that gets a time-out knows the transport stopped it.


def _trickle_schedule(handler) -> tuple[float, int]:
    interval = max(1, handler._int_arg("interval_ms", 250)) / 1000
    seconds = handler._int_arg("seconds", 60)
    if not 0 <= seconds <= 600:
        raise BadRequest("seconds must be between 0 and 600")
    return interval, max(1, int(seconds / interval))


def _hostile_trickle_body(handler, key: str) -> None:
    """200 with a Content-Length, then one byte of the body per interval."""
    interval, count = _trickle_schedule(handler)
    handler._drain_body()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/octet-stream")
    handler.send_header("Content-Length", str(count))
    handler.end_headers()
    handler._headers_sent = True
    try:
        handler._write(b"")
        for _ in range(count):
            time.sleep(interval)
            handler._write(b"x")
            HOSTILE_LOG.add(key, "bytes_sent")
    except ClientGone:
        handler.close_connection = True


def _hostile_trickle_headers(handler, key: str) -> None:
    """A status line, then one byte of a header per interval; the header ends after it all."""
    interval, count = _trickle_schedule(handler)
    handler._drain_body()
    handler._headers_sent = True
    handler.close_connection = True
    try:
        handler._write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
        for _ in range(count):
            time.sleep(interval)
            handler._write(b"a")
            HOSTILE_LOG.add(key, "bytes_sent")
        handler._write(b"\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    except ClientGone:
        pass


def _hostile_continue_forever(handler, key: str) -> None:
    """One `100 Continue` head per interval; then the server gives up and closes the
    connection, or with `final=1` answers 200 `ok` at last."""
    interval, count = _trickle_schedule(handler)
    final = handler._arg("final") == "1"
    handler._drain_body()
    handler._headers_sent = True
    handler.close_connection = True
    try:
        for _ in range(count):
            handler._write(b"HTTP/1.1 100 Continue\r\n\r\n")
            HOSTILE_LOG.add(key, "bytes_sent")
            time.sleep(interval)
        if final:
            handler._write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
    except ClientGone:
        pass
    handler._abort_connection(reset=False)


def _hostile_redirect_chain(handler, key: str) -> None:
    """`/hostile/redirect-chain/<n>`: a 302 to `…/<n-1>`, down to 0, which echoes."""
    try:
        remaining = int(key)
    except ValueError:
        raise BadRequest("redirect-chain needs a number of hops") from None
    if remaining <= 0:
        return handler._echo()
    handler._drain_body()
    handler._send(302, b"", None, [("Location", f"/hostile/redirect-chain/{remaining - 1}")])


def _hostile_redirect_bomb(handler, key: str) -> None:
    """A 302 to `to` whose body is `size` zero bytes, gzip-compressed (default 16 MiB)."""
    size = handler._int_arg("size", 16 * 1024 * 1024)
    if not 0 <= size <= 1024 * 1024 * 1024:
        raise BadRequest("size must be between 0 and 1 GiB")
    target = handler._arg("to") or "/echo"
    handler._drain_body()
    handler._send(
        302, gzip_of_zeros(size), "application/octet-stream", [("Location", target), ("Content-Encoding", "gzip")]
    )


def _hostile_latin1_header(handler, key: str) -> None:
    """200 `ok` with a `Content-Disposition` whose file name is in ISO-8859-1 (`résumé.pdf` as
    the bytes E9), as old servers send it: not UTF-8."""
    handler._drain_body()
    handler._send(200, b"ok", "text/plain", [("Content-Disposition", 'attachment; filename="r\u00e9sum\u00e9.pdf"')])


HOSTILE_TIME_ROUTES = {
    "trickle-body": _hostile_trickle_body,
    "trickle-headers": _hostile_trickle_headers,
    "continue-forever": _hostile_continue_forever,
    "redirect-chain": _hostile_redirect_chain,
    "redirect-bomb": _hostile_redirect_bomb,
    "latin1-header": _hostile_latin1_header,
}

def _hostile_close_when_idle(handler, key: str) -> None:
    """`/hostile/close-when-idle/<key>`: 200 `ok`, kept alive by its headers; then, `after_ms`
    later (default 0, at most 10 s), the server closes the idle connection, as a server's
    keep-alive time-out does."""
    delay = max(0, min(handler._int_arg("after_ms", 0), 10_000)) / 1000
    handler._drain_body()
    handler._send(200, b"ok", "text/plain")
    try:
        handler.wfile.flush()
    except OSError:
        pass
    if delay:
        time.sleep(delay)
    handler._abort_connection(reset=False)


HOSTILE_TIME_ROUTES["close-when-idle"] = _hostile_close_when_idle

if __name__ == "__main__":
    main()
