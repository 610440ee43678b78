#!/usr/bin/python3
"""Headless administration of the Secret Service provider on the session bus, for scripts/test and the tests.

Locks and unlocks through each provider's own mechanisms, never by editing its files:

  gnome-keyring  lock: Secret Service Lock          unlock: gnome-keyring's internal UnlockWithMasterPassword
  keepassxc      lock: MainWindow.lockAllDatabases   unlock: MainWindow.openDatabase(file, password)
  kwallet        lock: Secret Service Lock (kwalletd closes the wallet)
                 unlock: org.kde.KWallet.pamOpen (what pam_kwallet does at login), then Secret Service Unlock,
                 which kwalletd completes without a dialog once the wallet is open

  provider-admin.py PROVIDER lock
  provider-admin.py PROVIDER unlock            # password on stdin
  provider-admin.py PROVIDER pam-open          # kwallet only; password on stdin
  provider-admin.py PROVIDER wait-unlocked SECONDS
  provider-admin.py PROVIDER duplicate SERVICE ACCOUNT LABEL   # secret on stdin; CreateItem without replacing
  provider-admin.py PROVIDER owner             # prints the command name of org.freedesktop.secrets' owner
  provider-admin.py PROVIDER items PREFIX      # prints the path and `service` of each item whose `service` starts
                                               # with PREFIX, in every unlocked collection, and the path and label
                                               # of each collection a test made (label `name-` + 8 hex digits)

Waits fail with a message after their limit; they never give up silently.
Environment: TOKENKEYRING_KEEPASSXC_DATABASE (keepassxc), XDG_DATA_HOME (kwallet's salt file).
"""
import hashlib
import os
import re
import sys
import time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

SERVICE = "org.freedesktop.secrets"
SERVICE_PATH = "/org/freedesktop/secrets"
DEFAULT_ALIAS = "/org/freedesktop/secrets/aliases/default"
SS = "org.freedesktop.Secret.Service"
KWALLET_WALLET = "kdewallet"


def fail(message):
    print(f"provider-admin.py: {message}", file=sys.stderr)
    sys.exit(1)


def default_locked(bus):
    alias = bus.get_object(SERVICE, DEFAULT_ALIAS)
    return bool(dbus.Interface(alias, "org.freedesktop.DBus.Properties").Get(
        "org.freedesktop.Secret.Collection", "Locked"))


def default_path(bus):
    service = bus.get_object(SERVICE, SERVICE_PATH)
    path = dbus.Interface(service, SS).ReadAlias("default")
    if path == "/":
        fail("the Secret Service has no default collection")
    return path


def wait_for(bus, locked, seconds):
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            if default_locked(bus) == locked:
                return
        except dbus.DBusException as error:
            last = error
        time.sleep(0.1)
    state = "locked" if locked else "unlocked"
    fail(f"the default collection was not {state} after {seconds} s (last error: {last})")


def complete_prompt(bus, prompt, seconds=30):
    """Runs a Secret Service prompt that needs no user (KeePassXC answers CreateItem with one) to its end."""
    if prompt == "/":
        return None
    loop = GLib.MainLoop()
    outcome = {}

    def completed(dismissed, result):
        outcome["dismissed"], outcome["result"] = bool(dismissed), result
        loop.quit()

    bus.add_signal_receiver(completed, "Completed", "org.freedesktop.Secret.Prompt", SERVICE, prompt)
    dbus.Interface(bus.get_object(SERVICE, prompt), "org.freedesktop.Secret.Prompt").Prompt("")
    GLib.timeout_add_seconds(seconds, loop.quit)
    loop.run()
    if "dismissed" not in outcome:
        fail(f"the prompt {prompt} did not complete within {seconds} s")
    if outcome["dismissed"]:
        fail(f"the prompt {prompt} was dismissed")
    return outcome["result"]


def plain_session(bus):
    service = dbus.Interface(bus.get_object(SERVICE, SERVICE_PATH), SS)
    _, session = service.OpenSession("plain", dbus.String("", variant_level=1))
    return session


def kwallet_pam_open(bus, password):
    # pam_kwallet's hash: PBKDF2-SHA512(password, salt, 50000, 56); the salt file is created if missing.
    folder = os.path.join(os.environ["XDG_DATA_HOME"], "kwalletd")
    os.makedirs(folder, exist_ok=True)
    salt_file = os.path.join(folder, KWALLET_WALLET + ".salt")
    if not os.path.exists(salt_file):
        with open(salt_file, "wb") as handle:
            handle.write(os.urandom(56))
    with open(salt_file, "rb") as handle:
        salt = handle.read()
    digest = hashlib.pbkdf2_hmac("sha512", password, salt, 50000, 56)
    kwallet = dbus.Interface(bus.get_object("org.kde.kwalletd5", "/modules/kwalletd5"), "org.kde.KWallet")
    kwallet.pamOpen(KWALLET_WALLET, dbus.ByteArray(digest), 0)
    deadline = time.monotonic() + 10
    while not kwallet.isOpen(KWALLET_WALLET, signature="s"):
        if time.monotonic() > deadline:
            fail("kwalletd5 did not open the wallet after pamOpen")
        time.sleep(0.1)


