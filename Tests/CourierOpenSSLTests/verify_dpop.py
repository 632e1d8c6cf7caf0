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
import json
import sys
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

# The test server's DPoP checks (Tests/Server/dpop.py): one implementation of what a server
# checks, for this script and for the server's DPoP mode.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Server"))
import dpop  # noqa: E402


def check(request, seen):
    jwk, claims = dpop.check_proof(request["proof"], request["htm"], request["htu"], request["now"], 1)
    jti = claims["jti"]
    if jti in seen:
        raise ValueError("jti reused")
    seen.add(jti)
    token = request.get("access_token")
    expected_ath = None if token is None else dpop.access_token_hash(token)
    if claims.get("ath") != expected_ath:
        raise ValueError("ath does not match the access token")
    if claims.get("nonce") != request.get("nonce"):
        raise ValueError("nonce does not match")
    allowed = {"jti", "htm", "htu", "iat", "ath", "nonce"}
    if not set(claims) <= allowed:
        raise ValueError(f"unexpected claims {sorted(set(claims) - allowed)}")
    thumbprint = dpop.thumbprint(jwk)
    if request.get("thumbprint") is not None and request["thumbprint"] != thumbprint:
        raise ValueError("Courier's thumbprint differs from RFC 7638's")
    if request.get("pkcs8") is not None:
        public_key = ec.EllipticCurvePublicNumbers(
            int.from_bytes(dpop.b64url_decode(jwk["x"]), "big"),
            int.from_bytes(dpop.b64url_decode(jwk["y"]), "big"),
            ec.SECP256R1(),
        ).public_key()
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
