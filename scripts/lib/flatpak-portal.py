#!/usr/bin/python3
"""A stand-in for flatpak-portal (org.freedesktop.portal.Flatpak), for the simulated Flatpak sandbox of
flatpak-sandbox.sh: its Spawn starts the command in a new instance of the calling app's sandbox, as flatpak-portal
does with `flatpak run`, so that the command outlives the caller's instance. What `flatpak-spawn` uses:

  Spawn(ay cwd, aay argv, a{uh} fds, a{ss} envs, u flags, a{sv} options) -> u pid
      fds 0, 1 and 2 become the command's standard streams; envs are set in the new instance (whose environment is
      otherwise the sandbox's own, as `flatpak run` sets it); flags: CLEAR_ENV (1) is what the new instance does
      anyway, every other flag is refused (InvalidArgs), none being needed here.
  SpawnSignal(u pid, u signal, b to_process_group)
      sends the signal to the command in that instance (its process group with to_process_group).
  signal SpawnExited(u pid, u wait_status), once the instance has ended; properties version (6) and supports (0).

The app is the one whose /.flatpak-info the caller's process has (the caller is its xdg-dbus-proxy, sandboxed with the
app's file, as xdg-desktop-portal finds it). A new instance is started by LAUNCHER APP_ID --cwd DIR --env NAME=VALUE…
-- ARGV… (scripts/lib/flatpak-instance), in a session of its own: nothing that ends the caller reaches it.

  flatpak-portal.py LAUNCHER      # takes the name, prints "ready" on one line, runs until SIGTERM or SIGINT
"""
import configparser
import os
import signal
import subprocess
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME = "org.freedesktop.portal.Flatpak"
PATH = "/org/freedesktop/portal/Flatpak"
CLEAR_ENV = 1


def text(value):
    """A D-Bus `ay` as flatpak-spawn sends it (NUL-terminated) as a string."""
    return bytes(value).rstrip(b"\0").decode()


def descendants(root):
    """The PIDs of every process below `root`."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, pending = [], [root]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def command_in(instance):
    """The command of an instance started by the launcher: PID 2 of the sandbox's PID namespace (bwrap is PID 1)."""
    for pid in descendants(instance):
        try:
            with open(f"/proc/{pid}/status") as status:
                line = next(line for line in status if line.startswith("NSpid:"))
        except (OSError, StopIteration):
            continue
        ids = line.split()[1:]
        if len(ids) > 1 and ids[-1] == "2":
            return pid
    return None


class Portal(dbus.service.Object):
    def __init__(self, bus, launcher):
        super().__init__(bus, PATH)
        self.bus, self.launcher = bus, launcher
        self.instances = {}
        self.driver = dbus.Interface(bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"),
                                     "org.freedesktop.DBus")

    def app_id(self, sender):
        pid = int(self.driver.GetConnectionUnixProcessID(sender))
        info = configparser.ConfigParser(interpolation=None)
        if not info.read(f"/proc/{pid}/root/.flatpak-info") or not info.has_option("Application", "name"):
            raise dbus.exceptions.DBusException("The caller is not in a Flatpak sandbox.",
                                                name="org.freedesktop.portal.Error.NotAllowed")
        return info.get("Application", "name")

    @dbus.service.method(NAME, in_signature="ayaaya{uh}a{ss}ua{sv}", out_signature="u", sender_keyword="sender")
    def Spawn(self, cwd, argv, fds, envs, flags, options, sender=None):
        received = {int(number): handle.take() for number, handle in fds.items()}
        try:
            if flags & ~CLEAR_ENV or options or set(received) - {0, 1, 2} or not argv:
                raise dbus.exceptions.DBusException(
                    f"The stand-in portal takes fds 0-2 and the flag CLEAR_ENV only (flags {int(flags)}, "
                    f"options {sorted(options)}, fds {sorted(received)}).",
                    name="org.freedesktop.DBus.Error.InvalidArgs")
            command = [self.launcher, self.app_id(sender)]
            directory = text(cwd)
            if os.path.isdir(directory):
                command += ["--cwd", directory]
            for name, value in envs.items():
                command += ["--env", f"{name}={value}"]
            command += ["--"] + [text(argument) for argument in argv]
            process = subprocess.Popen(command, stdin=received.get(0, subprocess.DEVNULL),
                                       stdout=received.get(1, subprocess.DEVNULL),
                                       stderr=received.get(2, subprocess.DEVNULL), start_new_session=True)
        finally:
            for descriptor in received.values():
                os.close(descriptor)
        self.instances[process.pid] = process
        GLib.child_watch_add(GLib.PRIORITY_DEFAULT, process.pid, self.ended)
        print(f"flatpak-portal: spawned {process.pid}: {command[1]} {text(argv[0])}", file=sys.stderr, flush=True)
        return dbus.UInt32(process.pid)

    def ended(self, pid, status):
        process = self.instances.pop(pid, None)
        if process is not None:
            # GLib reaped it: Popen must not wait for that pid again (it may belong to another process by then).
            process.returncode = os.waitstatus_to_exitcode(status)
        print(f"flatpak-portal: {pid} ended (wait status {status})", file=sys.stderr, flush=True)
        self.SpawnExited(dbus.UInt32(pid), dbus.UInt32(status))

    @dbus.service.method(NAME, in_signature="uub", out_signature="")
    def SpawnSignal(self, pid, number, to_process_group):
        if int(pid) not in self.instances:
            return
        target = command_in(int(pid))
        if target is None:
            return
        try:
            if to_process_group:
                os.killpg(os.getpgid(target), int(number))
            else:
                os.kill(target, int(number))
        except ProcessLookupError:
            pass

    @dbus.service.signal(NAME, signature="uu")
    def SpawnExited(self, pid, status):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface != NAME:
            raise dbus.exceptions.DBusException(f"No interface {interface}.",
                                                name="org.freedesktop.DBus.Error.UnknownInterface")
        return {"version": dbus.UInt32(6), "supports": dbus.UInt32(0)}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    loop = GLib.MainLoop()
    for number in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_HIGH, number, loop.quit)
    portal = Portal(bus, sys.argv[1])
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    print("ready", flush=True)
    loop.run()
    # The instances it started end with it (flatpak-portal's own end with the session): each launcher's cleanup
    # then ends its sandbox and proxy.
    for pid in list(portal.instances):
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    del portal, name


if __name__ == "__main__":
    main()
