# shellcheck shell=bash source-path=SCRIPTDIR
# A headless Flatpak simulation, built from Debian packages, for running an app's code the way Flatpak runs it:
# in bubblewrap with a /.flatpak-info, its session bus through xdg-dbus-proxy allowing only the portals, and on the
# host gnome-keyring (unlocked) behind xdg-desktop-portal's Secret portal. Sourced by scripts; do not run it.
#
#   ensure_flatpak_packages               # apt-get install --no-install-recommends what is missing (root or sudo)
#   ensure_bundled_libsecret              # libsecret >= 0.21.4 built into $TOKENKEYRING_FLATPAK_BUILD/app (cached)
#   flatpak_reexec_in_private_bus "$0" "$@"   # at the top of a script: run it again inside a private session bus
#   start_flatpak_host [--open-uri]       # inside that bus: gnome-keyring + xdg-desktop-portal (+ the OpenURI portal)
#                                         # + the Flatpak portal's Spawn (flatpak-portal.py: a new instance of the app)
#   stop_flatpak_spawn_portal             # ends that Spawn portal: flatpak-spawn then fails, as without a portal
#   flatpak_wait_for_opened_uri PATTERN SECONDS   # with --open-uri: the URI the portal handed the host's handler
#   run_in_flatpak APP_ID [--libsecret bundled|system] [--share DIR]... [--share-ro DIR]... [--env NAME=VALUE]... \
#       [--cwd DIR] -- COMMAND...         # COMMAND in a new instance of the sandbox; exits with its status
#   flatpak_app_dir APP_ID                # the host path of the app's ~/.var/app/APP_ID
#   stop_flatpak_host                     # ends what start_flatpak_host started and removes its directory
#
# The sandbox, as `flatpak run` lays it out: /usr and /etc of the host read-only (the runtime), /app (the bundled
# libsecret with LD_LIBRARY_PATH=/app/lib, or empty with --libsecret system), a private /tmp, HOME the host's
# (private) HOME with only ~/.var/app/APP_ID in it, XDG_DATA_HOME, XDG_CONFIG_HOME, XDG_CACHE_HOME and
# XDG_STATE_HOME inside that, FLATPAK_ID and container=flatpak, XDG_RUNTIME_DIR=/run/user/UID private to the
# instance except /run/user/UID/app/APP_ID (shared by the app's instances and with the host, as in Flatpak: a
# cross-process lock belongs there), DBUS_SESSION_BUS_ADDRESS=unix:path=/run/flatpak/bus (the proxy), no
# capabilities, its own PID namespace (every process it started ends with it). The repository is shared
# read-write at its own path, and so is each --share DIR (--share-ro: read-only); /opt/swift is shared read-only
# when present, so that a test binary runs. The command starts in ~/.var/app/APP_ID, or in --cwd DIR.
#
# `flatpak-spawn` in the sandbox (Debian's, in /usr/libexec/flatpak-xdg-utils) asks the stand-in Flatpak portal for
# a new instance of the same app, with the bundled libsecret: one that outlives the caller's instance.
#
# Options, as environment variables:
#   TOKENKEYRING_FLATPAK_BUILD=DIR       where the bundled libsecret is built and cached (default: REPO/.build-flatpak)
#   TOKENKEYRING_DEBIAN_MIRROR=URL       the Debian mirror for trixie's source index (default: the machine's own)

_flatpak_lib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
_flatpak_repo=$(cd "$_flatpak_lib/../.." && pwd)
if ! declare -F start_private_keyring >/dev/null; then
    # shellcheck source=common.sh
    . "$_flatpak_lib/common.sh"
fi
TOKENKEYRING_FLATPAK_BUILD=${TOKENKEYRING_FLATPAK_BUILD:-$_flatpak_repo/.build-flatpak}
# shellcheck source=flatpak-bundle.sh
. "$_flatpak_lib/flatpak-bundle.sh"
TOKENKEYRING_FLATPAK_PIDS=()

