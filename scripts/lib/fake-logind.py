#!/usr/bin/python3
"""A fake systemd-logind on a private system bus: for the tests of SleepInhibitor's delay locks.

Starts a dbus-daemon of its own (private-system-bus.conf: of the system type, activating nothing), runs
python-dbusmock's logind template on it (`python3 -m dbusmock --system --template logind`), and prints the bus
address on one line once org.freedesktop.login1 has an owner. The template's Inhibit hands out the write end of a
pipe and lists the lock in ListInhibitors until every copy of that end is closed.

Then it answers one line for each line on its standard input:

  inhibitors    the locks held, as ListInhibitors lists them: a JSON array of objects with the keys what, who, why,
                mode, uid and pid; or a JSON object {"error": "..."} when the question could not be asked

and stops the mock and its dbus-daemon when its standard input closes (or on SIGTERM/SIGINT), so that a test run
that dies leaves no bus behind.

  fake-logind.py               # logind's mock owns org.freedesktop.login1
  fake-logind.py --no-logind   # the bus alone: nobody owns org.freedesktop.login1
  fake-logind.py --hung        # org.freedesktop.login1 is owned by a connection that never answers
  fake-logind.py --refusing    # a logind whose Inhibit answers AccessDenied, as polkit's refusal does
"""
import json
import os
import subprocess
import sys
import time

import dbus
import dbus.bus

from private_dbus import private_dbus_daemon

LOGIND = "org.freedesktop.login1"
LOGIND_PATH = "/org/freedesktop/login1"
MANAGER = "org.freedesktop.login1.Manager"
# How long the mock may take to own its name (python and dbusmock start in well under a second).
START_LIMIT = 30.0


def start_logind_mock(address, bus, arguments):
    """Starts dbusmock with `arguments` on the bus at `address` and returns once it owns logind's name."""
    mock = subprocess.Popen(
        [sys.executable, "-m", "dbusmock", "--system", *arguments],
        env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address),
        # dbusmock logs every call on its standard output, which is this script's answers.
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    # A template is loaded before the mock's main loop runs, so once the name has an owner, calls are answered
    # by the template (they wait in the queue until then). dbusmock offers nothing to await: ask the bus.
    deadline = time.monotonic() + START_LIMIT
    while not bus.name_has_owner(LOGIND):
        if mock.poll() is not None:
            raise SystemExit(f"the logind mock exited with status {mock.returncode} before owning {LOGIND}")
        if time.monotonic() > deadline:
            mock.terminate()
            raise SystemExit(f"the logind mock did not own {LOGIND} within {START_LIMIT} s")
        time.sleep(0.05)
    return mock


def inhibitors(bus):
    try:
        listed = bus.call_blocking(LOGIND, LOGIND_PATH, MANAGER, "ListInhibitors", "", [], timeout=10)
    except dbus.exceptions.DBusException as error:
        return {"error": str(error)}
    keys = ("what", "who", "why", "mode", "uid", "pid")
    return [{key: (int(value) if key in ("uid", "pid") else str(value)) for key, value in zip(keys, entry)}
            for entry in listed]


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("", "--no-logind", "--hung", "--refusing"):
        raise SystemExit(f"usage: {sys.argv[0]} [--no-logind | --hung | --refusing]")
    config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "private-system-bus.conf")
    with private_dbus_daemon(config) as address:
        bus = dbus.bus.BusConnection(address)
        mock = None
        try:
            if mode == "":
                mock = start_logind_mock(address, bus, ["--template", "logind"])
            elif mode == "--refusing":
                mock = start_logind_mock(address, bus, [LOGIND, LOGIND_PATH, MANAGER])
                bus.call_blocking(
                    LOGIND, LOGIND_PATH, "org.freedesktop.DBus.Mock", "AddMethod", "sssss",
                    [MANAGER, "Inhibit", "ssss", "h", "raise dbus.exceptions.DBusException("
                     "'Access denied', name='org.freedesktop.DBus.Error.AccessDenied')"], timeout=10)
            elif mode == "--hung":
                # Owned by this connection, whose messages nothing dispatches: every call waits in the queue.
                owner = dbus.bus.BusConnection(address)
                if owner.request_name(LOGIND, dbus.bus.NAME_FLAG_DO_NOT_QUEUE) != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
                    raise SystemExit(f"could not own {LOGIND}")
            print(address, flush=True)
            for line in sys.stdin:
                if line.strip() == "inhibitors":
                    answer = inhibitors(bus)
                else:
                    answer = {"error": f"unknown question {line.strip()!r}"}
                print(json.dumps(answer), flush=True)
        finally:
            if mock is not None:
                mock.terminate()
                mock.wait(timeout=5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
