# Shared by scripts/test: a software TPM 2.0 (swtpm) on loopback TCP, and the resource manager in front of it that a
# desktop has in the kernel (/dev/tpmrm0), for the TPM's tests. Source it; do not run it. Needs `say` from common.sh.
#
#   start_swtpm         # state and log in a new temporary directory; exports TOKENKEYRING_SWTPM_TCTI (swtpm's own
#                       # TCTI) and TSS2_LOG=all+none
#   stop_swtpm          # stops the swtpm start_swtpm started, waits for it to go, removes its directory; else nothing
#   start_tpm_broker    # inside a D-Bus session, with TOKENKEYRING_SWTPM_TCTI set: tpm2-abrmd on that session bus,
#                       # the only client of swtpm; exports TPM2TOOLS_TCTI=tabrmd:bus_type=session
#   stop_tpm_broker     # stops it; else does nothing
#
# start_swtpm picks two free ports P (commands) and P+1 (control) on 127.0.0.1, starts swtpm with
# `--flags not-need-init,startup-clear` (so that no client sends TPM2_Startup), and returns only once the TPM answers
# a TPM2_GetRandom through tpm2-tools; after a bound it fails, saying so and showing the end of swtpm's log.
#
# swtpm serves one TCP connection at a time: a second client waits until the first disconnects, with no timeout, as a
# raw /dev/tpm0 would. A desktop's processes share the TPM through the kernel's resource manager (/dev/tpmrm0), each
# with transient objects of its own; tpm2-abrmd (tpm2-abrmd, libtss2-tcti-tabrmd0) is that resource manager in user
# space, so the tests' processes (the test runner, tokenctl, an app) use the TPM at once as they would on a desktop.
# One broker at a time: it keeps swtpm's one connection while it runs.
# TSS2_LOG=all+none keeps tpm2-tss from writing a WARNING or ERROR line to stderr for every failed call, the failures
# the tests expect included (it is read once per process).

# How many port pairs to try, and how long one swtpm may take to answer, in tenths of a second.
TOKENKEYRING_SWTPM_PORT_TRIES=10
TOKENKEYRING_SWTPM_WAIT_TENTHS=100

start_swtpm() {
    local tool
    for tool in swtpm tpm2_getrandom; do
        if ! command -v "$tool" >/dev/null; then
            say "start_swtpm: $tool is missing: apt-get install swtpm swtpm-tools tpm2-tools"
            return 1
        fi
    done
    TOKENKEYRING_SWTPM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/tokenkeyring-swtpm.XXXXXX")
    export TOKENKEYRING_SWTPM_DIR
    local dir=$TOKENKEYRING_SWTPM_DIR try port tenths
    mkdir -p "$dir/state"
    for ((try = 1; try <= TOKENKEYRING_SWTPM_PORT_TRIES; try++)); do
        port=$((20000 + RANDOM % 40000))
        _swtpm_port_free "$port" && _swtpm_port_free "$((port + 1))" || continue
        rm -f "$dir/swtpm.pid"
        swtpm socket --tpm2 \
            --tpmstate "dir=$dir/state" \
            --server "type=tcp,port=$port,bindaddr=127.0.0.1" \
            --ctrl "type=tcp,port=$((port + 1)),bindaddr=127.0.0.1" \
            --flags not-need-init,startup-clear \
            --log "file=$dir/swtpm.log" \
            --pid "file=$dir/swtpm.pid" \
            --daemon || continue
        for ((tenths = 0; tenths < TOKENKEYRING_SWTPM_WAIT_TENTHS; tenths++)); do
            if _swtpm_answers "$port"; then
                TOKENKEYRING_SWTPM_PID=$(cat "$dir/swtpm.pid")
                export TOKENKEYRING_SWTPM_TCTI="swtpm:host=127.0.0.1,port=$port"
                export TSS2_LOG=all+none
                say "swtpm (pid $TOKENKEYRING_SWTPM_PID) answers at $TOKENKEYRING_SWTPM_TCTI"
                return 0
            fi
            sleep 0.1
        done
        # It started but never answered (or lost a race for the port): stop it, and try another pair.
        [ -s "$dir/swtpm.pid" ] && _swtpm_stop_process "$(cat "$dir/swtpm.pid")"
    done
    say "start_swtpm: no swtpm answered after $TOKENKEYRING_SWTPM_PORT_TRIES tries; the end of its log:"
    tail -n 20 "$dir/swtpm.log" >&2 2>/dev/null || true
    rm -rf "$dir"
    unset TOKENKEYRING_SWTPM_DIR
    return 1
}

