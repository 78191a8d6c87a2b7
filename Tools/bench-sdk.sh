#!/usr/bin/env bash
# The SDK benchmark of docs/benchmarks.md ("sdk"): DEVICES instances of PushBusSDK in one process
# (bench-sdk), each a phone with its own state, against the release stack over HTTPS and wss (a
# throwaway CA): all register, add a tag, open the live channel; then one custom-message push to the
# tag, which each must receive. Prints wall time per phase, the SDK process's CPU per device and its
# memory per connected instance. The api's and channel's per-address limits are opened up: every
# phone here comes from 127.0.0.1.
# Usage: bench-sdk.sh [DEVICES] (default 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PUSHBUS_BIN_DIR:-$PWD/.build/release}
devices=${1:-2000}
base=18855
work=$(mktemp -d /var/tmp/bench-sdk.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port $base" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true   # 2 descriptors a phone: its HTTPS and its channel

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" -days 1 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
PUSHBUS_PER_ADDRESS=16384 PUSHBUS_REGISTER_RATE=1000000 PUSHBUS_REGISTER_BURST=1000000 PUSHBUS_APP_QUOTA=0 \
    "$bin/pushbus" --base-port "$base" --data-dir "$work/data" --services registration,tagging,push,apns,channel \
    --tls-cert "$work/tls.crt" --tls-key "$work/tls.key" --log-level warning >"$work/stack.log" 2>&1 &
for _ in $(seq 1 600); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.1; done
grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }
pushctl() { "$bin/pushctl" --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" "$@"; }
pushctl call app.create '{"name":"bench","app_key":"benchapp"}' >/dev/null

"$bin/bench-sdk" --server "https://localhost:$((base + 4))" --channel "wss://localhost:$((base + 5))/v1/channel" --ca-file "$work/tls.crt" \
    --app-key benchapp --state "$work/phones" --devices "$devices" --ready "$work/ready" --go "$work/go" >"$work/sdk.json" &
sdk=$!
for _ in $(seq 1 3000); do [ -f "$work/ready" ] && break; kill -0 "$sdk" 2>/dev/null || break; sleep 0.1; done
[ -f "$work/ready" ] || { echo "the phones never got ready" >&2; exit 1; }
pushctl call push.send '{"app_key":"benchapp","to":{"tag":["bench"]},"body":{"platform":"all","message":{"msg_content":"hello, everyone"}}}' >/dev/null
touch "$work/go"
status=0
wait "$sdk" || status=$?
python3 - "$work/sdk.json" "$devices" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
print(f"| {n:,} SDK instances in one process, HTTPS and wss | value |")
print("| --- | --- |")
print(f"| register (unsigned, then kept) | {run['register_s']:.1f} s ({n / run['register_s']:,.0f}/s), {run['register_failures']} failed |")
print(f"| add a tag (signed) | {run['tags_s']:.1f} s ({n / run['tags_s']:,.0f}/s), {run['tags_failures']} failed |")
print(f"| open the live channel | {run['connect_s']:.1f} s, {run['connected']:,} welcomed |")
print(f"| one broadcast, every instance received it | {run['broadcast_received']:,} in {run['broadcast_s']:.2f} s |")
print(f"| SDK process CPU per device (all phases) | {run['cpu_ms_per_device']:.2f} ms |")
print(f"| SDK process memory per connected instance | {run['kib_per_connected_device']:.0f} KiB (RSS {run['rss_before_mib']:.0f} → {run['rss_connected_mib']:.0f} MiB) |")
PY
exit $status
