"""An OAuth 2 authorization server and protected resource for Courier's OAuth tests, built on
authlib (the protocol: client authentication, the code grant, PKCE, RFC 9207's `iss`, refresh
with rotation, client credentials, metadata validation). This file only adapts authlib to
Python's http.server and keeps its records in memory.

Prints `READY port=<n> issuer=<url>` once it listens; exits when stdin closes.
Test-only switches: POST /_admin/config with JSON (see CONFIG below).
"""

import json
import os
import secrets
import sys
import threading
import time
import urllib.parse
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The server runs on loopback over plain HTTP: authlib refuses that unless told.
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"

from authlib.common.urls import add_params_to_uri  # noqa: E402
from authlib.oauth2 import rfc6749, rfc7636, rfc8414, rfc9207  # noqa: E402
from authlib.oauth2.rfc6749 import grants  # noqa: E402
from authlib.oauth2.rfc6749.requests import BasicOAuth2Payload  # noqa: E402
from authlib.oauth2.rfc6750 import BearerTokenGenerator  # noqa: E402

LOCK = threading.Lock()
CONFIG = {
    # Metadata names this issuer instead of the real one (a server posing as another).
    "metadata_issuer": None,
    # Serve only OpenID Connect's openid-configuration, not RFC 8414's document.
    "oidc_only": False,
    # The authorization response carries this `iss` instead of the real one.
    "response_iss": None,
    # The authorization response carries this `state` instead of the one sent.
    "response_state": None,
    # Access-token lifetime in seconds.
    "token_lifetime": 3600,
    # The resource's protected resource metadata names this resource instead of its own.
    "resource_override": None,
    # Publish the PAR endpoint (RFC 9126), and require every authorization request to use it.
    "offer_par": False,
    "require_par": False,
}
COUNTERS = defaultdict(int)


class Client(rfc6749.ClientMixin):
    def __init__(self, client_id, secret, redirect_uris, auth_method, grant_types):
        self.client_id = client_id
        self.secret = secret
        self.redirect_uris = redirect_uris
        self.auth_method = auth_method
        self.grant_types = grant_types

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return self.redirect_uris[0] if self.redirect_uris else None

    def get_allowed_scope(self, scope):
        return scope or ""

    def check_redirect_uri(self, redirect_uri):
        # Exact string comparison (RFC 9700 §4.1.3), except that a loopback redirect may use
        # any port (RFC 8252 §7.3): a registered http://127.0.0.1/cb matches http://127.0.0.1:N/cb.
        if redirect_uri in self.redirect_uris:
            return True
        parsed = urllib.parse.urlsplit(redirect_uri)
        if parsed.hostname == "127.0.0.1" and parsed.scheme == "http":
            portless = urllib.parse.urlunsplit(("http", "127.0.0.1", parsed.path, parsed.query, ""))
            return portless in self.redirect_uris
        return False

    def check_client_secret(self, client_secret):
        return self.secret is not None and secrets.compare_digest(self.secret, client_secret)

    def check_endpoint_auth_method(self, method, endpoint):
        return endpoint != "token" or method == self.auth_method

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type in self.grant_types


class AuthorizationCode(rfc6749.AuthorizationCodeMixin):
    def __init__(self, code, client_id, redirect_uri, scope, user, challenge, method, resource):
        self.code = code
        self.client_id = client_id
        self.redirect_uri = redirect_uri
        self.scope = scope
        self.user = user
        self.code_challenge = challenge
        self.code_challenge_method = method
        self.resource = resource

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope


class Token(rfc6749.TokenMixin):
    def __init__(self, data, client_id, user, resource):
        self.data = data
        self.client_id = client_id
        self.user = user
        self.resource = resource
        self.issued_at = time.time()
        self.revoked = False

    def check_client(self, client):
        return client.get_client_id() == self.client_id

    def get_scope(self):
        return self.data.get("scope", "")

    def get_expires_in(self):
        return self.data.get("expires_in", 0)

    def is_expired(self):
        return time.time() > self.issued_at + self.get_expires_in()

    def is_revoked(self):
        return self.revoked

    def get_user(self):
        return self.user

    def get_client(self):
        return CLIENTS.get(self.client_id)


