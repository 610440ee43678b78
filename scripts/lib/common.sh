# Shared by scripts/test and scripts/demo. Source it; do not run it.

# The Debian packages the project needs: libsecret to build, gnome-keyring and D-Bus to run a private
# keyring, secret-tool to show items the way a person would, python3-dbus and python3-gi (its GLib main loop; only
# a Recommends of python3-dbus, so named here) for headless keyring admin and the test Secret Services;
# KeePassXC and KWallet (kwalletd5, with libqca's plugins for its encrypted session) for the provider runs;
# python3-dbusmock (its logind template) for the fake logind of the sleep inhibitor's tests (fake-logind.py);
# Chromium (run headless) and curl as the browsers of the browser sign-in.
# libcurl4-openssl-dev: FoundationNetworking, linked statically into tokenctl-full by scripts/build-tokenctl, needs -lcurl.
# libtss2-dev (tpm2-tss) to build TokenAuthTPM; swtpm and swtpm-tools for a software TPM, and tpm2-tools to check that
# it answers and to clear it, for its tests (scripts/lib/swtpm.sh).
TOKENKEYRING_APT_PACKAGES=(libsecret-1-dev libglib2.0-dev libglib2.0-bin gnome-keyring libsecret-tools dbus python3-dbus
    python3-gi python3-dbusmock keepassxc libkf5wallet-bin libqca-qt5-2-plugins chromium curl libcurl4-openssl-dev
    libtss2-dev swtpm swtpm-tools tpm2-tools tpm2-abrmd libtss2-tcti-tabrmd0)

# What the desktop app's test needs (scripts/lib/desktop-tests), installed without Recommends (76 packages instead of
# 105): GTK 4 to build Examples/DesktopApp; Xvfb for a display; xdotool to click; at-spi2-core (the accessibility
# bus) and python3-pyatspi to read the window as a screen reader does; ImageMagick's import for screenshots.
TOKENKEYRING_DESKTOP_APT_PACKAGES=(libgtk-4-dev xvfb xdotool at-spi2-core python3-pyatspi imagemagick)

say() { printf '%s\n' "$*" >&2; }

# Runs a command; if it is still running after LIMIT seconds, prints the thread stacks of the test processes
# (with gdb, when it is installed) and stops it. A hung test run then fails with the reason in its log, instead of
# using up CI's whole time in silence.
run_watched() {
    local limit=$1
    shift
    "$@" &
    local pid=$!
    (
        sleep "$limit" &
        sleeper=$!
        trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
        wait "$sleeper"
        kill -0 "$pid" 2>/dev/null || exit 0
        say "!! Still running after ${limit} s, so taken for hung: $*"
        for test_pid in $(pgrep -f '^[^ ]*[.]xctest( |$)' || true); do
            if command -v gdb >/dev/null 2>&1; then
                say "!! Thread stacks of process $test_pid:"
                gdb -p "$test_pid" -batch -ex 'thread apply all bt 30' >&2 2>/dev/null || true
            else
                say "!! (install gdb to see the thread stacks of process $test_pid here)"
            fi
            kill -KILL "$test_pid" 2>/dev/null || true
        done
        kill "$pid" 2>/dev/null || true
    ) &
    local watchdog=$!
    local status=0
    wait "$pid" || status=$?
    kill "$watchdog" 2>/dev/null || true
    wait "$watchdog" 2>/dev/null || true
    return "$status"
}

# Installs whatever of TOKENKEYRING_APT_PACKAGES is missing. Needs root or sudo for that.
# The scratch path of the packages built beside this one, each depending on this checkout: the consumer
# (Examples/Consumer, staged in .build/consumer), the fresh clone of scripts/lib/fresh-clone and Examples/DesktopApp.
# Their dependencies' objects (swift-crypto's BoringSSL, swift-nio, jwt-kit, …) come out of the same commands in
# each, so SwiftPM compiles them once for the three instead of three times; each compiles its own targets itself. It
# is the fresh clone's own .build (kept between its runs), because the docs' commands run there as written, and one
# build directory must be reached by one path only (through a symlink, clang finds its modules twice).
# Needs the repository's path; prints the scratch path.
shared_scratch_path() { printf '%s\n' "$1/.build/fresh-clone/TokenKeyring/.build"; }

