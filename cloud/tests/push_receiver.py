"""A local Web Push receiver for the push tests: it plays a browser and its push
service at once. It makes a subscription (a P-256 key pair and a 16-byte auth secret,
as a browser does), prints it as one JSON line ({"endpoint", "keys": {"p256dh",
"auth"}}), then serves HTTP on 127.0.0.1: every POST to /push/... is checked as a
push service and a browser would check it, and reported as one JSON line on stdout:

- the VAPID header (RFC 8292): `Authorization: vapid t=<JWT>, k=<key>`, the JWT's
  ES256 signature verified with `k`, its `aud` the origin of this server, `exp` in the
  future and within 24 hours, `sub` a mailto: or https: URL;
- the body decrypted (RFC 8291, Content-Encoding aes128gcm) with the subscription's
  private key and auth secret by `http_ece` (pinned in scripts/lib.sh PY_TOOLS).

A POST to /gone/... is answered 410 Gone (a subscription that expired) and reported
too. Usage: push_receiver.py  (stops when stdin closes).
"""

import base64
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64d(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def b64e(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


PRIVATE = ec.generate_private_key(ec.SECP256R1())
AUTH = os.urandom(16)
P256DH = PRIVATE.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


def check_vapid(header, origin):
    """The claims of a valid VAPID header, else raises."""
    if not header.startswith("vapid "):
        raise ValueError("not a vapid Authorization: %r" % header)
    parts = dict(p.strip().split("=", 1) for p in header[len("vapid ") :].split(","))
    token, k = parts["t"], parts["k"]
    head, claims, sig = token.split(".")
    if json.loads(b64d(head)) != {"typ": "JWT", "alg": "ES256"}:
        raise ValueError("header %r" % b64d(head))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64d(k))
    raw = b64d(sig)
    if len(raw) != 64:
        raise ValueError("an ES256 signature is 64 bytes")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key.verify(der, ("%s.%s" % (head, claims)).encode(), ec.ECDSA(hashes.SHA256()))
    c = json.loads(b64d(claims))
    if c["aud"] != origin:
        raise ValueError("aud %r is not %r" % (c["aud"], origin))
    now = time.time()
    if not (now < c["exp"] <= now + 24 * 3600 + 60):
        raise ValueError("exp %r out of range" % c["exp"])
    if not (c["sub"].startswith("mailto:") or c["sub"].startswith("https://")):
        raise ValueError("sub %r" % c["sub"])
    return c, k


LOCK = threading.Lock()


def report(obj):
    with LOCK:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        origin = "http://127.0.0.1:%d" % self.server.server_address[1]
        out = {"path": self.path}
        try:
            if self.headers.get("Content-Encoding") != "aes128gcm":
                raise ValueError("Content-Encoding %r" % self.headers.get("Content-Encoding"))
            out["ttl"] = int(self.headers["TTL"])
            claims, k = check_vapid(self.headers.get("Authorization", ""), origin)
            out["claims"] = claims
            out["vapid_key"] = k
            plain = http_ece.decrypt(
                body, private_key=PRIVATE, auth_secret=AUTH, version="aes128gcm"
            )
            out["message"] = json.loads(plain)
            out["ok"] = True
        except Exception as e:  # reported to the test, which fails on it
            out["ok"] = False
            out["error"] = "%s: %s" % (type(e).__name__, e)
        report(out)
        self.send_response(410 if self.path.startswith("/gone/") else 201)
        self.send_header("Content-Length", "0")
        self.end_headers()


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    report(
        {
            "port": port,
            "keys": {"p256dh": b64e(P256DH), "auth": b64e(AUTH)},
        }
    )
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
