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
import sys

import dbus.bus

from private_dbus import own_secret_service_name, private_dbus_daemon


def main() -> int:
    with private_dbus_daemon() as address:
        bus = dbus.bus.BusConnection(address)
        own_secret_service_name(bus)
        print(address, flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
