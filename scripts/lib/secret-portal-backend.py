#!/usr/bin/python3
"""A stand-in for gnome-keyring's Secret portal backend (org.freedesktop.impl.portal.Secret), for the answers that
gnome-keyring never gives: a user who cancels, a backend that fails, a key of the wrong size, a slow answer, or no
answer until a test says so.

Takes the name org.freedesktop.secrets (the DBusName of gnome-keyring.portal, so gnome-keyring must not be
running) on the session bus, prints "ready" on one line, and answers every RetrieveSecret the way MODE says until
its standard input closes (or SIGTERM). xdg-desktop-portal passes the answer on to the app as the Response signal
of its request.

  secret-portal-backend.py ok [DELAY]        # writes a 64-byte key (the same for each app id); response 0
  secret-portal-backend.py cancel [DELAY]    # response 1: the user cancelled
  secret-portal-backend.py fail [DELAY]      # response 2: failed
  secret-portal-backend.py short [DELAY]     # writes 10 bytes; response 0
  secret-portal-backend.py hold DIRECTORY    # as ok, but DIRECTORY/control decides when (see below)
DELAY: seconds to wait before answering (the method returns at once, as gnome-keyring's does not).

hold: a portal call that hangs, at the moment a test chooses (as libsecret < 0.21.4 can hang on a missed answer,
but deterministic). DIRECTORY/control holds one word, read again whenever it changes (looked at every 20 ms):
  pass          (or no file) every new request is answered at once; requests held before stay held
  hold          every new request is held: no key, no reply, until "release"
  hold-after-N  the next N new requests are answered, every later one held
  release       every held request is answered now, and every new one at once
After each change DIRECTORY/status says "WORD received R held H answered A" (written to a temporary file and
renamed, so a reader never sees half of it): a test that wrote a word waits until the status names it before it
relies on it. xdg-desktop-portal gives up on a backend call after 25 s: a request held longer
fails at the app with a timeout instead of being answered.
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
RESPONSES = {"ok": 0, "short": 0, "cancel": 1, "fail": 2, "hold": 0}


class Backend(dbus.service.Object):
    def __init__(self, bus, mode, delay, control):
        super().__init__(bus, "/org/freedesktop/portal/desktop")
        self.mode, self.delay, self.control = mode, delay, control
        self.word = "pass"
        self.answer_before_holding = 0
        self.held = []
        self.received = self.answered = 0
        if control is not None:
            self.report()
            GLib.timeout_add(20, self.look)

    @dbus.service.method(INTERFACE, in_signature="osha{sv}", out_signature="ua{sv}",
                         async_callbacks=("reply", "error"))
    def RetrieveSecret(self, handle, app_id, fd, options, reply, error):
        descriptor = fd.take()

        def answer():
            if self.mode in ("ok", "short", "hold"):
                key = hashlib.sha512(("tokenkeyring-test:" + app_id).encode()).digest()
                os.write(descriptor, key[:10] if self.mode == "short" else key)
            os.close(descriptor)
            reply(dbus.UInt32(RESPONSES[self.mode]), dbus.Dictionary({}, signature="sv"))
            self.answered += 1
            if self.control is not None:
                self.report()
            return False

        self.received += 1
        if self.control is None:
            GLib.timeout_add(int(self.delay * 1000), answer)
        elif self.word.startswith("hold") and self.answer_before_holding == 0:
            self.held.append(answer)
            self.report()
        else:
            if self.word.startswith("hold"):
                self.answer_before_holding -= 1
            answer()

    def look(self):
        """Reads the control word again; on "release" answers what is held."""
        try:
            with open(os.path.join(self.control, "control"), encoding="utf-8") as file:
                word = file.read().strip() or "pass"
        except FileNotFoundError:
            word = "pass"
        count = word[len("hold-after-"):] if word.startswith("hold-after-") else None
        if word not in ("pass", "hold", "release") and not (count and count.isdigit()):
            print(f"secret-portal-backend: unknown control word {word!r}", file=sys.stderr, flush=True)
            return True
        if word != self.word:
            self.word = word
            self.answer_before_holding = int(count) if count else 0
            self.report()
        if word == "release" and self.held:
            held, self.held = self.held, []
            for answer in held:
                answer()
        return True

    def report(self):
        status = os.path.join(self.control, "status")
        with open(status + ".new", "w", encoding="utf-8") as file:
            file.write(f"{self.word} received {self.received} held {len(self.held)} answered {self.answered}\n")
        os.replace(status + ".new", status)


def main() -> int:
    arguments = sys.argv[1:]
    if not arguments or arguments[0] not in RESPONSES or len(arguments) > 2 \
            or (arguments[0] == "hold" and (len(arguments) != 2 or not os.path.isdir(arguments[1]))):
        print(__doc__, file=sys.stderr)
        return 64
    mode = arguments[0]
    control = arguments[1] if mode == "hold" else None
    delay = float(arguments[1]) if mode != "hold" and len(arguments) == 2 else 0
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    backend = Backend(bus, mode, delay, control)
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
