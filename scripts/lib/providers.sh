# Starts and stops one Secret Service provider — gnome-keyring, KeePassXC or KWallet — headless on a private
# session bus. Sourced by scripts/test and scripts/lib/private-provider; do not run it.
#
# Run inside `dbus-run-session --config-file="$repo/scripts/lib/private-bus.conf"`: that bus has no service
# directories, so gnome-keyring is never D-Bus-activated in place of the provider under test.
#
#   start_private_provider gnome-keyring|keepassxc|kwallet
#   check_no_test_items                  # fails, listing them, if the tests left items behind
#   stop_private_provider
#
# Exports TOKENKEYRING_PROVIDER (the tests read it) and, for KeePassXC, TOKENKEYRING_KEEPASSXC_DATABASE.
# Every provider is unlocked with TOKENKEYRING_PROVIDER_PASSWORD, a throwaway that only protects test data;
# it travels through stdin, never argv. Options, as environment variables:
#   TOKENKEYRING_KEEPASSXC_UNLOCK_BEFORE_SEARCH=true   KeePassXC's own default (the tests' default is false)
#   TOKENKEYRING_KWALLET_WITHOUT_CRYPTO_PLUGIN=1       hide libqca's plugins from kwalletd5 (needs root: unshare -m)

TOKENKEYRING_PROVIDER_PASSWORD=tokenkeyring-test
TOKENKEYRING_PROVIDER_PIDS=()
_provider_admin() { /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/provider-admin.py" "$@"; }

# Waits until NAME has an owner on the session bus; fails with a message after SECONDS.
_wait_for_bus_name() {
    local name=$1 seconds=$2 _
    for _ in $(seq 1 $((seconds * 10))); do
        if gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.NameHasOwner "$name" 2>/dev/null | grep -q true; then
            return 0
        fi
        sleep 0.1
    done
    say "$name did not appear on the session bus within $seconds s."
    return 1
}

start_private_provider() {
    export TOKENKEYRING_PROVIDER=$1
    case "$1" in
        gnome-keyring) start_private_keyring ;;
        keepassxc) _start_keepassxc ;;
        kwallet) _start_kwallet ;;
        *) say "Unknown provider $1 (gnome-keyring, keepassxc or kwallet)."; return 64 ;;
    esac
}

# A new database whose root group is exposed to the Secret Service. keepassxc-cli cannot set the exposed
# group (Meta/CustomData FDO_SECRETS_EXPOSED_GROUP), but it imports a KeePass XML file that carries it.
_start_keepassxc() {
    private_home
    local group_uuid group_base64 database="$TOKENKEYRING_SESSION_DIR/tokenkeyring.kdbx"
    group_uuid=$(cat /proc/sys/kernel/random/uuid)
    group_base64=$(/usr/bin/python3 -c 'import base64, sys, uuid; print(base64.b64encode(uuid.UUID(sys.argv[1]).bytes).decode())' "$group_uuid")
    cat >"$TOKENKEYRING_SESSION_DIR/database.xml" <<XML
<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<KeePassFile>
 <Meta>
  <Generator>TokenKeyring scripts/lib/providers.sh</Generator>
  <DatabaseName>tokenkeyring</DatabaseName>
  <CustomData><Item><Key>FDO_SECRETS_EXPOSED_GROUP</Key><Value>{$group_uuid}</Value></Item></CustomData>
 </Meta>
 <Root><Group><UUID>$group_base64</UUID><Name>Root</Name></Group></Root>
</KeePassFile>
XML
    printf '%s\n%s\n' "$TOKENKEYRING_PROVIDER_PASSWORD" "$TOKENKEYRING_PROVIDER_PASSWORD" \
        | keepassxc-cli import -q -p -t 100 "$TOKENKEYRING_SESSION_DIR/database.xml" "$database" \
        >"$TOKENKEYRING_SESSION_DIR/keepassxc-cli.log" 2>&1 || { cat "$TOKENKEYRING_SESSION_DIR/keepassxc-cli.log" >&2; return 1; }
    mkdir -p "$XDG_CONFIG_HOME/keepassxc"
    # AutoSaveAfterEveryChange=false: KeePassXC (2.7.4, and its sources as of 2024) writes the database on a pooled
    # thread after each change while its main loop goes on answering D-Bus; a change that arrives during that
    # write can crash it (SIGSEGV in QUuid::toRfc4122 on the writer thread, caught under gdb). The tests need no file
    # on disk, and KeyringProvider's quirks tell users about it.
    cat >"$XDG_CONFIG_HOME/keepassxc/keepassxc.ini" <<INI
[General]
ConfigVersion=2
SingleInstance=false
RememberLastDatabases=false
AutoSaveAfterEveryChange=false
[GUI]
ShowTrayIcon=false
CheckForUpdates=false
[FdoSecrets]
Enabled=true
ShowNotification=false
ConfirmAccessItem=false
ConfirmDeleteItem=false
UnlockBeforeSearch=${TOKENKEYRING_KEEPASSXC_UNLOCK_BEFORE_SEARCH:-false}
INI
    export TOKENKEYRING_KEEPASSXC_DATABASE="$database"
    printf '%s' "$TOKENKEYRING_PROVIDER_PASSWORD" \
        | QT_QPA_PLATFORM=offscreen keepassxc --pw-stdin "$database" >"$TOKENKEYRING_SESSION_DIR/keepassxc.log" 2>&1 &
    TOKENKEYRING_PROVIDER_PIDS+=($!)
    # The name appears before the database is open; a CreateItem in that gap waits for a dialog forever.
    _wait_for_bus_name org.freedesktop.secrets 30 && _provider_admin keepassxc wait-unlocked 30
}

