#!/usr/bin/python3
"""A stand-in for gnome-keyring's Secret portal backend (org.freedesktop.impl.portal.Secret), for the answers that
gnome-keyring never gives: a user who cancels, a backend that fails, a key of the wrong size, a slow answer.

Takes the name org.freedesktop.secrets (the DBusName of gnome-keyring.portal, so gnome-keyring must not be
running) on the session bus, prints "ready" on one line, and answers every RetrieveSecret the way MODE says until
its standard input closes (or SIGTERM). xdg-desktop-portal passes the answer on to the app as the Response signal
of its request.

  secret-portal-backend.py ok [DELAY]        # writes a 64-byte key (the same for each app id); response 0
  secret-portal-backend.py cancel [DELAY]    # response 1: the user cancelled
  secret-portal-backend.py fail [DELAY]      # response 2: failed
  secret-portal-backend.py short [DELAY]     # writes 10 bytes; response 0
DELAY: seconds to wait before answering (the method returns at once, as gnome-keyring's does not).
"""
import hashlib
import os
import signal
import sys
import threading

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

INTERFACE = "org.freedesktop.impl.portal.Secret"
RESPONSES = {"ok": 0, "short": 0, "cancel": 1, "fail": 2}


class Backend(dbus.service.Object):
    def __init__(self, bus, mode, delay):
        super().__init__(bus, "/org/freedesktop/portal/desktop")
        self.mode, self.delay = mode, delay

    @dbus.service.method(INTERFACE, in_signature="osha{sv}", out_signature="ua{sv}",
                         async_callbacks=("reply", "error"))
    def RetrieveSecret(self, handle, app_id, fd, options, reply, error):
        descriptor = fd.take()

        def answer():
            if self.mode in ("ok", "short"):
                key = hashlib.sha512(("tokenkeyring-test:" + app_id).encode()).digest()
                os.write(descriptor, key[:10] if self.mode == "short" else key)
            os.close(descriptor)
            reply(dbus.UInt32(RESPONSES[self.mode]), dbus.Dictionary({}, signature="sv"))
            return False

        GLib.timeout_add(int(self.delay * 1000), answer)


def main() -> int:
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in RESPONSES:
        print(__doc__, file=sys.stderr)
        return 64
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    backend = Backend(bus, sys.argv[1], float(sys.argv[2]) if len(sys.argv) == 3 else 0)
    name = dbus.service.BusName("org.freedesktop.secrets", bus, do_not_queue=True)
    loop = GLib.MainLoop()
    signal.signal(signal.SIGTERM, lambda *_: loop.quit())
    threading.Thread(target=lambda: (sys.stdin.read(), GLib.idle_add(loop.quit)), daemon=True).start()
    print("ready", flush=True)
    loop.run()
    del backend, name
    return 0


if __name__ == "__main__":
    sys.exit(main())
