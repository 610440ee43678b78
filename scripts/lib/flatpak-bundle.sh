# shellcheck shell=bash source-path=SCRIPTDIR
# What the simulated Flatpak sandbox of flatpak-sandbox.sh needs: the Debian packages, and libsecret >= 0.21.4
# built from trixie's source package into the prefix /app, as a Flatpak manifest bundles a module. Sourced by
# flatpak-sandbox.sh (which sets TOKENKEYRING_FLATPAK_BUILD); do not run it.
#
#   ensure_flatpak_packages      # apt-get install --no-install-recommends whatever is missing (root or sudo)
#   ensure_bundled_libsecret     # builds into $TOKENKEYRING_FLATPAK_BUILD/app once; later calls return at once
#   ensure_libsecret_probe       # builds libsecret-probe.c against it (when newer) and prints the binary's path
#
# It also writes $TOKENKEYRING_FLATPAK_BUILD/pkgconfig, the same .pc files with the host path as their prefix,
# for building a probe on the host against the bundled libsecret:
#   PKG_CONFIG_PATH=$TOKENKEYRING_FLATPAK_BUILD/pkgconfig gcc probe.c $(pkg-config --cflags --libs libsecret-1)

# libsecret's build dependencies (Debian's Build-Depends less docs, introspection, vala and test tools) and gcc for
# the probe; the sandbox's tools; the host side: the portal (without its Recommends, a GTK backend and more),
# gnome-keyring, which ships the Secret portal's backend, and xdg-permission-store (in xdg-desktop-portal) for
# OpenURI; python3-dbus and python3-gi for secret-portal-backend.py and flatpak-portal.py; flatpak-xdg-utils for the
# runtime's flatpak-spawn (Debian's is in /usr/libexec/flatpak-xdg-utils).
TOKENKEYRING_FLATPAK_APT_PACKAGES=(bubblewrap xdg-dbus-proxy xdg-desktop-portal gnome-keyring libsecret-tools dbus
    libglib2.0-bin meson ninja-build pkg-config gcc libc6-dev libglib2.0-dev libgcrypt20-dev xz-utils python3-dbus
    python3-gi flatpak-xdg-utils)
# GNOME/libsecret issue 58 (a missed portal answer leaves the call waiting forever) is fixed from 0.21.4 on.
TOKENKEYRING_LIBSECRET_MINIMUM=0.21.4
ensure_flatpak_packages() { install_missing_apt_packages --no-install-recommends "${TOKENKEYRING_FLATPAK_APT_PACKAGES[@]}"; }

# The Debian mirror this machine installs from (its deb.debian.org-style URI), for trixie's source index.
_flatpak_debian_mirror() {
    if [ -n "${TOKENKEYRING_DEBIAN_MIRROR:-}" ]; then printf '%s\n' "$TOKENKEYRING_DEBIAN_MIRROR"; return; fi
    local uri
    uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
        | grep -v '^[[:space:]]*#' | grep -oE 'https?://[^ ]*/debian/?( |$)' | head -n 1 | tr -d ' ') || true
    printf '%s\n' "${uri:-http://deb.debian.org/debian}"
}