ensure_system_packages() { install_missing_apt_packages "${TOKENKEYRING_APT_PACKAGES[@]}"; }

# Installs whatever of TOKENKEYRING_DESKTOP_APT_PACKAGES is missing, without Recommends. Needs root or sudo.
ensure_desktop_packages() { install_missing_apt_packages --no-install-recommends "${TOKENKEYRING_DESKTOP_APT_PACKAGES[@]}"; }

# Installs the Debian packages named that are missing (`--no-install-recommends` first: without Recommends), with
# one `apt-get update` before; as root, else through sudo, else says the command to run and fails.
install_missing_apt_packages() {
    local options=() missing=() package
    if [ "${1:-}" = --no-install-recommends ]; then
        options=(--no-install-recommends)
        shift
    fi
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            say "Missing Debian packages: ${missing[*]}. Installing them needs root or sudo:"
            say "  apt-get update && apt-get install -y ${options[*]} ${missing[*]}"
            return 1
        fi
    fi
    say "Installing ${missing[*]} (apt-get ${options[*]})…"
    local started=$SECONDS
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${options[@]}" "${missing[@]}" >&2
    say "Installed them in $((SECONDS - started)) s."
}

# Points HOME and XDG_* at a new temporary directory (TOKENKEYRING_SESSION_DIR), so that a provider started
# afterwards keeps its keyring files there and nowhere else.
private_home() {
    TOKENKEYRING_SESSION_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tokenkeyring.XXXXXX")
    export HOME="$TOKENKEYRING_SESSION_DIR/home"
    export XDG_DATA_HOME="$HOME/.local/share" XDG_CONFIG_HOME="$HOME/.config" XDG_CACHE_HOME="$HOME/.cache"
    export XDG_RUNTIME_DIR="$TOKENKEYRING_SESSION_DIR/runtime"
    mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR"
    chmod 700 "$XDG_RUNTIME_DIR"
}

