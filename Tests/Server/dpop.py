"""DPoP (RFC 9449) as a server that enforces it checks it: the test server's DPoP mode, and
the proof checks that Tests/CourierOpenSSLTests/verify_dpop.py shares.

Signatures are verified with Python's `cryptography` (Debian's python3-cryptography), imported
on first use: the rest of the test server needs only the standard library.
"""
import base64
import hashlib
import json
import secrets
import threading
import time
from collections import OrderedDict


class ProofError(Exception):
    """A proof the server refuses; the text says why (never the proof or a token)."""


def b64url_decode(text: str) -> bytes:
    if "=" in text or "+" in text or "/" in text:
        raise ProofError("not unpadded base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        raise ProofError("not base64url") from None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def access_token_hash(token: str) -> str:
    """`ath`: the base64url SHA-256 of the access token's ASCII bytes."""
    return b64url(hashlib.sha256(token.encode("ascii", errors="replace")).digest())


def thumbprint(jwk: dict) -> str:
    """RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace."""
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return b64url(hashlib.sha256(canonical.encode()).digest())


def check_proof(proof: str, htm: str, htu: str, now: float, iat_window: float) -> tuple[dict, dict]:
    """The proof's (jwk, claims) once its form, signature, htm, htu and iat check out.

    `ath`, `nonce` and `jti` reuse are the caller's to check: they depend on what it knows."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    if len(proof) > 8192:
        raise ProofError("the proof is longer than 8 KiB")
    parts = proof.split(".")
    if len(parts) != 3:
        raise ProofError("the proof is not a compact JWS")
    header_b64, claims_b64, signature_b64 = parts
    try:
        header = json.loads(b64url_decode(header_b64))
        claims = json.loads(b64url_decode(claims_b64))
    except ValueError:
        raise ProofError("the proof's header or claims are not JSON") from None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        raise ProofError("the proof's header or claims are not JSON objects")
    if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256":
        raise ProofError(f"header typ/alg: {header.get('typ')}/{header.get('alg')}")
    jwk = header.get("jwk")
    if not isinstance(jwk, dict) or set(jwk) != {"kty", "crv", "x", "y"}:
        raise ProofError("the jwk must have exactly kty, crv, x and y (no private part)")
    if jwk["kty"] != "EC" or jwk["crv"] != "P-256":
        raise ProofError("the jwk is not an EC P-256 key")
    x, y = b64url_decode(jwk["x"]), b64url_decode(jwk["y"])
    if len(x) != 32 or len(y) != 32:
        raise ProofError("the jwk's coordinates are not 32 bytes")
    try:
        public_key = ec.EllipticCurvePublicNumbers(
            int.from_bytes(x, "big"), int.from_bytes(y, "big"), ec.SECP256R1()
        ).public_key()
    except ValueError:
        raise ProofError("the jwk is not a point on P-256") from None
    raw = b64url_decode(signature_b64)
    if len(raw) != 64:
        raise ProofError(f"the signature is {len(raw)} bytes, not 64")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public_key.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ProofError("the signature does not verify against the header's jwk") from None
    if claims.get("htm") != htm:
        raise ProofError(f"htm is {claims.get('htm')!r}, the request's method is {htm!r}")
    if claims.get("htu") != htu:
        raise ProofError(f"htu is {claims.get('htu')!r}, the request's URI is {htu!r}")
    iat = claims.get("iat")
    if not isinstance(iat, int) or isinstance(iat, bool) or abs(iat - now) > iat_window:
        raise ProofError(f"iat {iat!r} is not within {iat_window} s of the server's clock")
    jti = claims.get("jti")
    if not isinstance(jti, str) or len(jti) < 16 or len(jti) > 256:
        raise ProofError("jti is missing, shorter than 16 characters or longer than 256")
    return jwk, claims


class DPoPServer:
    """The DPoP half of the test server's state: a nonce for the token endpoint and one for
    the API, each rotated after `nonce_uses` accepted proofs (0: never), and the jti values seen
    (a replayed proof is refused). Thread-safe: its own lock.

    In single-use mode (`single_use`), every answer gives a nonce of its own, good for one
    proof: a proof must carry a nonce that was given and not used yet. Two requests that
    share a nonce (a retry that took another request's challenge's nonce) cannot both pass."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.require_nonce = {"as": False, "rs": False}
        self.nonce_uses = 0
        self.iat_window = 60.0
        self.nonces = {"as": self._new_nonce("as"), "rs": self._new_nonce("rs")}
        self.uses = {"as": 0, "rs": 0}
        self.seen_jti: OrderedDict[str, None] = OrderedDict()
        self.single_use = False
        # Single-use mode: the nonces given and not used yet, and those used (for the count of
        # reuses), per server; bounded.
        self.outstanding = {"as": OrderedDict(), "rs": OrderedDict()}
        self.used = {"as": OrderedDict(), "rs": OrderedDict()}
        self.reuses = 0

    @staticmethod
    def _new_nonce(server: str) -> str:
        return f"{server}-{secrets.token_urlsafe(12)}"

    def configure(self, changes: dict) -> None:
        """Validates, then applies: {"nonce_as": bool, "nonce_rs": bool, "nonce_uses": int,
        "iat_window": seconds, "rotate": ["as"|"rs", …]} (raises ValueError)."""
        updates = {}
        for key, value in changes.items():
            if key in ("nonce_as", "nonce_rs"):
                if not isinstance(value, bool):
                    raise ValueError(f"dpop.{key} must be a boolean")
            elif key == "nonce_uses":
                if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                    raise ValueError("dpop.nonce_uses must be a non-negative integer")
            elif key == "iat_window":
                if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= 3600:
                    raise ValueError("dpop.iat_window must be a number of seconds in (0, 3600]")
            elif key == "rotate":
                if not isinstance(value, list) or not set(value) <= {"as", "rs"}:
                    raise ValueError('dpop.rotate must be a list of "as" and "rs"')
            elif key == "single_use":
                if not isinstance(value, bool):
                    raise ValueError("dpop.single_use must be a boolean")
            else:
                raise ValueError(f"unknown dpop key {key!r}")
            updates[key] = value
        with self.lock:
            for key, value in updates.items():
                if key == "nonce_as":
                    self.require_nonce["as"] = value
                elif key == "nonce_rs":
                    self.require_nonce["rs"] = value
                elif key == "nonce_uses":
                    self.nonce_uses = value
                elif key == "iat_window":
                    self.iat_window = float(value)
                elif key == "single_use":
                    self.single_use = value
                else:
                    for server in value:
                        self.nonces[server] = self._new_nonce(server)
                        self.uses[server] = 0

    def snapshot(self) -> dict:
        with self.lock:
            return {
                "nonce_as": self.require_nonce["as"],
                "nonce_rs": self.require_nonce["rs"],
                "nonce_uses": self.nonce_uses,
                "iat_window": self.iat_window,
                "single_use": self.single_use,
            }

    def take_reuses(self) -> int:
        """Proofs that carried a single-use nonce already used (since the last call)."""
        with self.lock:
            reuses, self.reuses = self.reuses, 0
            return reuses

    def current_nonce(self, server: str) -> str | None:
        with self.lock:
            if not self.require_nonce[server]:
                return None
            return self._issue_locked(server) if self.single_use else self.nonces[server]

    def _issue_locked(self, server: str) -> str:
        """A new single-use nonce for `server`, remembered until used (at most 100,000)."""
        nonce = self._new_nonce(server)
        outstanding = self.outstanding[server]
        outstanding[nonce] = None
        while len(outstanding) > 100_000:
            outstanding.popitem(last=False)
        return nonce

    def _nonce_refusal_locked(self, claims: dict, server: str) -> str | None:
        """Why the proof's nonce is refused, or None when it is accepted (a single-use nonce is
        then used up)."""
        if not self.require_nonce[server]:
            return None
        if "nonce" not in claims:
            return "the proof has no nonce"
        nonce = claims.get("nonce")
        if not self.single_use:
            return None if nonce == self.nonces[server] else "the proof's nonce is stale"
        if isinstance(nonce, str) and nonce in self.outstanding[server]:
            del self.outstanding[server][nonce]
            used = self.used[server]
            used[nonce] = None
            while len(used) > 100_000:
                used.popitem(last=False)
            return None
        if isinstance(nonce, str) and nonce in self.used[server]:
            self.reuses += 1
            return "the proof's single-use nonce was used already"
        return "the proof's nonce was never given"

    def check(self, proof: str | None, server: str, htm: str, htu: str, access_token: str | None) -> dict:
        """Checks a request's proof. Returns {"jkt": …} when accepted, or
        {"error": "use_dpop_nonce" | "invalid_dpop_proof", "description": …}; every answer
        carries "nonce", the nonce the server's next answer sends (None when not required)."""
        with self.lock:
            window = self.iat_window
        if proof is None:
            return self._refused("invalid_dpop_proof", "the request has no DPoP proof", server)
        try:
            jwk, claims = check_proof(proof, htm, htu, time.time(), window)
        except ProofError as error:
            return self._refused("invalid_dpop_proof", str(error), server)
        except ImportError:
            return self._refused("invalid_dpop_proof", "the server has no `cryptography` package", server)
        expected_ath = None if access_token is None else access_token_hash(access_token)
        if claims.get("ath") != expected_ath:
            what = "ath does not match the access token" if access_token else "a token request carries ath"
            return self._refused("invalid_dpop_proof", what, server)
        with self.lock:
            jti = claims["jti"]
            if jti in self.seen_jti:
                return self._refused_locked("invalid_dpop_proof", "jti was used before (a replayed proof)", server)
            what = self._nonce_refusal_locked(claims, server)
            if what is not None:
                # The proof is still unused: a retry with the nonce may reuse nothing of it.
                return self._refused_locked("use_dpop_nonce", what, server)
            self.seen_jti[jti] = None
            while len(self.seen_jti) > 100_000:
                self.seen_jti.popitem(last=False)
            nonce = self._after_use_locked(server)
        return {"jkt": thumbprint(jwk), "nonce": nonce}

    def _after_use_locked(self, server: str) -> str | None:
        if not self.require_nonce[server]:
            return None
        if self.single_use:
            return self._issue_locked(server)
        self.uses[server] += 1
        if self.nonce_uses and self.uses[server] >= self.nonce_uses:
            self.nonces[server] = self._new_nonce(server)
            self.uses[server] = 0
        return self.nonces[server]

    def _refused(self, error: str, description: str, server: str) -> dict:
        with self.lock:
            return self._refused_locked(error, description, server)

    def _refused_locked(self, error: str, description: str, server: str) -> dict:
        if not self.require_nonce[server]:
            nonce = None
        else:
            nonce = self._issue_locked(server) if self.single_use else self.nonces[server]
        return {"error": error, "description": description, "nonce": nonce}