def lock(bus, provider):
    if provider == "keepassxc":
        window = bus.get_object("org.keepassxc.KeePassXC.MainWindow", "/keepassxc")
        dbus.Interface(window, "org.keepassxc.KeePassXC.MainWindow").lockAllDatabases()
    else:
        service = dbus.Interface(bus.get_object(SERVICE, SERVICE_PATH), SS)
        _, prompt = service.Lock([default_path(bus)])
        complete_prompt(bus, prompt)
    wait_for(bus, True, 10)


def unlock(bus, provider, password):
    if provider == "keepassxc":
        window = bus.get_object("org.keepassxc.KeePassXC.MainWindow", "/keepassxc")
        dbus.Interface(window, "org.keepassxc.KeePassXC.MainWindow").openDatabase(
            os.environ["TOKENKEYRING_KEEPASSXC_DATABASE"], password.decode(), signature="ss")
    elif provider == "kwallet":
        kwallet_pam_open(bus, password)
        service = dbus.Interface(bus.get_object(SERVICE, SERVICE_PATH), SS)
        # kwalletd5 answers with a prompt, which completes without a dialog once the wallet is open.
        _, prompt = service.Unlock([default_path(bus)])
        complete_prompt(bus, prompt)
    elif provider == "gnome-keyring":
        service = bus.get_object(SERVICE, SERVICE_PATH)
        session = plain_session(bus)
        secret = dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(password), "text/plain"), signature="oayays")
        internal = dbus.Interface(service, "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface")
        internal.UnlockWithMasterPassword(dbus.ObjectPath(default_path(bus)), secret)
    else:
        fail(f"unknown provider {provider}")
    wait_for(bus, False, 30)


def duplicate(bus, service_name, account, label, secret_bytes):
    session = plain_session(bus)
    collection = dbus.Interface(bus.get_object(SERVICE, default_path(bus)), "org.freedesktop.Secret.Collection")
    properties = {
        "org.freedesktop.Secret.Item.Label": dbus.String(label, variant_level=1),
        "org.freedesktop.Secret.Item.Attributes": dbus.Dictionary(
            {"service": service_name, "account": account}, signature="ss", variant_level=1),
    }
    secret = dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(secret_bytes), "text/plain"), signature="oayays")
    item, prompt = collection.CreateItem(properties, secret, False)
    if item == "/":
        item = complete_prompt(bus, prompt)
    print(item)


def owner(bus):
    daemon = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"), "org.freedesktop.DBus")
    pid = int(daemon.GetConnectionUnixProcessID(SERVICE))
    with open(f"/proc/{pid}/comm") as handle:
        print(handle.read().strip())


def items(bus, prefix):
    properties = "org.freedesktop.DBus.Properties"
    service = bus.get_object(SERVICE, SERVICE_PATH)
    for collection_path in service.Get(SS, "Collections", dbus_interface=properties):
        collection = bus.get_object(SERVICE, collection_path)
        label = str(collection.Get("org.freedesktop.Secret.Collection", "Label", dbus_interface=properties))
        if re.fullmatch(r"[a-z-]+-[0-9A-F]{8}", label):
            print(f"{collection_path} collection {label}")
        if collection.Get("org.freedesktop.Secret.Collection", "Locked", dbus_interface=properties):
            continue
        for item_path in collection.Get("org.freedesktop.Secret.Collection", "Items", dbus_interface=properties):
            item = bus.get_object(SERVICE, item_path)
            attributes = item.Get("org.freedesktop.Secret.Item", "Attributes", dbus_interface=properties)
            name = str(attributes.get("service", ""))
            if name.startswith(prefix):
                print(f"{item_path} {name}")


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 64
    provider, command, arguments = sys.argv[1], sys.argv[2], sys.argv[3:]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    if command == "lock":
        lock(bus, provider)
    elif command == "unlock":
        unlock(bus, provider, sys.stdin.buffer.read())
    elif command == "pam-open":
        kwallet_pam_open(bus, sys.stdin.buffer.read())
    elif command == "wait-unlocked":
        wait_for(bus, False, float(arguments[0]))
    elif command == "duplicate":
        duplicate(bus, arguments[0], arguments[1], arguments[2], sys.stdin.buffer.read())
    elif command == "owner":
        owner(bus)
    elif command == "items":
        items(bus, arguments[0])
    else:
        print(__doc__, file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main())