# Inside a private session bus: a private home (above), gnome-keyring-daemon with an unlocked login collection,
# and a wait until it answers on the bus. stop_private_keyring undoes everything.
start_private_keyring() {
    private_home
    # TOKENKEYRING_SEED_KEYRINGS=DIR: keyring files to start with; gnome-keyring loads them locked, as at login.
    if [ -n "${TOKENKEYRING_SEED_KEYRINGS:-}" ]; then
        mkdir -p "$XDG_DATA_HOME/keyrings"
        cp "$TOKENKEYRING_SEED_KEYRINGS"/*.keyring "$XDG_DATA_HOME/keyrings/"
    fi
    # The password only protects this throwaway keyring; it goes through stdin, never argv.
    printf 'tokenkeyring-test' | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    local _
    for _ in $(seq 1 50); do
        if gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true; then
            return 0
        fi
        sleep 0.1
    done
    say "gnome-keyring-daemon did not appear on the session bus."
    return 1
}

stop_private_keyring() {
    local pid
    pid=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets 2>/dev/null \
        | sed -n 's/^(uint32 \([0-9]*\),)$/\1/p') || true
    [ -n "${pid:-}" ] && kill "$pid" 2>/dev/null || true
    [ -n "${TOKENKEYRING_SESSION_DIR:-}" ] && rm -rf "$TOKENKEYRING_SESSION_DIR"
    return 0
}

# `tokenctl` (the built executable) links FoundationEssentials, never full Foundation, FoundationNetworking or ICU:
# what check-layers.py checks in the sources, checked in the binary, with a control that the check sees libraries.
check_tokenctl_links_essentials() {
    say "Checking that tokenctl links no full Foundation…"
    local libraries
    libraries=$(ldd "$repo/.build/debug/tokenctl")
    if ! grep -q 'libFoundationEssentials\.so' <<<"$libraries"; then
        say "ldd lists no libFoundationEssentials for .build/debug/tokenctl: the check below would prove nothing."
        return 1
    fi
    if grep -E 'lib(Foundation|FoundationNetworking|FoundationInternationalization|_FoundationICU|curl)\.so' \
        <<<"$libraries" >&2; then
        say "tokenctl links the libraries above: its plain token read must build on FoundationEssentials alone."
        return 1
    fi
}

# An app of the file store alone (`file-store-child`, built with the tests, as an app for a container is built) links
# no libsecret, GLib or GIO: what check-layers.py checks of TokenAuthFileStore's sources, checked in a binary, with a
# control that the check sees libraries.
check_file_store_links_no_keyring() {
    say "Checking that an app of the file store links no libsecret…"
    local libraries
    libraries=$(ldd "$repo/.build/debug/file-store-child")
    if ! grep -q 'libswiftCore\.so' <<<"$libraries"; then
        say "ldd lists no libswiftCore for .build/debug/file-store-child: the check below would prove nothing."
        return 1
    fi
    if grep -E 'lib(secret-1|glib-2\.0|gio-2\.0|gobject-2\.0)\.so' <<<"$libraries" >&2; then
        say "file-store-child links the libraries above: TokenAuthFileStore must build on the core alone."
        return 1
    fi
}

# Proves that the TokenAuth core and the file store need no libsecret: the package's layering has no path from the
# core, its tests, the file store, the testing doubles or the adapters to the keyring, and `swift build --target
# TokenAuth` and `--target TokenAuthFileStore` succeed with a pkg-config that knows no package at all (so no
# libsecret-1 and no glib). As a control, the same environment must fail to build Keyring: otherwise the pkg-config
# stand-in proved nothing.
check_keyring_free_core() {
    say "Checking that the TokenAuth core and the file store build without libsecret…"
    swift package --enable-all-traits describe --type json | python3 "$repo/scripts/lib/check-layers.py"
    local nothing
    nothing=$(mktemp -d "${TMPDIR:-/tmp}/no-pkg-config.XXXXXX")
    printf '#!/bin/sh\n# Knows no package: what pkg-config says where libsecret and glib are not installed.\nexit 1\n' \
        >"$nothing/pkg-config"
    chmod +x "$nothing/pkg-config"
    local status=0
    local target
    for target in TokenAuth TokenAuthFileStore; do
        PATH="$nothing:$PATH" PKG_CONFIG_PATH="" swift build --scratch-path .build-core --target "$target" >&2 || status=$?
        if [ "$status" -ne 0 ]; then
            rm -rf "$nothing"
            say "$target does not build without libsecret."
            return 1
        fi
    done
    if PATH="$nothing:$PATH" PKG_CONFIG_PATH="" swift build --scratch-path .build-core --target Keyring >/dev/null 2>&1; then
        rm -rf "$nothing"
        say "Keyring built without pkg-config finding libsecret: the check above proves nothing."
        return 1
    fi
    rm -rf "$nothing"
    say "TokenAuth and TokenAuthFileStore build where pkg-config finds neither libsecret nor glib; Keyring does not (as expected)."
}

# The libraries' texts are for the people using an app built on them, who may never have heard of tokenctl: no
# string literal in a library's sources names it (comments may). Fails naming the lines.
check_library_texts() {
    say "Checking that no library error or message tells its reader to run tokenctl…"
    local found
    found=$(grep -rnE '"[^"]*tokenctl' --include='*.swift' \
        "$repo"/Sources/{Keyring,TokenAuth,TokenAuthKeyring,TokenAuthFileStore,TokenAuthSignIn,TokenAuthTesting,TokenAuthOpenCombine,TokenAuthOpenAPI} \
        | grep -vE '^[^:]+:[0-9]+:[[:space:]]*///?' \
        | grep -vF '+ "/tokenctl"' || true)  # the default accounts' directory, shared with tokenctl: a path, not advice
    if [ -n "$found" ]; then
        printf '%s\n' "$found" >&2
        say "These library texts name tokenctl: say what to do in the library's own terms."
        return 1
    fi
}

# shellcheck source=providers.sh
. "$(dirname "${BASH_SOURCE[0]}")/providers.sh"
