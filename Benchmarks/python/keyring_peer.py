"""Python `keyring` with its Secret Service backend, timed the way scripts/bench times the others.

    python keyring_peer.py SERVICE ACCOUNT ITERATIONS < secret
    {"save_ns":[...],"load_ns":[...]}

Run it with the interpreter of a throwaway venv that has `keyring` installed (scripts/bench makes one).
The backend is chosen explicitly, so a missing D-Bus session fails instead of falling back to another one.
"""
import json
import sys
import time

import keyring
from keyring.backends import SecretService


def main() -> int:
    if len(sys.argv) != 4:
        print("usage: keyring_peer.py SERVICE ACCOUNT ITERATIONS < secret", file=sys.stderr)
        return 64
    service, account, iterations = sys.argv[1], sys.argv[2], int(sys.argv[3])
    secret = sys.stdin.read()
    backend = SecretService.Keyring()
    keyring.set_keyring(backend)

    # One call outside the timings: the connection and session, as a long-running app would have them.
    backend.set_password(service, account, secret)

    save_ns, load_ns = [], []
    for _ in range(iterations):
        start = time.monotonic_ns()
        backend.set_password(service, account, secret)
        save_ns.append(time.monotonic_ns() - start)
    for _ in range(iterations):
        start = time.monotonic_ns()
        found = backend.get_password(service, account)
        load_ns.append(time.monotonic_ns() - start)
        if found != secret:
            print("keyring_peer: the secret read back differs from the one stored", file=sys.stderr)
            return 1
    backend.delete_password(service, account)
    print(json.dumps({"save_ns": save_ns, "load_ns": load_ns}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
