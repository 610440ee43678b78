#!/usr/bin/env python3
"""Checks the package's layering from `swift package describe --type json` on standard input.

Every module a Swift target imports is one it declares (a target or a product), or one the toolchain brings: a
module reached only through another target's dependencies builds in a warm build directory and fails in a clean one.

The core (TokenAuth), the file store (TokenAuthFileStore), the OAuth test server, their tests, the testing doubles and
the adapters must have no path to the keyring (Keyring, CLibSecret, or any C target they build on): an app for a container that keeps its
tokens in files links no libsecret. The core, the keyring and file stores, the testing doubles, the adapters and
`tokenctl` (with its base and the base's tests) must have no path to sign-in (TokenAuthSignIn) nor to swift-nio, swift-crypto or jwt-kit: TokenAuth
depends on no products but swift-log's and swift-http-types'. Everything `tokenctl` links (the core, both stores,
Keyring, TokenCtlBase) builds on FoundationEssentials: no path to URLSession, the argument parser or the full
command line, and `import Foundation` only as the `#else` of `#if canImport(FoundationEssentials)`.
GLib's delivery (TokenAuthGLib, CGLib) is reached by no library but itself: the core takes completions isolated to
any actor and knows nothing of GLib; the file store reaches no GLib at all (CGLib, nor libsecret's, through Keyring). Each C module is a dependency of its one Swift module (and that module's tests)
only: CLibSecret of Keyring, CGLib of TokenAuthGLib, CTSS2 (tpm2-tss) of TokenAuthTPM, whose DPoP keys reach no keyring
and no GLib either. No library product reaches what only this package's tests and
tools use (the test support targets, the OAuth test server, ChildProcesses), and ChildProcesses — the child-process
runner of the tests and the benchmarks — depends on nothing, so that an app neither builds nor resolves anything for it.
Prints what it checked; exits 1 naming the offending path otherwise.
"""
import json
import os
import re
import sys

KEYRING = {"Keyring", "CLibSecret"}
KEYRING_FREE = [
    "TokenAuth", "TokenAuthTests", "TokenAuthFileStore", "TokenAuthFileStoreTests", "file-store-child", "TokenAuthTesting",
    "OAuthTestSupport",
    "TokenAuthOpenCombine", "TokenAuthOpenCombineTests", "TokenAuthOpenAPI", "TokenAuthOpenAPITests",
    "TokenAuthGLib", "TokenAuthGLibTests", "OAuthTestServerTests", "TokenAuthTPM", "TokenAuthTPMTests",
]
CORE_PRODUCTS = {"Logging", "HTTPTypes"}
SIGN_IN = {"TokenAuthSignIn"}
SIGN_IN_FREE = [
    "TokenAuth", "TokenAuthKeyring", "TokenAuthFileStore", "TokenAuthTesting", "TokenAuthOpenCombine",
    "TokenAuthOpenAPI", "TokenAuthGLib",
    # tokenctl hands every call but the plain token read to tokenctl-full (whose commands link sign-in), so that its
    # start-up loads none of it (figure 6).
    "TokenCtlBase", "TokenCtlBaseTests", "tokenctl",
]
GLIB = {"TokenAuthGLib", "CGLib"}
GLIB_FREE = [
    "TokenAuth", "TokenAuthURLSession", "TokenAuthSignIn", "TokenAuthKeyring", "TokenAuthFileStore", "Keyring",
    "TokenAuthTesting", "TokenAuthOpenCombine", "TokenAuthOpenAPI", "TokenCtlBase", "TokenCtlCommands", "tokenctl",
    "tokenctl-full", "TokenAuthTPM",
]
# The only targets that may depend on each C module: its Swift face, and that module's tests.
C_MODULE_OWNERS = {
    "CLibSecret": {"Keyring", "KeyringTests"}, "CGLib": {"TokenAuthGLib", "TokenAuthGLibTests"},
    "CTSS2": {"TokenAuthTPM", "TokenAuthTPMTests"},
}
# What only this package's tests and tools build: no library product may reach it.
TESTS_AND_TOOLS = {"ChildProcesses", "TestSupport", "KeyringTestSupport", "OAuthTestSupport", "OAuthTestServer"}
# Targets with no dependency at all, neither a target nor a product.
DEPENDENCY_FREE = ["ChildProcesses"]
SIGN_IN_PRODUCT_PREFIXES = ("NIO", "Crypto", "_Crypto", "JWT", "X509")
# What `tokenctl` links: FoundationEssentials only (figure 6: no ICU, no libcurl, no parser at start-up).
ESSENTIALS_ONLY = ["TokenAuth", "TokenAuthKeyring", "TokenAuthFileStore", "Keyring", "TokenCtlBase", "tokenctl"]
FULL_FOUNDATION_TARGETS = {"TokenAuthURLSession", "TokenCtlCommands", "TokenAuthSignIn"}
FULL_FOUNDATION_PRODUCTS = {"HTTPTypesFoundation", "ArgumentParser"}
FULL_FOUNDATION_MODULES = {"Foundation", "FoundationNetworking", "FoundationXML", "FoundationInternationalization"}