stop_swtpm() {
    if [ -n "${TOKENKEYRING_SWTPM_PID:-}" ]; then
        _swtpm_stop_process "$TOKENKEYRING_SWTPM_PID"
        unset TOKENKEYRING_SWTPM_PID TOKENKEYRING_SWTPM_TCTI
    fi
    if [ -n "${TOKENKEYRING_SWTPM_DIR:-}" ]; then
        rm -rf "$TOKENKEYRING_SWTPM_DIR"
        unset TOKENKEYRING_SWTPM_DIR
    fi
    return 0
}

start_tpm_broker() {
    if [ -z "${TOKENKEYRING_SWTPM_TCTI:-}" ]; then
        say "start_tpm_broker: no swtpm (start_swtpm first)"
        return 1
    fi
    if ! command -v tpm2-abrmd >/dev/null; then
        say "start_tpm_broker: tpm2-abrmd is missing: apt-get install tpm2-abrmd libtss2-tcti-tabrmd0"
        return 1
    fi
    local tenths
    # --allow-root: CI runs as root. --flush-all: nothing a broker before it left loaded.
    tpm2-abrmd --session --allow-root --flush-all --tcti="$TOKENKEYRING_SWTPM_TCTI" --logger=stdout \
        >"${TOKENKEYRING_SWTPM_DIR:-/tmp}/tpm2-abrmd.log" 2>&1 &
    TOKENKEYRING_TPM_BROKER_PID=$!
    for ((tenths = 0; tenths < TOKENKEYRING_SWTPM_WAIT_TENTHS; tenths++)); do
        if tpm2_getrandom -T tabrmd:bus_type=session 8 >/dev/null 2>&1; then
            export TPM2TOOLS_TCTI=tabrmd:bus_type=session
            say "tpm2-abrmd (pid $TOKENKEYRING_TPM_BROKER_PID) shares swtpm at $TPM2TOOLS_TCTI"
            return 0
        fi
        kill -0 "$TOKENKEYRING_TPM_BROKER_PID" 2>/dev/null || break
        sleep 0.1
    done
    say "start_tpm_broker: tpm2-abrmd did not answer; the end of its log:"
    tail -n 20 "${TOKENKEYRING_SWTPM_DIR:-/tmp}/tpm2-abrmd.log" >&2 2>/dev/null || true
    stop_tpm_broker
    return 1
}

stop_tpm_broker() {
    if [ -n "${TOKENKEYRING_TPM_BROKER_PID:-}" ]; then
        _swtpm_stop_process "$TOKENKEYRING_TPM_BROKER_PID"
        wait "$TOKENKEYRING_TPM_BROKER_PID" 2>/dev/null || true
        unset TOKENKEYRING_TPM_BROKER_PID TPM2TOOLS_TCTI
    fi
    return 0
}

# True if nothing listens on 127.0.0.1:$1 (the connection is refused).
_swtpm_port_free() {
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# True once the TPM at 127.0.0.1:$1 answers a command.
_swtpm_answers() {
    tpm2_getrandom -T "swtpm:host=127.0.0.1,port=$1" 8 >/dev/null 2>&1
}

# SIGTERM to process $1, then up to 5 s for it to exit, then SIGKILL.
_swtpm_stop_process() {
    local pid=$1 tenths
    kill "$pid" 2>/dev/null || return 0
    for ((tenths = 0; tenths < 50; tenths++)); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
}
