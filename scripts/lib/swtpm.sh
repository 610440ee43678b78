# Shared by scripts/test: a software TPM 2.0 (swtpm) on loopback TCP, for TokenAuthTPMTests. Source it; do not run it.
# Needs `say` from common.sh.
#
#   start_swtpm   # state and log in a new temporary directory; exports TPM2TOOLS_TCTI, and TSS2_LOG=all+none
#   stop_swtpm    # stops the swtpm start_swtpm started, waits for it to go, removes its directory; else does nothing
#
# start_swtpm picks two free ports P (commands) and P+1 (control) on 127.0.0.1, starts swtpm with
# `--flags not-need-init,startup-clear` (so that no client sends TPM2_Startup), and returns only once the TPM answers
# a TPM2_GetRandom through tpm2-tools; after a bound it fails, saying so and showing the end of swtpm's log.
#
# swtpm serves one TCP connection at a time: a second client waits until the first disconnects, with no timeout. The
# tests hold one TPM device at a time (SoftwareTPMTests, one serialized suite); nothing else here connects to it.
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
                export TPM2TOOLS_TCTI="swtpm:host=127.0.0.1,port=$port"
                export TSS2_LOG=all+none
                say "swtpm (pid $TOKENKEYRING_SWTPM_PID) answers at $TPM2TOOLS_TCTI"
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
        unset TOKENKEYRING_SWTPM_PID TPM2TOOLS_TCTI
    fi
    if [ -n "${TOKENKEYRING_SWTPM_DIR:-}" ]; then
        rm -rf "$TOKENKEYRING_SWTPM_DIR"
        unset TOKENKEYRING_SWTPM_DIR
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