package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}
# Whatever Keyring builds on (e.g. a C target of its own) is keyring too.
stack = ["Keyring"]
while stack:
    for dependency in targets.get(stack.pop(), {}).get("target_dependencies") or []:
        if dependency not in KEYRING:
            KEYRING.add(dependency)
            stack.append(dependency)


def path_to(goal, name, seen=()):
    """The dependency path from `name` to a target in `goal`, or None."""
    if name in goal:
        return [name]
    for dependency in targets.get(name, {}).get("target_dependencies") or []:
        if dependency in seen:
            continue
        found = path_to(goal, dependency, seen + (name,))
        if found:
            return [name] + found
    return None


def path_to_keyring(name):
    return path_to(KEYRING, name)


def sign_in_products(name, seen=()):
    """A dependency path from `name` to a product of swift-nio, swift-crypto or jwt-kit, or None."""
    for product in targets.get(name, {}).get("product_dependencies") or []:
        if product.startswith(SIGN_IN_PRODUCT_PREFIXES):
            return [name, product]
    for dependency in targets.get(name, {}).get("target_dependencies") or []:
        if dependency in seen:
            continue
        found = sign_in_products(dependency, seen + (name,))
        if found:
            return [name] + found
    return None


failures = []
for name in KEYRING_FREE + SIGN_IN_FREE + GLIB_FREE + ESSENTIALS_ONLY:
    if name not in targets:
        failures.append(f"{name}: no such target")
for name in KEYRING_FREE:
    if name not in targets:
        continue
    path = path_to_keyring(name)
    if path:
        failures.append(f"{name} reaches the keyring: {' -> '.join(path)}")
for name in SIGN_IN_FREE:
    path = path_to(SIGN_IN, name) or sign_in_products(name)
    if path:
        failures.append(f"{name} reaches sign-in: {' -> '.join(path)}")
for name in GLIB_FREE:
    path = path_to(GLIB, name)
    if path:
        failures.append(f"{name} reaches GLib's delivery: {' -> '.join(path)}")
for name, target in targets.items():
    for module, owners in C_MODULE_OWNERS.items():
        if module in (target.get("target_dependencies") or []) and name not in owners:
            failures.append(f"{name} depends on {module}, which only {' and '.join(sorted(owners))} may")