# At the top of a script that needs the host side: runs the script again, with the same arguments, inside a
# private session bus that activates nothing (scripts/lib/private-bus.conf) and ends with it.
flatpak_reexec_in_private_bus() {
    [ -n "${TOKENKEYRING_FLATPAK_BUS:-}" ] && return 0
    # A parent spawning from a libdispatch thread passes on a mask that blocks SIGTERM (see private-provider).
    exec env TOKENKEYRING_FLATPAK_BUS=1 /usr/bin/python3 -c \
        'import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])' \
        dbus-run-session --config-file="$_flatpak_lib/private-bus.conf" -- "$@"
}

# Waits up to SECONDS for COMMAND to succeed; fails, saying WHAT, when it never does.
_flatpak_wait() {
    local seconds=$1 what=$2 _
    shift 2
    for _ in $(seq 1 $((seconds * 10))); do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    say "Timed out after $seconds s waiting for $what."
    return 1
}

_flatpak_has_name() {
    gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep -q true
}

# Inside the private bus: a private HOME (common.sh's private_home), gnome-keyring unlocked, xdg-permission-store,
# and xdg-desktop-portal with XDG_CURRENT_DESKTOP=GNOME, reading its backends from a directory of our own
# (XDG_DESKTOP_PORTAL_DIR, so /usr/share stays as it is): gnome-keyring.portal, and with --open-uri the OpenURI
# set-up below. Fails if the Secret portal does not answer.
#
# --open-uri: xdg-desktop-portal 1.16 exports OpenURI only when some backend claims AppChooser, so a .portal file
# claims it for a name nobody owns. For http(s) (and mailto, ftp, webcal, calendar) with a default handler the
# portal never asks the chooser: it launches the handler itself. The default x-scheme-handler/http(s) is then a
# recorder (an XDG_DATA_HOME .desktop file and XDG_CONFIG_HOME/mimeapps.list) that appends each URI it is given to
# $TOKENKEYRING_FLATPAK_HOST/opened-uris: see flatpak_wait_for_opened_uri. In the sandbox, an app opens a URI with
#   gdbus call --session --dest org.freedesktop.portal.Desktop --object-path /org/freedesktop/portal/desktop \
#       --method org.freedesktop.portal.OpenURI.OpenURI '' URI '{}'
start_flatpak_host() {
    [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || { say "start_flatpak_host needs a private session bus."; return 1; }
    start_private_keyring || return 1
    # Exported: the Spawn portal's new instances (flatpak-instance) run in this host.
    export TOKENKEYRING_FLATPAK_HOST="$TOKENKEYRING_SESSION_DIR"
    local portals="$TOKENKEYRING_FLATPAK_HOST/portals" logs="$TOKENKEYRING_FLATPAK_HOST/logs"
    mkdir -p "$portals" "$logs" "$TOKENKEYRING_FLATPAK_HOST/instances"
    cp /usr/share/xdg-desktop-portal/portals/gnome-keyring.portal "$portals/"
    if [ "${1:-}" = "--open-uri" ]; then
        printf '[portal]\nDBusName=org.tokenkeyring.NoAppChooser\nInterfaces=org.freedesktop.impl.portal.AppChooser\nUseIn=gnome\n' \
            >"$portals/no-app-chooser.portal"
        local recorder="$TOKENKEYRING_FLATPAK_HOST/record-uri"
        printf '#!/bin/sh\nprintf "%%s\\n" "$@" >>"%s"\n' "$TOKENKEYRING_FLATPAK_HOST/opened-uris" >"$recorder"
        chmod +x "$recorder"
        : >"$TOKENKEYRING_FLATPAK_HOST/opened-uris"
        mkdir -p "$XDG_DATA_HOME/applications"
        printf '[Desktop Entry]\nType=Application\nName=URI recorder\nNoDisplay=true\nExec=%s %%u\nMimeType=%s\n' \
            "$recorder" 'x-scheme-handler/http;x-scheme-handler/https;' \
            >"$XDG_DATA_HOME/applications/tokenkeyring-uri-recorder.desktop"
        printf '[Default Applications]\nx-scheme-handler/http=%s\nx-scheme-handler/https=%s\n' \
            tokenkeyring-uri-recorder.desktop tokenkeyring-uri-recorder.desktop >"$XDG_CONFIG_HOME/mimeapps.list"
    fi
    /usr/libexec/xdg-permission-store --replace >"$logs/permission-store.log" 2>&1 &
    TOKENKEYRING_FLATPAK_PIDS+=($!)
    _flatpak_wait 10 "xdg-permission-store" _flatpak_has_name org.freedesktop.impl.portal.PermissionStore || return 1
    XDG_CURRENT_DESKTOP=GNOME XDG_DESKTOP_PORTAL_DIR="$portals" G_MESSAGES_DEBUG=all \
        /usr/libexec/xdg-desktop-portal --replace >"$logs/portal.log" 2>&1 &
    # shellcheck disable=SC2034  # read by the scripts that source this file (flatpak-tests stops the portal)
    TOKENKEYRING_FLATPAK_PORTAL_PID=$!
    TOKENKEYRING_FLATPAK_PIDS+=($!)
    _flatpak_wait 10 "xdg-desktop-portal" _flatpak_has_name org.freedesktop.portal.Desktop || {
        tail -n 20 "$logs/portal.log" >&2; return 1; }
    /usr/bin/python3 "$_flatpak_lib/flatpak-portal.py" "$_flatpak_lib/flatpak-instance" \
        >"$logs/flatpak-portal.out" 2>"$logs/flatpak-portal.log" &
    TOKENKEYRING_FLATPAK_SPAWN_PORTAL_PID=$!
    TOKENKEYRING_FLATPAK_PIDS+=($!)
    _flatpak_wait 10 "the stand-in Flatpak portal (flatpak-portal.py)" grep -qx ready "$logs/flatpak-portal.out" || {
        tail -n 20 "$logs/flatpak-portal.log" >&2; return 1; }
    local version
    version=$(timeout 10 gdbus call --session --dest org.freedesktop.portal.Desktop \
        --object-path /org/freedesktop/portal/desktop --method org.freedesktop.DBus.Properties.Get \
        org.freedesktop.portal.Secret version 2>&1) || true
    if [ "$version" != "(<uint32 1>,)" ]; then
        say "xdg-desktop-portal offers no Secret portal (version 1): $version"
        tail -n 20 "$logs/portal.log" >&2
        return 1
    fi
}

stop_flatpak_host() {
    local pid
    for pid in "${TOKENKEYRING_FLATPAK_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${TOKENKEYRING_FLATPAK_PIDS[@]}"; do
        timeout 10 tail --pid="$pid" -f /dev/null 2>/dev/null || { kill -KILL "$pid" 2>/dev/null || true; }
    done
    TOKENKEYRING_FLATPAK_PIDS=()
    stop_private_keyring
}

# Ends the stand-in Flatpak portal and waits until its name has left the bus.
stop_flatpak_spawn_portal() {
    local pid kept=()
    kill "${TOKENKEYRING_FLATPAK_SPAWN_PORTAL_PID:-}" 2>/dev/null || true
    for pid in "${TOKENKEYRING_FLATPAK_PIDS[@]}"; do
        [ "$pid" = "${TOKENKEYRING_FLATPAK_SPAWN_PORTAL_PID:-}" ] || kept+=("$pid")
    done
    TOKENKEYRING_FLATPAK_PIDS=("${kept[@]}")
    _flatpak_wait 10 "the Flatpak portal to leave the bus" sh -c '! gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.NameHasOwner org.freedesktop.portal.Flatpak | grep -q true'
}

flatpak_app_dir() { printf '%s\n' "$HOME/.var/app/$1"; }

# After start_flatpak_host --open-uri: waits up to SECONDS for the recorder to have been handed a URI that matches
# the grep -E PATTERN, and prints it; fails loudly (with what it was handed) when none comes.
flatpak_wait_for_opened_uri() {
    local pattern=$1 seconds=$2 log="$TOKENKEYRING_FLATPAK_HOST/opened-uris"
    if _flatpak_wait "$seconds" "a URI matching $pattern to be opened" grep -qE -- "$pattern" "$log"; then
        grep -E -- "$pattern" "$log" | head -n 1
        return 0
    fi
    say "URIs opened so far: $(tr '\n' ' ' <"$log")"
    return 1
}

# Runs a command in the sandbox of APP_ID (see the top of this file) and exits with its status. A subshell, so
# that its trap ends the proxy and removes the instance's files however the command ends.
run_in_flatpak() (
    set -euo pipefail
    [ -n "${TOKENKEYRING_FLATPAK_HOST:-}" ] || { say "run_in_flatpak needs start_flatpak_host first."; exit 1; }
    local app_id=${1:-} libsecret=bundled shares=(--bind "$_flatpak_repo" "$_flatpak_repo") envs=() uid cwd=""
    shift || true
    if ! [[ "$app_id" =~ ^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*){2,}$ ]]; then
        say "run_in_flatpak: '$app_id' is no Flatpak app id (reverse DNS, three elements at least)."
        exit 64
    fi
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        case "$1" in
            --libsecret) libsecret=$2 ;;
            --share) shares+=(--bind "$2" "$2") ;;
            --share-ro) shares+=(--ro-bind "$2" "$2") ;;
            --env) envs+=(--setenv "${2%%=*}" "${2#*=}") ;;
            --cwd) cwd=$2 ;;
            *) say "run_in_flatpak: unknown option $1"; exit 64 ;;
        esac
        shift 2
    done
    if [ "${1:-}" != "--" ] || [ $# -lt 2 ]; then say "run_in_flatpak APP_ID [options] -- COMMAND…"; exit 64; fi
    shift
    uid=$(id -u)
    local app_dir instance runtime_app
    app_dir=$(flatpak_app_dir "$app_id")
    runtime_app="$XDG_RUNTIME_DIR/app/$app_id"
    mkdir -p "$app_dir/data" "$app_dir/config" "$app_dir/cache" "$app_dir/.local/state" "$runtime_app"
    chmod 700 "$runtime_app"
    instance=$(mktemp -d "$TOKENKEYRING_FLATPAK_HOST/instances/$app_id.XXXXXX")
    # What Flatpak writes for an instance; the portal reads [Application] name through /proc/PID/root.
    cat >"$instance/flatpak-info" <<INFO
[Application]
name=$app_id
runtime=runtime/org.tokenkeyring.Platform/x86_64/test

[Instance]
instance-id=${instance##*.}
app-path=/app
runtime-path=/usr
session-bus-proxy=true
flatpak-version=1.14.10

[Context]
shared=network;ipc;

[Session Bus Policy]
org.freedesktop.portal.*=talk
INFO
    mkdir -m 700 "$instance/bus"
    mkfifo "$instance/ready"
    local proxy="" sandbox="" stdin
    # shellcheck disable=SC2317  # called by the trap
    cleanup() {
        exec {sync}>&- 2>/dev/null || true
        local pid
        for pid in $sandbox $proxy; do
            kill "$pid" 2>/dev/null || true
            timeout 10 tail --pid="$pid" -f /dev/null 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
        done
        rm -rf "$instance"
    }
    trap cleanup EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # Who to signal to end this instance (the trap above ends the rest); SIGKILL works too: both bwraps die with it.
    printf '%s\n' "$BASHPID" >"$instance/supervisor"
    # The proxy runs sandboxed with the same /.flatpak-info, as in Flatpak: the portal looks at its peer (the
    # proxy) to tell which app is asking. It writes a byte to fd 3 once it listens, and stops when fd 3 closes.
    local host_bus=() socket
    if [[ "$DBUS_SESSION_BUS_ADDRESS" == unix:path=* ]]; then
        socket=${DBUS_SESSION_BUS_ADDRESS#unix:path=}
        host_bus=(--bind "${socket%%,*}" "${socket%%,*}")
    fi
    exec {sync}<>"$instance/ready"
    bwrap --die-with-parent --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib \
        --symlink usr/lib64 /lib64 --ro-bind /etc /etc --proc /proc --dev /dev "${host_bus[@]}" \
        --ro-bind "$instance/flatpak-info" /.flatpak-info --bind "$instance/bus" "$instance/bus" \
        xdg-dbus-proxy --fd=3 "$DBUS_SESSION_BUS_ADDRESS" "$instance/bus/bus" --filter \
        --talk='org.freedesktop.portal.*' --broadcast='org.freedesktop.portal.*=@/org/freedesktop/portal/*' \
        3>"$instance/ready" >/dev/null 2>"$instance/proxy.log" &
    proxy=$!
    local ready=""
    read -r -t 10 -N 1 -u "$sync" ready || true
    if [ "$ready" != "x" ]; then
        cat "$instance/proxy.log" >&2 || true
        say "xdg-dbus-proxy for $app_id did not get ready within 10 s."
        exit 1
    fi
    local app_mount=(--dir /app)
    case "$libsecret" in
        bundled)
            ensure_bundled_libsecret >&2
            app_mount=(--ro-bind "$TOKENKEYRING_FLATPAK_BUILD/app" /app)
            envs=(--setenv LD_LIBRARY_PATH /app/lib "${envs[@]}") ;;
        system) ;;
        *) say "run_in_flatpak: --libsecret bundled or system, not $libsecret"; exit 64 ;;
    esac
    local home_app="$HOME/.var/app/$app_id" status=0
    # In the background, so that a signal runs the trap at once (bash runs traps only between commands), with
    # standard input passed on explicitly (a background command would get /dev/null).
    exec {stdin}<&0
    bwrap --die-with-parent --unshare-pid --unshare-ipc --unshare-uts --cap-drop ALL \
        --ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/sbin /sbin --symlink usr/lib /lib \
        --symlink usr/lib64 /lib64 --ro-bind /etc /etc --proc /proc --dev /dev --tmpfs /tmp --tmpfs /var/tmp \
        --tmpfs /run --ro-bind-try /opt/swift /opt/swift "${app_mount[@]}" \
        --ro-bind "$instance/flatpak-info" /.flatpak-info \
        --ro-bind "$instance/bus/bus" /run/flatpak/bus --dir "/run/user/$uid" --chmod 0700 "/run/user/$uid" \
        --symlink /run/flatpak/bus "/run/user/$uid/bus" --bind "$runtime_app" "/run/user/$uid/app/$app_id" \
        --dir "$HOME" --bind "$app_dir" "$home_app" "${shares[@]}" --chdir "${cwd:-$home_app}" \
        --clearenv --setenv PATH /app/bin:/usr/bin:/bin --setenv HOME "$HOME" --setenv LANG C.UTF-8 \
        --setenv USER "$(id -un)" --setenv FLATPAK_ID "$app_id" --setenv container flatpak \
        --setenv XDG_DATA_HOME "$home_app/data" --setenv XDG_CONFIG_HOME "$home_app/config" \
        --setenv XDG_CACHE_HOME "$home_app/cache" --setenv XDG_STATE_HOME "$home_app/.local/state" \
        --setenv XDG_DATA_DIRS /app/share:/usr/share --setenv XDG_RUNTIME_DIR "/run/user/$uid" \
        --setenv DBUS_SESSION_BUS_ADDRESS unix:path=/run/flatpak/bus "${envs[@]}" \
        -- "$@" <&"$stdin" &
    sandbox=$!
    wait "$sandbox" || status=$?
    sandbox=""
    exit "$status"
)
