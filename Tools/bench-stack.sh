#!/usr/bin/env bash
# The stack benchmark of docs/benchmarks.md ("stack"): in one run on this machine, the raw ZeroMQ
# ceilings, then the real PushBus stack (release build, launched by pushbus) replaying a
# tagging-heavy recording as fast as it goes, at half that rate, one request at a time, and with
# tagging on 2 shards against 1. Prints a Markdown table. Usage: bench-stack.sh [COMMANDS] [DEVICES]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.build/release
commands=${1:-1000000}
devices=${2:-200000}
work=$(mktemp -d /tmp/bench-stack.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port 18555" 2>/dev/null || true; rm -rf "$work"' EXIT

ceiling=$($bin/bench-zeromq --json --messages 500000)
$bin/pushbus-replay generate --devices "$devices" --commands "$commands" --seed 7 --mix tagging --rate 1000 --out "$work/load.jsonl" >/dev/null
$bin/pushbus-replay generate --devices 2000 --commands 20000 --seed 8 --mix reads --out "$work/reads.jsonl" >/dev/null

# start_stack SHARDS: a fresh pushbus with registration and tagging, waits for its ready line.
start_stack() {
    pkill -INT -f "pushbus --base-port 18555" 2>/dev/null || true
    while pgrep -f "pushbus --base-port 18555" >/dev/null; do sleep 0.1; done
    rm -rf "$work/data"
    "$bin/pushbus" --base-port 18555 --data-dir "$work/data" --services registration,tagging --shards "$1" \
        --log-level warning >"$work/stack.log" 2>&1 &
    for _ in $(seq 1 300); do grep -q "pushbus: ready" "$work/stack.log" && return 0; sleep 0.1; done
    echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1
}
replay() { "$bin/pushbus-replay" run --endpoint tcp://127.0.0.1:18555 --data-dir "$work/data" --quiet --json "$@"; }

start_stack tagging=1
peak=$(replay --file "$work/load.jsonl" --speed max --window 2048 --connections 4)
start_stack tagging=1
half_speed=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['commands_per_second'] / 2 / 1000)" "$peak")
half=$(replay --file "$work/load.jsonl" --speed "$half_speed" --window 4096 --connections 4)
start_stack tagging=1
sync_reads=$(replay --file "$work/reads.jsonl" --speed max --window 1 --connections 1)
start_stack tagging=2
sharded=$(replay --file "$work/load.jsonl" --speed max --window 2048 --connections 4)

python3 - "$ceiling" "$peak" "$half" "$sync_reads" "$sharded" "$commands" <<'PY'
import json, sys
ceiling, peak, half, sync, sharded = (json.loads(a) for a in sys.argv[1:6])
commands = int(sys.argv[6])
raw = ceiling["two_hop_echo_per_second"]
def codes(run): return ", ".join(f"{k}: {v}" for k, v in sorted(run["codes"].items()))
print(f"| measure | value |")
print(f"| --- | --- |")
print(f"| raw two-hop echo (client → zmq_proxy → echo) | {raw:,} messages/s |")
print(f"| raw REQ/REP round trip p50 / p99 | {ceiling['req_rep_p50_ms']:.3f} / {ceiling['req_rep_p99_ms']:.3f} ms |")
print(f"| stack, {commands:,} tagging-heavy commands, max speed (1 shard) | {peak['commands_per_second']:,.0f} commands/s = {peak['commands_per_second']/raw:.3f} of raw; p99 {peak['latency']['p99_ms']:.1f} ms; codes {codes(peak)} |")
print(f"| same at half that rate | {half['commands_per_second']:,.0f} commands/s; p50 {half['latency']['p50_ms']:.2f} ms, p99 {half['latency']['p99_ms']:.2f} ms |")
print(f"| synchronous round trip through the gateway (reads, window 1) p50 / p99 | {sync['latency']['p50_ms']:.3f} / {sync['latency']['p99_ms']:.3f} ms = {sync['latency']['p50_ms']/ceiling['req_rep_p50_ms']:.1f}× raw REQ/REP p50 |")
print(f"| tagging on 2 shards, max speed | {sharded['commands_per_second']:,.0f} commands/s = {sharded['commands_per_second']/peak['commands_per_second']:.2f}× one shard |")
PY
