#!/usr/bin/env python3
"""Writes the seeds that need a signature: Fuzz/Corpus/id-token/signed-*.jwt and Fuzz/Corpus/jwks/fuzz-keys.json.

The id-token and jwks targets (and their replay tests) trust the fuzz keys below: an ES256 key (kid "fuzz-es256")
and an Ed25519 key (kid "fuzz-eddsa"), each derived from a fixed phrase so that these seeds, the targets and the
tests agree without sharing a file. They are test keys: they protect nothing.

Run it again (python3 Fuzz/Tools/signed-seeds.py; needs python3-cryptography) after changing a claim below. The
ES256 signatures are randomized, so the files change on every run even when nothing else does.
"""
import base64
import hashlib
import json
import pathlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, utils

ROOT = pathlib.Path(__file__).resolve().parent.parent
NOW = 1_800_000_000  # the targets' wall clock
ISSUER = "https://issuer.example"
CLIENT = "fuzz-client"
NONCE = "fuzz-nonce"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


es256 = ec.derive_private_key(
    int.from_bytes(hashlib.sha256(b"TokenKeyring fuzz ES256").digest(), "big"), ec.SECP256R1())
eddsa = ed25519.Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"TokenKeyring fuzz EdDSA").digest())
numbers = es256.public_key().public_numbers()
ed_public = eddsa.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def sign(header: dict, payload, signer: str = "es256") -> str:
    """A compact JWS; `payload` is a dict or the payload's exact text."""
    text = payload if isinstance(payload, str) else json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    signing_input = b64(json.dumps(header, separators=(",", ":")).encode()) + "." + b64(text.encode())
    if signer == "es256":
        r, s = utils.decode_dss_signature(es256.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
        signature = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    else:
        signature = eddsa.sign(signing_input.encode())
    return signing_input + "." + b64(signature)


def claims(**changes) -> dict:
    base = {"iss": ISSUER, "sub": "248289761001", "aud": CLIENT, "iat": NOW - 60, "exp": NOW + 3540, "nonce": NONCE}
    base.update(changes)
    return {key: value for key, value in base.items() if value is not None}


ES = {"alg": "ES256", "kid": "fuzz-es256", "typ": "JWT"}
ED = {"alg": "EdDSA", "kid": "fuzz-eddsa"}
tokens = {
    "valid-es256": sign(ES, claims(preferred_username="ada")),
    "valid-eddsa": sign(ED, claims(email="ada@example.com"), "eddsa"),
    "valid-no-kid": sign({"alg": "ES256"}, claims(name="Ada Lovelace")),
    "google-style": sign(ES, claims(
        azp=CLIENT, email="ada@gmail.com", email_verified=True, at_hash="HK6E_P6Dh8Y93mRNtsDB1Q", name="Ada",
        picture="https://lh3.googleusercontent.com/a/x", given_name="Ada", locale="en")),
    "microsoft-style": sign(ES, claims(
        ver="2.0", tid="9188040d-6c67-4c5b-b112-36a304b66dad", oid="00000000-0000-0000-66f3-3332eca7ea81",
        preferred_username="ada@contoso.onmicrosoft.com", name="Ada", aio="Df2UVXL1ix!lMCWMSOJBcFatzcGfvFGhjKv8q5g0x732dR5MB5BisvGQO7YWByjd8iQDLq!eGbIDakyp5mnOrcdqHeYSnltepQmRp6AIZ8jY")),
    "gitlab-style": sign(ES, claims(
        auth_time=NOW - 120, sub_legacy="2bd0bbc0e5a6a6d5b4b9d7e11c0e3e0b", groups_direct=["gitlab-org"],
        nickname="ada")),
    "aud-array-with-azp": sign(ES, claims(aud=[CLIENT, "https://api.example"], azp=CLIENT)),
    "aud-array-without-azp": sign(ES, claims(aud=[CLIENT, "https://api.example"])),
    "aud-array-single": sign(ES, claims(aud=[CLIENT])),
    "azp-other": sign(ES, claims(azp="someone-else")),
    "aud-other": sign(ES, claims(aud="someone-else")),
    "aud-empty-array": sign(ES, claims(aud=[])),
    "expired": sign(ES, claims(iat=NOW - 7200, exp=NOW - 3600)),
    "expired-within-skew": sign(ES, claims(iat=NOW - 3700, exp=NOW - 60)),
    "issued-in-future": sign(ES, claims(iat=NOW + 3600, exp=NOW + 7200)),
    "wrong-issuer": sign(ES, claims(iss="https://issuer.example/")),
    "issuer-template": sign(ES, claims(iss="https://login.microsoftonline.com/{tenantid}/v2.0")),
    "wrong-nonce": sign(ES, claims(nonce="another")),
    "no-nonce": sign(ES, claims(nonce=None)),
    "empty-sub": sign(ES, claims(sub="")),
    "no-sub": sign(ES, claims(sub=None)),
    "sub-number": sign(ES, claims(sub=42)),
    "exp-string": sign(ES, claims(exp=str(NOW + 3540))),
    "exp-fraction": sign(ES, claims(exp=NOW + 3540.5)),
    "exp-huge": sign(ES, '{"iss":"%s","sub":"1","aud":"%s","iat":%d,"exp":1e300,"nonce":"%s"}' % (ISSUER, CLIENT, NOW, NONCE)),
    "exp-negative": sign(ES, claims(exp=-1)),
    "iat-huge-negative": sign(ES, '{"iss":"%s","sub":"1","aud":"%s","iat":-1e300,"exp":%d,"nonce":"%s"}' % (ISSUER, CLIENT, NOW + 60, NONCE)),
    "duplicate-iss": sign(ES, '{"iss":"https://evil.example","iss":"%s","sub":"1","aud":"%s","iat":%d,"exp":%d,"nonce":"%s"}' % (ISSUER, CLIENT, NOW, NOW + 60, NONCE)),
    "unicode-names": sign(ES, claims(name="A\u0301da \U0001F600", preferred_username="\u202eadmin", email="")),
    "payload-not-object": sign(ES, "[1,2,3]"),
    "payload-not-json": sign(ES, "not json"),
    "alg-eddsa-key-es256": sign({"alg": "EdDSA", "kid": "fuzz-es256"}, claims()),
    "alg-es256-key-eddsa": sign({"alg": "ES256", "kid": "fuzz-eddsa"}, claims(), "eddsa"),
    "alg-eddsa-no-kid-signed-es256": sign({"alg": "EdDSA"}, claims()),
    "alg-rs256-no-kid-signed-es256": sign({"alg": "RS256"}, claims()),
    "unknown-kid": sign({"alg": "ES256", "kid": "rotated-away"}, claims()),
    "kid-number": sign({"alg": "ES256", "kid": 7}, claims()),
    "crit-header": sign({"alg": "ES256", "kid": "fuzz-es256", "crit": ["exp"], "exp": 1}, claims()),
}
directory = ROOT / "Corpus" / "id-token"
directory.mkdir(parents=True, exist_ok=True)
for name, token in tokens.items():
    (directory / f"signed-{name}.jwt").write_text(token)

jwks = {"keys": [
    {"kty": "EC", "crv": "P-256", "kid": "fuzz-es256", "alg": "ES256", "use": "sig",
     "x": b64(numbers.x.to_bytes(32, "big")), "y": b64(numbers.y.to_bytes(32, "big"))},
    {"kty": "OKP", "crv": "Ed25519", "kid": "fuzz-eddsa", "x": b64(ed_public)},
]}
(ROOT / "Corpus" / "jwks").mkdir(parents=True, exist_ok=True)
(ROOT / "Corpus" / "jwks" / "fuzz-keys.json").write_text(json.dumps(jwks, indent=2) + "\n")
print(f"wrote {len(tokens)} tokens and the fuzz key set")
