#!/usr/bin/env bash
# The SDK's flows through pushbus-device, a simulated phone, from the shell: each step checks the
# JSON line it prints and its exit status. Environment (set by DeviceCLITests): DEVICE (the
# executable), SERVER, CHANNEL, CA, APP_KEY, STATE, PUSHCTL, ENDPOINT, DATA_DIR.
set -u
fail() { echo "FAILED: $*"; exit 1; }
phone() { "$DEVICE" --server "$SERVER" --channel "$CHANNEL" --ca-file "$CA" --app-key "$APP_KEY" --state "$STATE" "$@"; }
field() { python3 -c 'import json,sys; v=json.loads(sys.stdin.readline()); print(json.dumps(v.get(sys.argv[1])))' "$1"; }

out=$(phone register) || fail "register: $out"
rid=$(echo "$out" | field registration_id | tr -d '"')
[ ${#rid} -eq 20 ] || fail "register gave no registration ID: $out"

out=$(phone tags add news sports) && [ "$(echo "$out" | field code)" = 0 ] || fail "tags add: $out"
out=$(phone tags get) && [ "$(echo "$out" | field tags)" = '["news", "sports"]' ] || fail "tags get: $out"
out=$(phone tags valid news) && [ "$(echo "$out" | field is_bind)" = true ] || fail "tags valid: $out"
out=$(phone tags add "bad tag!"); status=$?
[ $status -eq 1 ] && [ "$(echo "$out" | field code)" = 6005 ] || fail "an invalid tag: status $status, $out"
out=$(phone alias set alice) && [ "$(echo "$out" | field alias)" = '"alice"' ] || fail "alias set: $out"
out=$(phone alias get) && [ "$(echo "$out" | field alias)" = '"alice"' ] || fail "alias get: $out"
out=$(phone badge set 3) && [ "$(echo "$out" | field code)" = 0 ] || fail "badge set: $out"
# A command answered leaves the journal before its answer is printed: the next launch sends it
# again only when the last one ended before the answer (here, never).
for n in 1 2 3 4 5 6; do
    out=$(phone badge set $n) && [ "$(echo "$out" | field code)" = 0 ] || fail "badge set $n: $out"
    left=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["journal"]))' "$STATE/pushbus-device.json")
    [ "$left" = 0 ] || fail "badge set $n answered and exited, but $left command(s) stayed in the journal for the next launch"
done
out=$(phone badge set 3) && [ "$(echo "$out" | field code)" = 0 ] || fail "badge set: $out"
out=$(phone local add wake 3600 wake up) && [ "$(echo "$out" | field identifier)" = '"wake"' ] || fail "local add: $out"
out=$(phone local find wake) && [ "$(echo "$out" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["requests"]))')" = 1 ] \
    || fail "local find: $out"
out=$(phone local remove wake) && [ "$(echo "$out" | field code)" = 0 ] || fail "local remove: $out"
out=$(phone page enter home) && [ "$(echo "$out" | field code)" = 0 ] || fail "page enter: $out"
out=$(phone channel subscribe scores) && [ "$(echo "$out" | field code)" = 0 ] || fail "channel subscribe: $out"
out=$(phone channel status scores) && [ "$(echo "$out" | field subscribed)" = true ] || fail "channel status: $out"
out=$(phone channel unsubscribe scores) && [ "$(echo "$out" | field code)" = 0 ] || fail "channel unsubscribe: $out"
out=$(phone channel status scores) && [ "$(echo "$out" | field subscribed)" = false ] || fail "channel status after: $out"

# A live message: the phone listens while the app's server pushes one.
phone listen --count 1 --timeout 30 >"$STATE.listen" 2>&1 &
listener=$!
sleep 2
"$PUSHCTL" --endpoint "$ENDPOINT" --data-dir "$DATA_DIR" call push.send \
    "{\"app_key\":\"$APP_KEY\",\"to\":{\"registration_id\":[\"$rid\"]},\"body\":{\"platform\":\"all\",\"message\":{\"msg_content\":\"hello phone\"}}}" \
    >/dev/null || fail "push.send"
wait $listener || fail "listen: $(cat "$STATE.listen")"
grep -q '"msg_content":"hello phone"' "$STATE.listen" || fail "the message: $(cat "$STATE.listen")"

# Another launch of the phone: the same registration.
out=$(phone register) && [ "$(echo "$out" | field registration_id | tr -d '"')" = "$rid" ] || fail "register again: $out"
echo "OK $rid"
