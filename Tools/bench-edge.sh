#!/usr/bin/env bash
# The device edge benchmark of docs/benchmarks.md ("edge"): in one run on this machine, the tagging
# mix replayed through the device edge (POST /v1/device/<command> on api, CONNECTIONS HTTP/1.1
# keep-alive connections, one request at a time each, as many phones would) and the same mix straight
# over ZeroMQ (MDP to the gateway, the same number of requests in flight), alternating, two rounds
# each: commands/s, p50/p99, and the api's CPU per command. Target: the edge at >= 0.5 of the ZeroMQ rate.
# The devices are registered first over MDP; the mix is signed by each device (pushbus-replay holds
# server.key, as a load tester on the operator's side does). The api's device limits are opened up:
# the load comes from one address over a few connections, standing for many phones.
# Usage: bench-edge.sh [DEVICES] [COMMANDS] [CONNECTIONS] (defaults 10000 40000 64)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PUSHBUS_BIN_DIR:-$PWD/.build/release}
devices=${1:-10000}
commands=${2:-40000}
connections=${3:-64}
base=18755
work=$(mktemp -d /var/tmp/bench-edge.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port $base" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

PUSHBUS_APP_QUOTA=0 PUSHBUS_REGISTER_RATE=1000000 PUSHBUS_REGISTER_BURST=1000000 PUSHBUS_CONNECTION_RATE=1000000 \
    PUSHBUS_PER_ADDRESS=4096 "$bin/pushbus" --base-port "$base" --data-dir "$work/data" \
    --services registration,tagging --log-level warning >"$work/stack.log" 2>&1 &
for _ in $(seq 1 600); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.1; done
grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }
"$bin/pushctl" --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" call app.create '{"name":"bench","app_key":"benchapp"}' >/dev/null

"$bin/pushbus-replay" generate --devices "$devices" --commands "$commands" --mix tagging --app-key benchapp --seed 5 --out "$work/all.jsonl" >/dev/null
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
with open(f"{work}/all.jsonl") as source, open(f"{work}/register.jsonl", "w") as register, open(f"{work}/mix.jsonl", "w") as mix:
    for line in source:
        (register if json.loads(line)["command"] in ("app.create", "device.register") else mix).write(line)
PY
replay() {
    "$bin/pushbus-replay" run --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" --ids "$work/ids.json" --speed max \
        --window "$connections" --connections "$connections" --quiet --json "$@"
}
replay --file "$work/register.jsonl" >"$work/register.json"

api_pid=$(pgrep -f -- "api --endpoint tcp://127.0.0.1:$base " | head -1)
gateway_pid=$(pgrep -f -- "gateway --endpoint tcp://127.0.0.1:$base " | head -1)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for round in 1 2; do
    for via in edge zeromq; do
        api_before=$(ticks "$api_pid"); gateway_before=$(ticks "$gateway_pid")
        if [ "$via" = edge ]; then
            replay --file "$work/mix.jsonl" --edge "127.0.0.1:$((base + 4))" >"$work/$via-$round.json"
        else
            replay --file "$work/mix.jsonl" >"$work/$via-$round.json"
        fi
        echo "$(ticks "$api_pid") $api_before $(ticks "$gateway_pid") $gateway_before" >"$work/$via-$round.cpu"
        sleep 11   # past the 10-s window of the per-device set limit, so each round starts alike
    done
done

python3 - "$work" "$devices" "$connections" "$(getconf CLK_TCK)" <<'PY'
import json, sys
work, devices, connections, hz = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rows = []
for round in (1, 2):
    for via in ("edge", "zeromq"):
        run = json.load(open(f"{work}/{via}-{round}.json"))
        api_after, api_before, gateway_after, gateway_before = (int(x) for x in open(f"{work}/{via}-{round}.cpu").read().split())
        rows.append((round, via, run, (api_after - api_before) / hz, (gateway_after - gateway_before) / hz))
print(f"| tagging mix, {devices:,} devices, {connections} connections and {connections} in flight; round | through the edge (HTTP) | straight over ZeroMQ | edge / ZeroMQ |")
print("| --- | --- | --- | --- |")
for round in (1, 2):
    edge = next(r for r in rows if r[0] == round and r[1] == "edge")
    zmq = next(r for r in rows if r[0] == round and r[1] == "zeromq")
    e, z = edge[2], zmq[2]
    print(f"| {round}: commands/s | {e['commands_per_second']:,.0f} | {z['commands_per_second']:,.0f} | **{e['commands_per_second'] / z['commands_per_second']:.2f}** |")
    print(f"| {round}: p50 / p99 | {e['latency']['p50_ms']:.2f} / {e['latency']['p99_ms']:.2f} ms | {z['latency']['p50_ms']:.2f} / {z['latency']['p99_ms']:.2f} ms | |")
    print(f"| {round}: api CPU per command | {edge[3] / e['commands'] * 1e6:.1f} µs | {zmq[3] / z['commands'] * 1e6:.1f} µs (idle) | |")
    print(f"| {round}: gateway CPU per command | {edge[4] / e['commands'] * 1e6:.1f} µs | {zmq[4] / z['commands'] * 1e6:.1f} µs | |")
    print(f"| {round}: codes | {e['codes']} | {z['codes']} | |")
PY
