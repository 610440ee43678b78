#!/usr/bin/env python3
"""Reads the DesktopApp window through the accessibility bus (AT-SPI), as a screen reader does. For desktop-tests.

  desktop-atspi.py wait PID REGEX SECONDS     # waits until a label of process PID is named REGEX; prints the name
  desktop-atspi.py button PID NAME SECONDS    # waits until the button NAME is enabled; prints its centre "X Y"
  desktop-atspi.py labels PID                 # prints every label's name, one a line
  desktop-atspi.py enabled PID                # prints the name of every enabled button, one a line

`wait` and `button` look again every 100 ms until SECONDS pass, then exit 1 saying what they saw last: a bounded
wait that never gives up in silence. Button coordinates are the window's own (GTK 4 reports no screen position)
plus the window's origin on the X screen, which the caller passes in DESKTOPAPP_WINDOW_ORIGIN ("X Y").
"""
import os
import re
import sys
import time

import pyatspi


def application(pid):
    """The accessible application of process `pid`, or None."""
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        try:
            if app is not None and app.get_process_id() == pid:
                return app
        except Exception:  # an application that just left the bus
            continue
    return None


def walk(node, depth=0):
    """Every accessible below `node`, depth first."""
    if node is None or depth > 40:
        return
    yield node
    for index in range(node.childCount):
        yield from walk(node.getChildAtIndex(index), depth + 1)


def nodes(pid, role):
    """(name, accessible) of every accessible with `role` in the application of `pid`; read afresh each time."""
    app = application(pid)
    if app is None:
        return []
    app.clear_cache()
    found = []
    for node in walk(app):
        try:
            if node.getRole() == role:
                found.append((node.name or "", node))
        except Exception:
            continue
    return found


def bounded(seconds, what, attempt):
    """Calls `attempt` every 100 ms until it returns something, or fails after `seconds` naming `what`."""
    deadline = time.monotonic() + seconds
    last = None
    while True:
        result, last = attempt()
        if result is not None:
            return result
        if time.monotonic() >= deadline:
            print(f"desktop-atspi: waited {seconds} s for {what}, in vain; last seen: {last}", file=sys.stderr)
            sys.exit(1)
        time.sleep(0.1)


def main():
    command, pid = sys.argv[1], int(sys.argv[2])
    if command in ("labels", "enabled") and application(pid) is None:
        # Nothing to list is not "no label" or "no enabled button": say so, and fail.
        print(f"desktop-atspi: no application of process {pid} on the accessibility bus", file=sys.stderr)
        sys.exit(1)
    if command == "labels":
        for name, _ in nodes(pid, pyatspi.ROLE_LABEL):
            print(name)
    elif command == "enabled":
        for name, node in nodes(pid, pyatspi.ROLE_PUSH_BUTTON):
            if node.getState().contains(pyatspi.STATE_SENSITIVE):
                print(name)
    elif command == "wait":
        pattern, seconds = re.compile(sys.argv[3]), float(sys.argv[4])

        def attempt():
            names = [name for name, _ in nodes(pid, pyatspi.ROLE_LABEL)]
            match = next((name for name in names if pattern.fullmatch(name)), None)
            return match, names
        print(bounded(seconds, f"a label named /{pattern.pattern}/", attempt))
    elif command == "button":
        name, seconds = sys.argv[3], float(sys.argv[4])
        origin_x, origin_y = (int(v) for v in os.environ.get("DESKTOPAPP_WINDOW_ORIGIN", "0 0").split())

        def attempt():
            buttons = nodes(pid, pyatspi.ROLE_PUSH_BUTTON)
            for label, node in buttons:
                if label == name and node.getState().contains(pyatspi.STATE_SENSITIVE):
                    extents = node.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
                    if extents.width > 0 and extents.height > 0:
                        return (f"{origin_x + extents.x + extents.width // 2} "
                                f"{origin_y + extents.y + extents.height // 2}"), None
            return None, [(label, node.getState().contains(pyatspi.STATE_SENSITIVE)) for label, node in buttons]
        print(bounded(seconds, f"the button {name!r} to be enabled", attempt))
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(64)


if __name__ == "__main__":
    main()
