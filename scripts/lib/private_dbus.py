"""A dbus-daemon of a test's own, for the test Secret Services (hung-secret-service.py, vanishing-secret-service.py).

    with private_dbus_daemon(config_file) as address:   # None: the system's session configuration
        bus = dbus.bus.BusConnection(address)
        own_secret_service_name(bus)
        ...

The daemon is stopped when the block ends, also on SIGTERM, which is turned into SystemExit for that.
"""
import contextlib
import signal
import subprocess
import sys

import dbus
import dbus.bus

SECRET_SERVICE_NAME = "org.freedesktop.secrets"


@contextlib.contextmanager
def private_dbus_daemon(config_file=None):
    # A parent that spawns from a libdispatch thread (Foundation's Process does) passes on a signal mask
    # that blocks SIGTERM; clear it, for this process and the dbus-daemon that inherits it.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    # Turn SIGTERM into SystemExit, so that the `finally` below stops the daemon.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    configuration = [f"--config-file={config_file}"] if config_file else ["--session"]
    daemon = subprocess.Popen(
        ["dbus-daemon", *configuration, "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        address = daemon.stdout.readline().strip()
        if not address:
            raise SystemExit("dbus-daemon printed no address")
        yield address
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a late SIGTERM must not cut the clean-up short
        daemon.terminate()
        daemon.wait(timeout=5)


def own_secret_service_name(bus):
    """Takes org.freedesktop.secrets on `bus`, or exits with a message when another connection has it."""
    reply = bus.request_name(SECRET_SERVICE_NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    if reply != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        raise SystemExit(f"could not own {SECRET_SERVICE_NAME} (reply {reply})")