# Brings libsecret's upstream tarball (the .orig.tar.xz of Debian trixie's source package) into
# $TOKENKEYRING_FLATPAK_BUILD/src and prints its path. apt uses a sources list, lists and cache of its own there:
# the machine's own sources stay as they are. apt checks the tarball against trixie's signed index, and so does
# this function: mirrors that lack the .dsc or the Debian patches still serve the tarball, which is all it needs.
_flatpak_fetch_libsecret_source() {
    local apt_dir="$TOKENKEYRING_FLATPAK_BUILD/apt" src="$TOKENKEYRING_FLATPAK_BUILD/src"
    mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$src"
    printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s trixie main\n' \
        "$(_flatpak_debian_mirror)" >"$apt_dir/sources.list"
    local apt=(apt-get -q -o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=-
        -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
    local line uri name sha version
    line=$("${apt[@]}" --print-uris source libsecret 2>/dev/null | grep -E "\.orig\.tar\.xz' " || true)
    if [ -z "$line" ]; then
        "${apt[@]}" update -qq >&2 || { say "apt-get update of trixie's source index failed."; return 1; }
        line=$("${apt[@]}" --print-uris source libsecret 2>/dev/null | grep -E "\.orig\.tar\.xz' " || true)
    fi
    read -r uri name _ sha <<<"$line"
    sha=${sha#SHA256:}
    version=${name#libsecret_}
    version=${version%.orig.tar.xz}
    if [ -z "$uri" ] || [ ${#sha} -ne 64 ]; then
        say "trixie's source index names no libsecret tarball with a SHA-256 (apt-get --print-uris said: '${line}')."
        return 1
    fi
    if ! dpkg --compare-versions "$version" ge "$TOKENKEYRING_LIBSECRET_MINIMUM"; then
        say "trixie has libsecret $version, older than $TOKENKEYRING_LIBSECRET_MINIMUM: it would not do here."
        return 1
    fi
    if ! printf '%s  %s\n' "$sha" "$src/$name" | sha256sum --check --status 2>/dev/null; then
        say "Downloading $name (trixie's source package libsecret)…"
        # Exits non-zero when the mirror lacks the .dsc or the Debian tarball; the check below decides.
        (cd "$src" && "${apt[@]}" source --download-only libsecret >"$apt_dir/source.log" 2>&1) || true
        if ! printf '%s  %s\n' "$sha" "$src/$name" | sha256sum --check --status 2>/dev/null; then
            cat "$apt_dir/source.log" >&2
            say "Could not download $name with the SHA-256 of trixie's index ($sha)."
            return 1
        fi
    fi
    printf '%s\n' "$src/$name"
}

# Builds libsecret (>= 0.21.4, from trixie's source package) with meson into the prefix /app, the way a Flatpak
# manifest bundles a module, and installs it into $TOKENKEYRING_FLATPAK_BUILD/app. Cached: does nothing when that
# build is already there with the same tarball and options.
ensure_bundled_libsecret() {
    local options=(--prefix=/app --libdir=lib --buildtype=release -Dcrypto=libgcrypt -Dintrospection=false
        -Dvapi=false -Dgtk_doc=false -Dmanpage=false -Dbash_completion=disabled)
    local app="$TOKENKEYRING_FLATPAK_BUILD/app" tarball
    # The stamp names the tarball and the options; the index is asked again only when the stamp is missing.
    if [ -x "$app/bin/secret-tool" ] && [ -f "$app/.stamp" ]; then
        read -r tarball _ <"$app/.stamp"
        [ -f "$tarball" ] && [ "$(cat "$app/.stamp")" = "$tarball ${options[*]}" ] && return 0
    fi
    tarball=$(_flatpak_fetch_libsecret_source) || return 1
    local name source build stage
    name=$(basename "$tarball" .orig.tar.xz)
    source="$TOKENKEYRING_FLATPAK_BUILD/${name/_/-}"
    build="$TOKENKEYRING_FLATPAK_BUILD/build-$name"
    stage="$TOKENKEYRING_FLATPAK_BUILD/stage"
    say "Building $name into /app ($app)…"
    rm -rf "$source" "$build" "$stage"
    tar -xJf "$tarball" -C "$TOKENKEYRING_FLATPAK_BUILD"
    [ -d "$source" ] || { say "$tarball did not unpack into $source."; return 1; }
    {
        meson setup "$build" "$source" "${options[@]}" &&
            ninja -C "$build" &&
            DESTDIR="$stage" meson install -C "$build" --no-rebuild
    } >"$TOKENKEYRING_FLATPAK_BUILD/build.log" 2>&1 || {
        tail -n 40 "$TOKENKEYRING_FLATPAK_BUILD/build.log" >&2
        say "Building $name failed; the whole log: $TOKENKEYRING_FLATPAK_BUILD/build.log"
        return 1
    }
    rm -rf "$app"
    mv "$stage/app" "$app"
    rm -rf "$stage"
    # For building probes on the host against it: the same .pc files with the host path as their prefix.
    mkdir -p "$TOKENKEYRING_FLATPAK_BUILD/pkgconfig"
    local pc
    for pc in "$app"/lib/pkgconfig/*.pc; do
        sed "s|^prefix=/app\$|prefix=$app|" "$pc" >"$TOKENKEYRING_FLATPAK_BUILD/pkgconfig/$(basename "$pc")"
    done
    printf '%s\n' "$tarball ${options[*]}" >"$app/.stamp"
    say "Bundled libsecret: $app ($(PKG_CONFIG_PATH="$app/lib/pkgconfig" pkg-config --modversion libsecret-1))."
}

# Builds scripts/lib/libsecret-probe.c against the bundled libsecret's headers into $TOKENKEYRING_FLATPAK_BUILD/probe
# (again only when the source is newer) and prints its path. In the sandbox it runs with /app's libsecret, or with
# Debian's under --libsecret system (the APIs it calls are in both).
ensure_libsecret_probe() {
    local source probe="$TOKENKEYRING_FLATPAK_BUILD/probe"
    source="$(dirname "${BASH_SOURCE[0]}")/libsecret-probe.c"
    if [ ! -x "$probe" ] || [ "$source" -nt "$probe" ]; then
        ensure_bundled_libsecret || return 1
        # shellcheck disable=SC2046  # pkg-config's flags are words
        gcc -Wall -Wextra -O1 -o "$probe" "$source" \
            $(PKG_CONFIG_PATH="$TOKENKEYRING_FLATPAK_BUILD/pkgconfig" pkg-config --cflags --libs libsecret-1) -ldl >&2 ||
            { say "Building $source failed."; return 1; }
    fi
    printf '%s\n' "$probe"
}
