#!/usr/bin/env python3
"""Checks DPoP proofs as a server would, with Python's `cryptography` (not Courier's code).

Reads one JSON object per line on stdin:
  {"proof": "<compact JWT>", "htm": "GET", "htu": "https://...", "access_token": "..." or null,
   "nonce": "..." or null, "now": <unix seconds>, "thumbprint": "<Courier's RFC 7638 thumbprint>",
   "pkcs8": "<base64 PKCS#8 DER of the signing key>" or null}
and writes one JSON line per proof: {"ok": true, "jti": ..., "thumbprint": ...} or
{"ok": false, "error": "..."}. A jti seen twice in one run is an error, as replay protection
would make it.
"""
import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url_decode(text):
    if "=" in text or "+" in text or "/" in text:
        raise ValueError("not unpadded base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def check(request, seen):
    header_b64, claims_b64, signature_b64 = request["proof"].split(".")
    header = json.loads(b64url_decode(header_b64))
    claims = json.loads(b64url_decode(claims_b64))
    if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256":
        raise ValueError(f"header typ/alg: {header.get('typ')}/{header.get('alg')}")
    jwk = header["jwk"]
    if set(jwk) != {"kty", "crv", "x", "y"} or jwk["kty"] != "EC" or jwk["crv"] != "P-256":
        raise ValueError(f"jwk members: {sorted(jwk)}")
    x, y = b64url_decode(jwk["x"]), b64url_decode(jwk["y"])
    if len(x) != 32 or len(y) != 32:
        raise ValueError("jwk coordinates are not 32 bytes")
    public_key = ec.EllipticCurvePublicNumbers(
        int.from_bytes(x, "big"), int.from_bytes(y, "big"), ec.SECP256R1()
    ).public_key()
    raw = b64url_decode(signature_b64)
    if len(raw) != 64:
        raise ValueError(f"signature is {len(raw)} bytes, not 64")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public_key.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise ValueError("signature does not verify against the header's jwk")
    if claims.get("htm") != request["htm"]:
        raise ValueError(f"htm {claims.get('htm')!r}")
    if claims.get("htu") != request["htu"]:
        raise ValueError(f"htu {claims.get('htu')!r}")
    iat = claims.get("iat")
    if not isinstance(iat, int) or abs(iat - request["now"]) > 1:
        raise ValueError(f"iat {iat!r}")
    jti = claims.get("jti")
    if not isinstance(jti, str) or len(jti) < 16 or jti in seen:
        raise ValueError(f"jti missing, short or reused")
    seen.add(jti)
    token = request.get("access_token")
    expected_ath = None if token is None else b64url(hashlib.sha256(token.encode("ascii")).digest())
    if claims.get("ath") != expected_ath:
        raise ValueError("ath does not match the access token")
    if claims.get("nonce") != request.get("nonce"):
        raise ValueError("nonce does not match")
    allowed = {"jti", "htm", "htu", "iat", "ath", "nonce"}
    if not set(claims) <= allowed:
        raise ValueError(f"unexpected claims {sorted(set(claims) - allowed)}")
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    thumbprint = b64url(hashlib.sha256(canonical.encode()).digest())
    if request.get("thumbprint") is not None and request["thumbprint"] != thumbprint:
        raise ValueError("Courier's thumbprint differs from RFC 7638's")
    if request.get("pkcs8") is not None:
        private_key = serialization.load_der_private_key(base64.b64decode(request["pkcs8"]), password=None)
        if private_key.public_key().public_numbers() != public_key.public_numbers():
            raise ValueError("the PKCS#8 key is not the jwk's key")
    return {"ok": True, "jti": jti, "thumbprint": thumbprint}


def main():
    seen = set()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            result = check(json.loads(line), seen)
        except Exception as error:  # report every failure as a line; the test reads it
            result = {"ok": False, "error": f"{type(error).__name__}: {error}"}
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
