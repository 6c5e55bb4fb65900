#!/usr/bin/env python3
"""Writes secretbox-vectors.json: the independent truth for SecretBox.swift's tests.

Secretbox boxes come from libsodium (through PyNaCl's crypto_secretbox_easy); Poly1305 tags from OpenSSL (through
the `cryptography` package), the first one also checked against the tag printed in RFC 8439 section 2.5.2.
Random inputs come from a fixed seed, so running the script again writes the same file.

    pip install pynacl cryptography && python3 Tests/tools/make_secretbox_vectors.py
"""

import base64
import json
import random
from pathlib import Path

import nacl
import nacl.bindings
from cryptography.hazmat.primitives.poly1305 import Poly1305

rng = random.Random(8439)


def owntracks_key(secret: str) -> bytes:
    # The OwnTracks apps' derivation: the secret's UTF-8 bytes, cut at 32 or padded with zero bytes to 32.
    return secret.encode("utf-8")[:32].ljust(32, b"\0")


def box_vector(name: str, message: bytes, key: bytes | None = None, secret: str | None = None) -> dict:
    if secret is not None:
        key = owntracks_key(secret)
    key = key if key is not None else rng.randbytes(32)
    nonce = rng.randbytes(24)
    box = nacl.bindings.crypto_secretbox_easy(message, nonce, key)
    assert nacl.bindings.crypto_secretbox_open_easy(box, nonce, key) == message
    vector = {"name": name, "key": key.hex(), "nonce": nonce.hex(), "message": message.hex(), "box": box.hex()}
    if secret is not None:
        vector["secret"] = secret
        # The `data` field of the body the app would POST: base64 of nonce followed by box.
        vector["owntracksData"] = base64.b64encode(nonce + box).decode("ascii")
    return vector


def poly_vector(name: str, key: bytes, message: bytes) -> dict:
    return {"name": name, "key": key.hex(), "message": message.hex(), "tag": Poly1305.generate_tag(key, message).hex()}


boxes = [box_vector(f"random-{n}", rng.randbytes(n)) for n in (0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200, 1000, 5000)]
location = (b'{"_type":"location","tid":"br","lat":47.37689,"lon":8.54169,"tst":1767225600,'
            b'"acc":5,"alt":408,"vel":21,"batt":87,"conn":"m"}')
boxes.append(box_vector("owntracks-short-secret", location, secret="ride-secret"))
# 49 UTF-8 bytes: the derivation cuts at byte 32, which falls inside the "ü" of "Zürich" (bytes, not characters).
boxes.append(box_vector("owntracks-long-secret", location, secret="Geheimnis für die Radtour am Zürichsee, Grüße"))

rfc_key = bytes.fromhex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
rfc = poly_vector("rfc8439-2.5.2", rfc_key, b"Cryptographic Forum Research Group")
assert rfc["tag"] == "a8061dc1305136c6c22b8baf0c0127a9", "OpenSSL disagrees with RFC 8439 2.5.2"
polys = [rfc]
polys += [poly_vector(f"random-{n}", rng.randbytes(32), rng.randbytes(n)) for n in (0, 1, 16, 17, 64, 1000)]
# Accumulators near 2^130 - 5 and an s that carries out of 128 bits: the final reduction and addition.
polys.append(poly_vector("all-ones-key-and-message", b"\xff" * 32, b"\xff" * 80))
polys.append(poly_vector("zero-r-all-ones-s", b"\0" * 16 + b"\xff" * 16, b"\xff" * 48))

document = {
    "source": f"make_vectors.py: secretbox by PyNaCl {nacl.__version__} (libsodium), Poly1305 by cryptography (OpenSSL)",
    "secretbox": boxes,
    "poly1305": polys,
}
out = Path(__file__).resolve().parent.parent / "vectors" / "secretbox-vectors.json"
out.write_text(json.dumps(document, indent=1) + "\n")
print(f"wrote {len(boxes)} secretbox and {len(polys)} Poly1305 vectors to {out}")