CLIENTS = {}
CODES = {}
ACCESS_TOKENS = {}
REFRESH_TOKENS = {}
# Pushed authorization requests (RFC 9126): request_uri -> (client_id, parameters), used once.
PUSHED = {}


def register_test_clients():
    # A public client (PKCE, no secret) with a loopback redirect, and two confidential ones.
    CLIENTS["cli"] = Client(
        "cli", None, ["http://127.0.0.1/callback"], "none", ["authorization_code", "refresh_token"])
    CLIENTS["web"] = Client(
        "web", "web-secret", ["http://127.0.0.1/callback"], "client_secret_basic",
        ["authorization_code", "refresh_token", "client_credentials"])
    CLIENTS["service"] = Client(
        "service", "service-secret", [], "client_secret_post", ["client_credentials"])


class Request(rfc6749.OAuth2Request):
    def __init__(self, method, uri, headers, query, form):
        super().__init__(method=method, uri=uri, headers=headers)
        self._args = query
        self._form = form
        merged = dict(query)
        merged.update(form)
        self.payload = BasicOAuth2Payload(merged)

    @property
    def args(self):
        return self._args

    @property
    def form(self):
        return self._form


class Answer:
    def __init__(self, status, body, headers):
        self.status = status
        self.body = body if isinstance(body, (bytes, str)) else json.dumps(body)
        self.headers = dict(headers)

    @property
    def location(self):
        return self.headers.get("Location")

    @location.setter
    def location(self, value):
        self.headers["Location"] = value


class Server(rfc6749.AuthorizationServer):
    def __init__(self, issuer):
        super().__init__(scopes_supported=["read", "write", "admin"])
        self.issuer = issuer
        self.register_token_generator(
            "default",
            BearerTokenGenerator(
                access_token_generator=lambda **_: secrets.token_urlsafe(24),
                refresh_token_generator=lambda **_: secrets.token_urlsafe(32),
                expires_generator=lambda client, grant_type: CONFIG["token_lifetime"],
            ),
        )

    def query_client(self, client_id):
        return CLIENTS.get(client_id)

    def save_token(self, token, request):
        client_id = request.client.get_client_id()
        resource = getattr(request, "resource", None)
        record = Token(token, client_id, request.user, resource)
        ACCESS_TOKENS[token["access_token"]] = record
        if "refresh_token" in token:
            REFRESH_TOKENS[token["refresh_token"]] = record

    def send_signal(self, name, *args, **kwargs):
        pass

    def create_oauth2_request(self, request):
        return request

    def create_json_request(self, request):
        raise NotImplementedError("JSON endpoints are not used")

    def handle_response(self, status, body, headers):
        return Answer(status, body, headers)


class Issuer(rfc9207.IssuerParameter):
    def __init__(self, server):
        self.server = server

    def get_issuer(self):
        return self.server.issuer

    def add_issuer_parameter(self, authorization_server, response):
        if CONFIG["response_iss"] is not None and response.location:
            response.location = add_params_to_uri(response.location, {"iss": CONFIG["response_iss"]})
            return
        super().add_issuer_parameter(authorization_server, response)


class CodeGrant(grants.AuthorizationCodeGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]

    def save_authorization_code(self, code, request):
        resource = request.payload.data.get("resource")
        CODES[code] = AuthorizationCode(
            code, request.client.get_client_id(), request.payload.redirect_uri, request.payload.scope,
            request.user, request.payload.data.get("code_challenge"),
            request.payload.data.get("code_challenge_method"), resource)

    def query_authorization_code(self, code, client):
        record = CODES.get(code)
        if record and record.client_id == client.get_client_id():
            return record
        return None

    def delete_authorization_code(self, authorization_code):
        CODES.pop(authorization_code.code, None)

    def authenticate_user(self, authorization_code):
        # RFC 8707: the token request's resource must be one the authorization named.
        requested = self.request.payload.data.get("resource")
        if requested is not None and requested != authorization_code.resource:
            raise rfc6749.errors.InvalidGrantError("the resource is not the one authorized")
        self.request.resource = authorization_code.resource
        return authorization_code.user


