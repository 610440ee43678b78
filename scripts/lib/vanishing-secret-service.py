#!/usr/bin/python3
"""A Secret Service that leaves the bus in the middle of a call: for tests of a provider that exits or crashes.

Starts a dbus-daemon of its own (private-bus.conf: nothing is D-Bus-activated, so no other provider takes the
name afterwards), takes org.freedesktop.secrets on it and prints the bus address on one line. It answers the
Service's properties, refuses encrypted sessions and opens a "plain" one, like a minimal provider; when METHOD is
called (SearchItems unless given), it closes its connection without answering, as a provider that crashes does.
The bus stays up, so the caller finds the name without an owner. Runs until its standard input closes (or
SIGTERM/SIGINT), then stops its dbus-daemon.

  vanishing-secret-service.py [METHOD]
"""
import os
import signal
import subprocess
import sys

import dbus
import dbus.bus
import dbus.lowlevel
import dbus.mainloop.glib
from gi.repository import GLib

NAME = "org.freedesktop.secrets"
SERVICE = "org.freedesktop.Secret.Service"
PROPERTIES = "org.freedesktop.DBus.Properties"


def main() -> int:
    # As in hung-secret-service.py: clear the signal mask a libdispatch thread passes on, and turn SIGTERM into
    # SystemExit so that the `finally` below stops the daemon.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    leave_on = sys.argv[1] if len(sys.argv) > 1 else "SearchItems"
    daemon = subprocess.Popen(
        ["dbus-daemon", "--config-file=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "private-bus.conf"),
         "--nofork", "--print-address=1"],
        stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        address = daemon.stdout.readline().strip()
        if not address:
            print("dbus-daemon printed no address", file=sys.stderr)
            return 1
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.bus.BusConnection(address)
        loop = GLib.MainLoop()

        def reply(message, signature, *values):
            answer = dbus.lowlevel.MethodReturnMessage(message)
            if signature:
                answer.append(*values, signature=signature)
            bus.send_message(answer)

        def on_message(connection, message):
            if not isinstance(message, dbus.lowlevel.MethodCallMessage):
                return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
            member, interface = message.get_member(), message.get_interface()
            if member == leave_on:
                # No answer: the daemon answers the caller with NoReply, and the name loses its owner.
                connection.close()
                return dbus.lowlevel.HANDLER_RESULT_HANDLED
            if interface == PROPERTIES and member == "GetAll":
                reply(message, "a{sv}", dbus.Dictionary({"Collections": dbus.Array([], signature="o")}, signature="sv"))
            elif interface == PROPERTIES and member == "Get":
                reply(message, "v", dbus.Array([], signature="o"))
            elif interface == SERVICE and member == "OpenSession" and message.get_args_list()[0] != "plain":
                bus.send_message(dbus.lowlevel.ErrorMessage(
                    message, "org.freedesktop.DBus.Error.NotSupported", "only the plain algorithm"))
            elif interface == SERVICE and member == "OpenSession":
                reply(message, "vo", dbus.String("", variant_level=1),
                      dbus.ObjectPath("/org/freedesktop/secrets/session/s1"))
            elif interface == SERVICE and member == "SearchItems":
                reply(message, "aoao", dbus.Array([], signature="o"), dbus.Array([], signature="o"))
            elif interface == SERVICE and member == "ReadAlias":
                reply(message, "o", dbus.ObjectPath("/"))
            else:
                error = dbus.lowlevel.ErrorMessage(message, "org.freedesktop.DBus.Error.UnknownMethod", member)
                bus.send_message(error)
            return dbus.lowlevel.HANDLER_RESULT_HANDLED

        bus.add_message_filter(on_message)
        reply_code = bus.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
        if reply_code != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
            print(f"could not own {NAME} (reply {reply_code})", file=sys.stderr)
            return 1
        print(address, flush=True)
        # Standard input closing (the test is done, or died) ends the main loop.
        GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, lambda *_: (loop.quit(), False)[1])
        loop.run()
        return 0
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a late SIGTERM must not cut the clean-up short
        daemon.terminate()
        daemon.wait(timeout=5)


if __name__ == "__main__":
    sys.exit(main())