# kwalletd5 with its Secret Service API on, and the wallet opened the way pam_kwallet opens it at login.
_start_kwallet() {
    private_home
    cat >"$XDG_CONFIG_HOME/kwalletrc" <<INI
[Wallet]
Enabled=true
First Use=false
Prompt on Open=false
Default Wallet=kdewallet
Close When Idle=false
Use One Wallet=true
[org.freedesktop.secrets]
apiEnabled=true
INI
    # kwalletd5 exports only the wallets that exist when it starts: create the wallet, then start it again.
    _run_kwalletd
    _wait_for_bus_name org.kde.kwalletd5 30 || return 1
    printf '%s' "$TOKENKEYRING_PROVIDER_PASSWORD" | _provider_admin kwallet pam-open || return 1
    _stop_pids
    _run_kwalletd
    _wait_for_bus_name org.freedesktop.secrets 30 || return 1
    # After pamOpen the collection reports Locked=true until a client calls Unlock (no dialog then).
    printf '%s' "$TOKENKEYRING_PROVIDER_PASSWORD" | _provider_admin kwallet unlock
}

_run_kwalletd() {
    if [ "${TOKENKEYRING_KWALLET_WITHOUT_CRYPTO_PLUGIN:-}" = 1 ]; then
        # libqca finds its plugins in this directory only; an empty directory mounted over it, in a mount
        # namespace of kwalletd5's own, is a machine without libqca-qt5-2-plugins.
        local plugins=/usr/lib/x86_64-linux-gnu/qca-qt5/crypto
        mkdir -p "$TOKENKEYRING_SESSION_DIR/no-plugins"
        QT_QPA_PLATFORM=offscreen unshare -m sh -c \
            'mount --bind "$1" "$2" && exec kwalletd5' sh "$TOKENKEYRING_SESSION_DIR/no-plugins" "$plugins" \
            >>"$TOKENKEYRING_SESSION_DIR/kwalletd5.log" 2>&1 &
    else
        QT_QPA_PLATFORM=offscreen kwalletd5 >>"$TOKENKEYRING_SESSION_DIR/kwalletd5.log" 2>&1 &
    fi
    TOKENKEYRING_PROVIDER_PIDS+=($!)
}

# SIGTERM, then SIGKILL after 5 s: KeePassXC may hold its exit for a save dialog no one can answer headless.
_stop_pids() {
    local pid _
    for pid in "${TOKENKEYRING_PROVIDER_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        # Waited for, so that a restarted provider never races the old one for the bus name.
        wait "$pid" 2>/dev/null || true
    done
    TOKENKEYRING_PROVIDER_PIDS=()
}

# Every test deletes the items and collections it made (service `tokenkeyring-test.…`, TestKeyring.uniqueService;
# TestKeyring.withCollection): fails, listing them, when some are still there.
check_no_test_items() {
    local left
    left=$(_provider_admin "$TOKENKEYRING_PROVIDER" items tokenkeyring-test.) || return 1
    if [ -n "$left" ]; then
        printf 'The tests left %s item(s) or collection(s) behind in %s:\n%s\n' "$(printf '%s\n' "$left" | wc -l)" \
            "$TOKENKEYRING_PROVIDER" "$left" >&2
        return 1
    fi
}

stop_private_provider() {
    _stop_pids
    stop_private_keyring
}
