#!/usr/bin/python3
"""A Secret Service that never answers, on a private D-Bus session bus: for timeout tests.

Starts a dbus-daemon of its own, takes the name org.freedesktop.secrets on it, prints the bus address
on one line and then answers nothing: no main loop runs, so every method call waits in the queue. A
client pointed at the address with DBUS_SESSION_BUS_ADDRESS finds a Secret Service that is there but
hung, which only its own timeout can get it out of.

Runs until its standard input closes (or SIGTERM/SIGINT), then stops its dbus-daemon. Tying the
lifetime to standard input means that a test run that dies leaves no bus behind.

  hung-secret-service.py        # prints e.g. unix:path=/tmp/dbus-AbC123,guid=…
"""
import signal
import subprocess
import sys

import dbus
import dbus.bus

NAME = "org.freedesktop.secrets"


def main() -> int:
    # A parent that spawns from a libdispatch thread (Foundation's Process does) passes on a signal mask
    # that blocks SIGTERM; clear it, for this process and the dbus-daemon that inherits it.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    # Turn SIGTERM into SystemExit, so that the `finally` below stops the daemon.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    daemon = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        address = daemon.stdout.readline().strip()
        if not address:
            print("dbus-daemon printed no address", file=sys.stderr)
            return 1
        bus = dbus.bus.BusConnection(address)
        reply = bus.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        if reply != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
            print(f"could not own {NAME} (reply {reply})", file=sys.stderr)
            return 1
        print(address, flush=True)
        sys.stdin.read()
        return 0
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a late SIGTERM must not cut the clean-up short
        daemon.terminate()
        daemon.wait(timeout=5)


if __name__ == "__main__":
    sys.exit(main())
