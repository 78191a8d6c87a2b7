#!/usr/bin/env bash
# The REST API benchmark of docs/benchmarks.md ("api"): in one run on this machine, the same calls
# made through `api` over HTTP/1.1 keep-alive connections (h2load --h1) and directly over MDP
# (pushbus-replay), with the same number of requests in flight, so the HTTP layer's cost is a ratio:
#   - GET /v4/devices/{rid}: device.get, tags.get and alias.get;
#   - POST /v4/push to one registration ID: push.send.
# The stack is the release build launched by pushbus; the device has no APNs token, so a push is
# accepted, stored and expanded but nothing is sent (no sender is part of either figure).
# Usage: bench-api.sh [REQUESTS] [IN_FLIGHT] (defaults 10000 8)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/.build/release
requests=${1:-10000}
inflight=${2:-8}
base=18655
work=$(mktemp -d /var/tmp/bench-api.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port $base" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

PUSHBUS_APP_QUOTA=0 "$bin/pushbus" --base-port "$base" --data-dir "$work/data" \
    --services registration,tagging,badge,analytics,push --log-level warning >"$work/stack.log" 2>&1 &
for _ in $(seq 1 600); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.1; done
grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }

pushctl() { "$bin/pushctl" --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" --json "$@"; }
field() { python3 -c "import json,sys; v=json.load(sys.stdin); print(eval(sys.argv[1], {}, {'v': v}))" "$1"; }
secret=$(pushctl call app.create '{"name":"bench","app_key":"benchapp"}' | field "v['master_secret']")
rid=$(pushctl call device.register '{"app_key":"benchapp","platform":"ios","device_id":"bench-1"}' | field "v['registration_id']")
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey.p8" 2>/dev/null
p8=$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$work/AuthKey.p8")
pushctl call apns.credentials "{\"app_key\":\"benchapp\",\"team_id\":\"TEAM123456\",\"key_id\":\"KEY1234567\",\"bundle_id\":\"com.example.bench\",\"p8\":$p8}" >/dev/null
pushctl call tags.add "{\"app_key\":\"benchapp\",\"registration_id\":\"$rid\",\"tags\":[\"bench\"]}" >/dev/null
push='{"to":{"registration_id":["'"$rid"'"]},"body":{"platform":"ios","notification":{"ios":{"alert":"Hello"}}}}'
printf '%s' "$push" >"$work/push.json"
for _ in $(seq 1 100); do
    curl_status=$(python3 - "$base" "$secret" "$rid" <<'PY'
import base64, http.client, sys
port, secret, rid = int(sys.argv[1]) + 4, sys.argv[2], sys.argv[3]
c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
try:
    c.request("GET", f"/v4/devices/{rid}", headers={"Authorization": "Basic " + base64.b64encode(f"benchapp:{secret}".encode()).decode()})
    print(c.getresponse().status)
except OSError:
    print(0)
PY
)
    [ "$curl_status" = 200 ] && break
    sleep 0.1
done

# The same calls as MDP recordings, replayed with as many requests in flight as h2load keeps.
python3 - "$work" "$rid" "$requests" "$push" <<'PY'
import json, sys
work, rid, count, push = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
line = lambda command, payload: json.dumps({"t": 0, "service": "device", "command": command, "payload": payload}, separators=(",", ":")) + "\n"
device = {"app_key": "benchapp", "registration_id": rid}
with open(f"{work}/get.jsonl", "w") as out:
    for _ in range(count):
        for command in ["device.get", "tags.get", "alias.get"]:
            out.write(line(command, device))
with open(f"{work}/push.jsonl", "w") as out:
    for _ in range(count):
        out.write(line("push.send", dict(push, app_key="benchapp")))
PY

auth="Authorization: Basic $(printf 'benchapp:%s' "$secret" | base64 -w0)"
# h2load's rate, once every request was answered 2xx (else the run stops with what h2load said).
h2() {
    h2load --h1 -n "$requests" -c "$inflight" -t 1 -H "$auth" "$@" >"$work/h2load.txt" 2>&1
    grep -q "^status codes: $requests 2xx" "$work/h2load.txt" || { cat "$work/h2load.txt" >&2; exit 1; }
    awk '/^finished in/ {gsub(",", "", $4); print $4}' "$work/h2load.txt"
}
# The replay's rate, once every command was answered code 0.
replay() {
    "$bin/pushbus-replay" run --file "$1" --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" --speed max \
        --window "$inflight" --connections "$inflight" --quiet --json >"$work/replay.json"
    field "v['codes'] == {'0': v['commands']} or exit(1)" <"$work/replay.json" >/dev/null || { cat "$work/replay.json" >&2; exit 1; }
    field "v['commands_per_second']" <"$work/replay.json"
}
# Each push run leaves the push service expanding what it accepted; the next run waits until it is idle.
wait_idle() {
    local pid ticks last=-1
    pid=$(pgrep -f -- "push --endpoint tcp://127.0.0.1:$base " | head -1)
    for _ in $(seq 1 600); do
        ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat")
        [ "$last" -ge 0 ] && [ $((ticks - last)) -le 2 ] && return 0
        last=$ticks
        sleep 1
    done
}
http_get=$(h2 "http://127.0.0.1:$((base + 4))/v4/devices/$rid")
mdp_get=$(replay "$work/get.jsonl")
http_push=$(h2 -d "$work/push.json" "http://127.0.0.1:$((base + 4))/v4/push")
wait_idle
mdp_push=$(replay "$work/push.jsonl")

python3 - "$http_get" "$mdp_get" "$http_push" "$mdp_push" "$requests" "$inflight" <<'PY'
import sys
http_get, mdp_get, http_push, mdp_push = (float(x) for x in sys.argv[1:5])
requests, inflight = int(sys.argv[5]), int(sys.argv[6])
mdp_get /= 3   # three commands make one GET /v4/devices/{rid}
print(f"| {requests:,} calls, {inflight} in flight | over HTTP (api, keep-alive) | directly over MDP | HTTP / MDP |")
print("| --- | --- | --- | --- |")
print(f"| GET /v4/devices/{{rid}} (device.get + tags.get + alias.get) | {http_get:,.0f} /s | {mdp_get:,.0f} /s | {http_get / mdp_get:.2f} |")
print(f"| POST /v4/push, one device (push.send) | {http_push:,.0f} /s | {mdp_push:,.0f} /s | {http_push / mdp_push:.2f} |")
PY
