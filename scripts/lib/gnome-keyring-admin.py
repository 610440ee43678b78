#!/usr/bin/python3
"""Headless gnome-keyring administration for tests: create a password-protected collection, unlock it, delete it.

gnome-keyring asks for passwords through a GUI prompter, which cannot run without a display. Its
internal D-Bus interface accepts the password directly instead; this script uses it over one
connection (the password travels inside a Secret Service session, as the spec requires).

  gnome-keyring-admin.py create LABEL     # password on stdin; prints the new collection's path
  gnome-keyring-admin.py unlock PATH      # password on stdin
  gnome-keyring-admin.py delete PATH      # the collection and its items, locked or not (no prompt)
"""
import sys

import dbus

SERVICE = "org.freedesktop.secrets"
INTERNAL = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in ("create", "unlock", "delete"):
        print(__doc__, file=sys.stderr)
        return 64
    command, argument = sys.argv[1], sys.argv[2]
    bus = dbus.SessionBus()
    if command == "delete":
        collection = dbus.Interface(bus.get_object(SERVICE, argument), "org.freedesktop.Secret.Collection")
        prompt = collection.Delete()
        if prompt != "/":
            print(f"gnome-keyring-admin.py: deleting {argument} needs a prompt ({prompt})", file=sys.stderr)
            return 1
        return 0
    password = sys.stdin.read().encode()
    service = bus.get_object(SERVICE, "/org/freedesktop/secrets")
    _, session = dbus.Interface(service, "org.freedesktop.Secret.Service").OpenSession(
        "plain", dbus.String("", variant_level=1))
    secret = dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(password), "text/plain"),
                         signature="oayays")
    internal = dbus.Interface(service, INTERNAL)
    if command == "create":
        label = {"org.freedesktop.Secret.Collection.Label": dbus.String(argument, variant_level=1)}
        print(internal.CreateWithMasterPassword(label, secret))
    else:
        internal.UnlockWithMasterPassword(dbus.ObjectPath(argument), secret)
    return 0


if __name__ == "__main__":
    sys.exit(main())