class RefreshGrant(grants.RefreshTokenGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token):
        record = REFRESH_TOKENS.get(refresh_token)
        if record is None:
            return None
        if record.revoked:
            # Reuse of a rotated refresh token: revoke the whole family (RFC 9700 §4.14.2).
            COUNTERS["refresh_token_reuses"] += 1
            for other in REFRESH_TOKENS.values():
                if other.user == record.user and other.client_id == record.client_id:
                    other.revoked = True
            return None
        return record

    def authenticate_user(self, refresh_token):
        self.request.resource = refresh_token.resource
        return refresh_token.user

    def revoke_old_credential(self, refresh_token):
        refresh_token.revoked = True
        COUNTERS["refresh_grants"] += 1


class ClientCredentialsGrant(grants.ClientCredentialsGrant):
    TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]


def build_server(issuer):
    server = Server(issuer)
    server.register_grant(CodeGrant, [rfc7636.CodeChallenge(required=True)])
    server.register_grant(RefreshGrant)
    server.register_grant(ClientCredentialsGrant)
    server.register_extension(Issuer(server))
    return server


def metadata(issuer):
    document = {
        "issuer": CONFIG["metadata_issuer"] or issuer,
        "authorization_endpoint": issuer + "/authorize",
        "token_endpoint": issuer + "/token",
        "scopes_supported": ["read", "write", "admin"],
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": True,
    }
    if CONFIG["offer_par"] or CONFIG["require_par"]:
        document["pushed_authorization_request_endpoint"] = issuer + "/par"
        document["require_pushed_authorization_requests"] = bool(CONFIG["require_par"])
    # The library checks the document it serves (RFC 8414 §2 and RFC 9207's field).
    rfc8414.AuthorizationServerMetadata(document).validate(
        metadata_classes=[rfc9207.AuthorizationServerMetadata])
    return document


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "CourierOAuthTestServer"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.guarded()

    def do_POST(self):
        self.guarded()

    def guarded(self):
        try:
            self.route()
        except Exception as error:  # a bug here must answer, not hang the test
            import traceback
            traceback.print_exc()
            self.send(500, {"error": "server_error", "error_description": type(error).__name__})

    def send(self, status, body, headers=None, content_type="application/json"):
        data = body if isinstance(body, bytes) else (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        if not any(name.lower() == "content-type" for name in (headers or {})):
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self):
        # Read the whole body, sized or chunked, so the next request on the connection starts
        # where it should.
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def route(self):
        app = self.server.app
        issuer = self.server.issuer
        parsed = urllib.parse.urlsplit(self.path)
        path = parsed.path
        query = dict(urllib.parse.parse_qsl(parsed.query, keep_blank_values=True))
        raw = self.read_body()
        form = {}
        if "application/x-www-form-urlencoded" in (self.headers.get("Content-Type") or ""):
            form = dict(urllib.parse.parse_qsl(raw.decode(), keep_blank_values=True))
        uri = issuer + self.path
        with LOCK:
            COUNTERS["requests"] += 1
            COUNTERS["GET " + path if self.command == "GET" else "POST " + path] += 1
            if path == "/.well-known/oauth-authorization-server":
                if CONFIG["oidc_only"]:
                    return self.send(404, {"error": "not found"})
                return self.send(200, metadata(issuer))
            if path == "/.well-known/openid-configuration":
                return self.send(200, metadata(issuer))
            if path == "/.well-known/oauth-protected-resource/mcp":
                return self.send(200, {
                    "resource": CONFIG["resource_override"] or issuer + "/mcp",
                    "authorization_servers": [issuer],
                    "scopes_supported": ["read", "write"],
                    "bearer_methods_supported": ["header"],
                })
            if path.startswith("/mcp"):
                return self.protected(issuer, path)
            if path == "/authorize" and self.command == "GET":
                return self.authorize(app, uri, query)
            if path == "/par" and self.command == "POST":
                return self.pushed(app, uri, form)
            if path == "/token" and self.command == "POST":
                request = Request("POST", uri, dict(self.headers), {}, form)
                answer = app.create_token_response(request)
                COUNTERS["token_" + str(answer.status)] += 1
                return self.send(answer.status, answer.body, answer.headers)
            if path == "/_admin/config" and self.command == "POST":
                CONFIG.update(json.loads(raw or b"{}"))
                return self.send(200, CONFIG)
            if path == "/_admin/counters":
                return self.send(200, dict(COUNTERS))
            return self.send(404, {"error": "not found"})

    def pushed(self, app, uri, form):
        # RFC 9126 §2: the client authenticates as at the token endpoint (authlib checks it);
        # the parameters are kept for one use under a fresh request_uri.
        request = Request("POST", uri, dict(self.headers), {}, form)
        try:
            client = app.authenticate_client(
                request, ["client_secret_basic", "client_secret_post", "none"], endpoint="par")
        except rfc6749.OAuth2Error as error:
            return self.send(error.status_code, dict(error.get_body()))
        if "request_uri" in form:
            return self.send(400, {"error": "invalid_request", "error_description": "request_uri in a push"})
        request_uri = "urn:ietf:params:oauth:request_uri:" + secrets.token_urlsafe(16)
        parameters = {k: v for k, v in form.items() if k != "client_secret"}
        PUSHED[request_uri] = (client.get_client_id(), parameters)
        COUNTERS["par_pushed"] += 1
        return self.send(201, {"request_uri": request_uri, "expires_in": 60})

    def authorize(self, app, uri, query):
        # The consent approves at once, as the user "ada": the test plays the browser.
        if "request_uri" in query:
            pushed = PUSHED.pop(query["request_uri"], None)
            if pushed is None or pushed[0] != query.get("client_id"):
                return self.send(400, {"error": "invalid_request_uri"})
            query = dict(pushed[1], client_id=pushed[0])
            COUNTERS["par_used"] += 1
        elif CONFIG["require_par"]:
            return self.send(400, {"error": "invalid_request", "error_description": "PAR is required"})
        request = Request("GET", uri, dict(self.headers), query, {})
        try:
            grant = app.get_consent_grant(request=request, end_user="ada")
        except rfc6749.OAuth2Error as error:
            return self.send(400, dict(error.get_body()))
        answer = app.create_authorization_response(request=request, grant_user="ada", grant=grant)
        if CONFIG["response_state"] is not None and answer.location:
            parts = urllib.parse.urlsplit(answer.location)
            fields = [(k, CONFIG["response_state"] if k == "state" else v)
                      for k, v in urllib.parse.parse_qsl(parts.query)]
            answer.location = urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(fields)))
        return self.send(answer.status, answer.body or "", answer.headers)

    def protected(self, issuer, path):
        header = self.headers.get("Authorization") or ""
        token = header[7:] if header.startswith("Bearer ") else None
        record = ACCESS_TOKENS.get(token) if token else None
        if record is None or record.is_expired():
            challenge = 'Bearer resource_metadata="%s/.well-known/oauth-protected-resource/mcp"' % issuer
            if record is not None:
                challenge += ', error="invalid_token"'
            return self.send(401, {"error": "invalid_token"}, {"WWW-Authenticate": challenge})
        if path == "/mcp/write" and "write" not in record.get_scope().split():
            # RFC 6750 §3.1: a valid token without the scope the route needs.
            challenge = ('Bearer error="insufficient_scope", scope="read write", '
                         'resource_metadata="%s/.well-known/oauth-protected-resource/mcp"' % issuer)
            return self.send(403, {"error": "insufficient_scope"}, {"WWW-Authenticate": challenge})
        return self.send(200, {"ok": True, "user": record.user, "scope": record.get_scope(),
                               "resource": record.resource})


class Listener(ThreadingHTTPServer):
    # Many requests at once (the concurrency tests): the default backlog of 5 drops connections.
    request_queue_size = 256
    daemon_threads = True


def main():
    register_test_clients()
    httpd = Listener(("127.0.0.1", 0), Handler)
    issuer = "http://127.0.0.1:%d" % httpd.server_address[1]
    httpd.issuer = issuer
    httpd.app = build_server(issuer)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    print("READY port=%d issuer=%s" % (httpd.server_address[1], issuer), flush=True)
    if "--no-stdin-watch" in sys.argv:
        threading.Event().wait()
    sys.stdin.read()


if __name__ == "__main__":
    main()
