# shellcheck shell=bash
# Section 2e of flatpak-tests, which sources this file and defines pass, fail, in_app, app, repo and the Flatpak
# host: an app (Tests/SessionApp, which calls AuthSession.bootstrap()) killed with its whole sandbox instance while its
# refresh grant is held at the server keeps the session, because its refreshing process runs in an instance of its
# own, started through the Flatpak portal (the stand-in flatpak-portal.py). Without that portal (the control) the
# refresh runs in the app's instance and dies with it, and the server detects the reuse of its refresh token.

# Whether the server holds exactly N token requests now (the test server's /_admin/token-answers).
_bootstrap_held() { [ "$(curl -fsS "$_bootstrap_issuer/_admin/token-answers")" = "{\"held\":$1}" ]; }

# The supervisor of the sandbox instance that background job JOB runs (run_in_flatpak's subshell, or the job itself).
_bootstrap_supervisor_of() {
    local file pid
    for file in "$TOKENKEYRING_FLATPAK_HOST"/instances/*/supervisor; do
        pid=$(cat "$file" 2>/dev/null) || continue
        if [ "$pid" = "$1" ] || [ "$(ps -o ppid= -p "$pid" | tr -d ' ')" = "$1" ]; then
            printf '%s\n' "$pid"
            return 0
        fi
    done
    return 1
}

# Every process below PID, children first.
_bootstrap_descendants() {
    local child
    for child in $(pgrep -P "$1"); do
        _bootstrap_descendants "$child"
        printf '%s\n' "$child"
    done
}

# The app, killed with its instance while its refresh grant for item SERVICE (alice's, expired) is held at the server;
# then `tokenctl token` in the sandbox, once the grant has answered. The instance dies as a Flatpak instance does when
# its main process ends: every process in it at once (SIGKILL to the supervisor and every process below it, the
# bwraps, the app and what it started in the instance; bwrap's --die-with-parent alone left an instance running now
# and then). Prints "HELD GRANTS REUSE STATUS": HELD is "held" when the app's grant was held at the server as it was
# killed (otherwise the rest proves nothing).
_bootstrap_app_killed_at_the_grant() {
    local service=$1 issuer=$_bootstrap_issuer granted expired app_job supervisor status=0 held_grant=held
    granted=$(curl -fsS -d "grant_type=password&username=alice&password=wonderland&client_id=test-client" "$issuer/token")
    expired=$(/usr/bin/python3 -c 'import json, sys; t = json.load(sys.stdin); print(json.dumps({"version": 1,
        "access_token": t["access_token"], "refresh_token": t["refresh_token"], "expires_at": "2020-01-01T00:00:00Z",
        "token_endpoint": sys.argv[1] + "/token", "client_id": "test-client", "issuer": sys.argv[1]}))' "$issuer" <<<"$granted")
    printf '%s' "$expired" | in_app import --service "$service" --account alice >/dev/null 2>&1
    curl -fsS -X POST "$issuer/_admin/stats/reset" >/dev/null
    curl -fsS -X POST "$issuer/_admin/token-answers/hold" >/dev/null
    run_in_flatpak "$app" -- "$repo/.build/debug/session-app" "$issuer" "$issuer/resource" "$service" alice \
        >"$TOKENKEYRING_FLATPAK_HOST/$service.out" 2>&1 &
    app_job=$!
    _flatpak_wait 60 "the app's refresh grant at the server" _bootstrap_held 1 || held_grant=not-held
    if supervisor=$(_bootstrap_supervisor_of "$app_job"); then
        # shellcheck disable=SC2046  # one PID per word
        kill -KILL "$supervisor" $(_bootstrap_descendants "$supervisor") 2>/dev/null || true
    else
        held_grant=no-instance
        pkill -KILL -P "$app_job" || true
        kill -KILL "$app_job" 2>/dev/null || true
    fi
    wait "$app_job" 2>/dev/null || true
    curl -fsS -X POST "$issuer/_admin/token-answers/release" >/dev/null
    in_app token --service "$service" --account alice >/dev/null 2>"$TOKENKEYRING_FLATPAK_HOST/$service.err" || status=$?
    curl -fsS "$issuer/_admin/stats" | /usr/bin/python3 -c \
        'import json, sys; s = json.load(sys.stdin); print(sys.argv[1], s["refreshGrants"], s["reuseDetections"], sys.argv[2])' \
        "$held_grant" "$status"
    in_app delete --service "$service" --account alice >/dev/null 2>&1 || true
}

check_bootstrap_outlives_the_instance() {
    local server server_log="$TOKENKEYRING_FLATPAK_HOST/oauth-test-server-2e.out" outcome held_grant reuse status
    "$repo/.build/debug/oauth-test-server" >"$server_log" 2>/dev/null &
    server=$!
    TOKENKEYRING_FLATPAK_PIDS+=("$server")  # ended by stop_flatpak_host too, should a check below abort the script
    if ! _flatpak_wait 30 "the OAuth test server" grep -q '^listening on ' "$server_log"; then
        fail "the OAuth test server did not start"
        return 0
    fi
    _bootstrap_issuer=$(sed -n 's/^listening on //p' "$server_log" | head -n 1)
    outcome=$(_bootstrap_app_killed_at_the_grant portal.example.com)
    if [ "$outcome" = "held 1 0 0" ] \
        && grep -q "spawned .*$app .*session-app" "$TOKENKEYRING_FLATPAK_HOST/logs/flatpak-portal.log"; then
        pass "the app's instance killed at the grant: its refreshing process (a new instance, through the portal) stored the answer; 1 grant, 0 reuse, tokenctl token exit 0"
    else
        fail "the app's instance killed at the grant: held, grants, reuse, tokenctl's exit: $outcome ($(tail -n 3 "$TOKENKEYRING_FLATPAK_HOST/portal.example.com.err" | tr '\n' ' '))"
    fi
    # The control: without the portal flatpak-spawn fails, and the refresh runs in the app's instance.
    stop_flatpak_spawn_portal
    outcome=$(_bootstrap_app_killed_at_the_grant instance.example.com)
    read -r held_grant _ reuse status <<<"$outcome"
    if [ "$held_grant" = held ] && [ "$reuse" = 1 ] && [ "$status" != 0 ]; then
        pass "the control, without the Flatpak portal: the refresh died with the instance, the session is lost (reuse detected)"
    else
        fail "the control, without the Flatpak portal: held, grants, reuse, tokenctl's exit: $outcome"
    fi
    kill "$server" 2>/dev/null || true
}
