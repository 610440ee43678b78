#!/usr/bin/env python3
"""Checks the package's layering from `swift package describe --type json` on standard input.

The core (TokenAuth), its tests, the testing doubles and the adapters must have no path to the keyring
(Keyring, CLibSecret, or any C target they build on), and TokenAuth may depend on no products but swift-log's,
swift-http-types', and those of its sign-in flows: swift-nio's HTTP/1 server (the loopback redirect), swift-crypto
(PKCE) and jwt-kit (OpenID Connect id_tokens). Prints what it checked; exits 1 naming the offending path otherwise.
"""
import json
import sys

KEYRING = {"Keyring", "CLibSecret"}
KEYRING_FREE = [
    "TokenAuth", "TokenAuthTests", "TokenAuthTesting", "OAuthTestSupport",
    "TokenAuthOpenCombine", "TokenAuthOpenCombineTests", "TokenAuthOpenAPI", "TokenAuthOpenAPITests",
]
CORE_PRODUCTS = {"Logging", "HTTPTypes", "HTTPTypesFoundation", "NIOCore", "NIOPosix", "NIOHTTP1", "Crypto", "JWTKit"}

package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
# Whatever Keyring builds on (e.g. a C target of its own) is keyring too.
stack = ["Keyring"]
while stack:
    for dependency in targets.get(stack.pop(), {}).get("target_dependencies") or []:
        if dependency not in KEYRING:
            KEYRING.add(dependency)
            stack.append(dependency)


def path_to_keyring(name, seen=()):
    """The dependency path from `name` to a keyring target, or None."""
    if name in KEYRING:
        return [name]
    for dependency in targets.get(name, {}).get("target_dependencies") or []:
        if dependency in seen:
            continue
        found = path_to_keyring(dependency, seen + (name,))
        if found:
            return [name] + found
    return None


failures = []
for name in KEYRING_FREE:
    if name not in targets:
        failures.append(f"{name}: no such target")
        continue
    path = path_to_keyring(name)
    if path:
        failures.append(f"{name} reaches the keyring: {' -> '.join(path)}")
extra = set(targets["TokenAuth"].get("product_dependencies") or []) - CORE_PRODUCTS
if extra:
    failures.append(f"TokenAuth depends on products beyond its allowed set {sorted(CORE_PRODUCTS)}: {sorted(extra)}")
if failures:
    print("layering: " + "; ".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"layering: no path to {sorted(KEYRING)} from {', '.join(KEYRING_FREE)}", file=sys.stderr)