for name in ESSENTIALS_ONLY:
    path = path_to(FULL_FOUNDATION_TARGETS, name)
    if path:
        failures.append(f"{name} reaches full Foundation: {' -> '.join(path)}")
    for dependency in [name] + [d for d in targets if path_to({d}, name)]:
        products = set(targets.get(dependency, {}).get("product_dependencies") or []) & FULL_FOUNDATION_PRODUCTS
        if products:
            failures.append(f"{name} reaches full Foundation: {dependency} depends on {sorted(products)}")
    target = targets.get(name, {})
    for source in target.get("sources") or []:
        path = os.path.join(package.get("path", "."), target["path"], source)
        with open(path, encoding="utf-8") as file:
            previous = ""
            for number, line in enumerate(file, 1):
                match = re.match(r"^\s*import\s+([A-Za-z_]+)", line)
                if match and match.group(1) in FULL_FOUNDATION_MODULES and previous != "#else":
                    failures.append(f"{target['path']}/{source}:{number} imports {match.group(1)} outside the #else "
                                    "of #if canImport(FoundationEssentials)")
                if line.strip():
                    previous = line.strip()
LIBRARIES = sorted({name for product in package["products"] if "library" in (product.get("type") or {})
                    for name in product["targets"]})
for name in sorted(TESTS_AND_TOOLS | set(DEPENDENCY_FREE)):
    if name not in targets:
        failures.append(f"{name}: no such target")
for name in LIBRARIES:
    path = path_to(TESTS_AND_TOOLS, name)
    if path:
        failures.append(f"the library {name} reaches what only the tests and tools use: {' -> '.join(path)}")
for name in DEPENDENCY_FREE:
    dependencies = (targets.get(name, {}).get("target_dependencies") or []) + \
        (targets.get(name, {}).get("product_dependencies") or [])
    if dependencies:
        failures.append(f"{name} depends on {sorted(dependencies)}: it must depend on nothing")
extra = set(targets["TokenAuth"].get("product_dependencies") or []) - CORE_PRODUCTS
if extra:
    failures.append(f"TokenAuth depends on products beyond its allowed set {sorted(CORE_PRODUCTS)}: {sorted(extra)}")
# Modules of the toolchain and the system, which no target declares.
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Dispatch", "Glibc", "Musl", "Synchronization",
    "Testing", "XCTest", "_Concurrency", "Observation", "Darwin", "PackagePlugin", "os",
}
IMPORT = re.compile(r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:public |package |internal |private |fileprivate )?"
                    r"import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)")
root = package.get("path", ".")
for name, target in sorted(targets.items()):
    # A snippet cannot declare dependencies: it sees every library of the package.
    if target.get("module_type") != "SwiftTarget" or target.get("type") == "snippet":
        continue
    declared = set(target.get("target_dependencies") or []) | set(target.get("product_dependencies") or [])
    for source in target.get("sources") or []:
        path = os.path.join(root, target["path"], source)
        with open(path, encoding="utf-8") as file:
            for number, line in enumerate(file, 1):
                match = IMPORT.match(line)
                if match and match.group(1) not in declared | TOOLCHAIN | {name}:
                    failures.append(f"{target['path']}/{source}:{number} imports {match.group(1)}, "
                                    f"which {name} does not declare as a dependency")
if failures:
    print("layering: " + "; ".join(failures), file=sys.stderr)
    sys.exit(1)
print(f"layering: no path to {sorted(KEYRING)} from {', '.join(KEYRING_FREE)}", file=sys.stderr)
print("layering: every Swift target declares what it imports", file=sys.stderr)
print(f"layering: no path to sign-in, swift-nio, swift-crypto or jwt-kit from {', '.join(SIGN_IN_FREE)}", file=sys.stderr)
print(f"layering: FoundationEssentials only in {', '.join(ESSENTIALS_ONLY)}", file=sys.stderr)
print(f"layering: no path to {sorted(GLIB)} from {', '.join(GLIB_FREE)}", file=sys.stderr)
print(f"layering: no library product ({', '.join(LIBRARIES)}) reaches {sorted(TESTS_AND_TOOLS)}; "
      f"{', '.join(DEPENDENCY_FREE)} depends on nothing", file=sys.stderr)
print("layering: " + "; ".join(f"only {' and '.join(sorted(owners))} depend on {module}"
                               for module, owners in C_MODULE_OWNERS.items()), file=sys.stderr)
