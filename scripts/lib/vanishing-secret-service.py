#!/usr/bin/python3
"""A Secret Service that leaves the bus in the middle of a call: for tests of a provider that exits or crashes.

Starts a dbus-daemon of its own (private-bus.conf: nothing is D-Bus-activated, so no other provider takes the
name afterwards), takes org.freedesktop.secrets on it and prints the bus address on one line. It answers the
Service's properties, refuses encrypted sessions and opens a "plain" one, like a minimal provider; when METHOD is
called (SearchItems unless given), it closes its connection without answering, as a provider that crashes does.
The bus stays up, so the caller finds the name without an owner. With --bus-too it kills the dbus-daemon instead,
as a session that ends (a logout) does: the caller's connection to the bus closes in the middle of its call. Runs
until its standard input closes (or SIGTERM/SIGINT), then stops its dbus-daemon.

  vanishing-secret-service.py [METHOD] [--bus-too]
"""
import os
import signal
import sys

import dbus
import dbus.bus
import dbus.lowlevel
import dbus.mainloop.glib
from gi.repository import GLib

from private_dbus import own_secret_service_name, private_dbus_daemon

SERVICE = "org.freedesktop.Secret.Service"
PROPERTIES = "org.freedesktop.DBus.Properties"


def main() -> int:
    arguments = [argument for argument in sys.argv[1:] if argument != "--bus-too"]
    bus_too = "--bus-too" in sys.argv[1:]
    leave_on = arguments[0] if arguments else "SearchItems"
    # No service directories: once this provider is gone, nothing is D-Bus-activated in its place.
    config = os.path.join(os.path.dirname(os.path.abspath(__file__)), "private-bus.conf")
    with private_dbus_daemon(config) as address:
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        bus = dbus.bus.BusConnection(address)
        loop = GLib.MainLoop()
        # The daemon's own process id, which it reports for its name like for any connection's.
        daemon_pid = bus.call_blocking(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionUnixProcessID",
            "s", ["org.freedesktop.DBus"])

        def reply(message, signature, *values):
            answer = dbus.lowlevel.MethodReturnMessage(message)
            if signature:
                answer.append(*values, signature=signature)
            bus.send_message(answer)

        def refuse(message, error, text):
            bus.send_message(dbus.lowlevel.ErrorMessage(message, error, text))

        def on_message(connection, message):
            if not isinstance(message, dbus.lowlevel.MethodCallMessage):
                return dbus.lowlevel.HANDLER_RESULT_NOT_YET_HANDLED
            member, interface = message.get_member(), message.get_interface()
            if member == leave_on and bus_too:
                # No answer and no bus: every connection to it closes, the caller's with its call still out.
                os.kill(int(daemon_pid), signal.SIGKILL)
            elif member == leave_on:
                # No answer: the daemon answers the caller with NoReply, and the name loses its owner.
                connection.close()
            elif interface == PROPERTIES and member == "GetAll":
                reply(message, "a{sv}", dbus.Dictionary({"Collections": dbus.Array([], signature="o")}, signature="sv"))
            elif interface == PROPERTIES and member == "Get":
                reply(message, "v", dbus.Array([], signature="o"))
            elif interface == SERVICE and member == "OpenSession" and message.get_args_list()[0] != "plain":
                refuse(message, "org.freedesktop.DBus.Error.NotSupported", "only the plain algorithm")
            elif interface == SERVICE and member == "OpenSession":
                reply(message, "vo", dbus.String("", variant_level=1), dbus.ObjectPath("/org/freedesktop/secrets/session/s1"))
            elif interface == SERVICE and member == "SearchItems":
                reply(message, "aoao", dbus.Array([], signature="o"), dbus.Array([], signature="o"))
            elif interface == SERVICE and member == "ReadAlias":
                reply(message, "o", dbus.ObjectPath("/"))
            else:
                refuse(message, "org.freedesktop.DBus.Error.UnknownMethod", member)
            return dbus.lowlevel.HANDLER_RESULT_HANDLED

        bus.add_message_filter(on_message)
        own_secret_service_name(bus)
        print(address, flush=True)
        # Standard input closing (the test is done, or died) ends the main loop.
        GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, lambda *_: (loop.quit(), False)[1])
        loop.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
