#!/usr/bin/env bash
# The stack benchmark of docs/benchmarks.md ("stack"): in one run on this machine, the raw ZeroMQ
# ceilings, then the real PushBus stack (release build, launched by pushbus) replaying a
# tagging-heavy recording as fast as it goes, at half that rate, one request at a time, and with
# tagging on 2 shards against 1; then reads only (one indexed row read each, nothing to commit) as
# fast as they go, the ceiling of the gateway and signing client without storage. For the peak, the
# half-rate and the reads runs it also reports each process's CPU per call, from /proc and the
# client's own count, and how many of the cores were busy.
# Prints a Markdown table. Usage: bench-stack.sh [COMMANDS] [DEVICES]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BENCH_BIN:-.build/release}
commands=${1:-1000000}
devices=${2:-200000}
work=$(mktemp -d /tmp/bench-stack.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port 18555" 2>/dev/null || true; rm -rf "$work"' EXIT

ceiling=$($bin/bench-zeromq --json --messages 500000)
$bin/pushbus-replay generate --devices "$devices" --commands "$commands" --seed 7 --mix tagging --rate 1000 --out "$work/load.jsonl" >/dev/null
$bin/pushbus-replay generate --devices 2000 --commands 20000 --seed 8 --mix reads --out "$work/reads.jsonl" >/dev/null
$bin/pushbus-replay generate --devices 20000 --commands 400000 --seed 9 --mix reads --out "$work/many-reads.jsonl" >/dev/null

# start_stack SHARDS: a fresh pushbus with registration and tagging, waits for its ready line.
start_stack() {
    pkill -INT -f "pushbus --base-port 18555" 2>/dev/null || true
    while pgrep -f "pushbus --base-port 18555" >/dev/null; do sleep 0.1; done
    rm -rf "$work/data"
    # The replay registers every device from this one address, far past the gateway's per-address limit.
    PUSHBUS_REGISTER_RATE=0 "$bin/pushbus" --base-port 18555 --data-dir "$work/data" --services registration,tagging --shards "$1" \
        --log-level warning >"$work/stack.log" 2>&1 &
    for _ in $(seq 1 300); do grep -q "pushbus: ready" "$work/stack.log" && return 0; sleep 0.1; done
    echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1
}
replay() { "$bin/pushbus-replay" run --endpoint tcp://127.0.0.1:18555 --data-dir "$work/data" --quiet --json "$@"; }
# stack_cpu: CPU seconds so far of each process of the stack, by program, as JSON ({"gateway": 1.2, ...}).
stack_cpu() {
    for pid in $(pgrep -f -- "--endpoint tcp://127.0.0.1:18555 "); do
        echo "$(basename "$(tr '\0' '\n' < "/proc/$pid/cmdline" | head -1)") $(cut -d' ' -f14,15 "/proc/$pid/stat")"
    done | python3 -c "
import json, os, sys
ticks = os.sysconf('SC_CLK_TCK'); seconds = {}
for name, user, system in (line.split() for line in sys.stdin):
    seconds[name] = seconds.get(name, 0) + (int(user) + int(system)) / ticks
print(json.dumps(seconds))"
}
# measured ARGS…: one replay with the stack's CPU before and after, as {"run": …, "cpu": [before, after]}.
measured() {
    local before after run
    before=$(stack_cpu)
    run=$(replay "$@")
    after=$(stack_cpu)
    echo "{\"run\": $run, \"cpu\": [$before, $after]}"
}
# run_of MEASURED: the replay's own summary out of what `measured` printed.
run_of() { python3 -c "import json,sys; print(json.dumps(json.loads(sys.argv[1])['run']))" "$1"; }

start_stack tagging=1
peak_measured=$(measured --file "$work/load.jsonl" --speed max --window 2048 --connections 4)
peak=$(run_of "$peak_measured")
start_stack tagging=1
half_speed=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['commands_per_second'] / 2 / 1000)" "$peak")
half_measured=$(measured --file "$work/load.jsonl" --speed "$half_speed" --window 4096 --connections 4)
half=$(run_of "$half_measured")
start_stack tagging=1
sync_reads=$(replay --file "$work/reads.jsonl" --speed max --window 1 --connections 1)
start_stack tagging=2
sharded=$(replay --file "$work/load.jsonl" --speed max --window 2048 --connections 4)
start_stack tagging=1
reads_measured=$(measured --file "$work/many-reads.jsonl" --speed max --window 2048 --connections 4)

python3 - "$ceiling" "$peak" "$half" "$sync_reads" "$sharded" "$peak_measured" "$reads_measured" "$half_measured" "$commands" <<'PY'
import json, os, sys
ceiling, peak, half, sync, sharded, peak_measured, reads_measured, half_measured = (json.loads(a) for a in sys.argv[1:9])
commands = int(sys.argv[9])
def cpu_per_call(measured):
    run, (before, after) = measured["run"], measured["cpu"]
    calls = run["commands"]
    parts = {name: (after[name] - before.get(name, 0)) * 1e6 / calls for name in sorted(after)}
    parts["replay client"] = run["client_cpu_seconds"] * 1e6 / calls
    used = sum(parts.values()) * calls / 1e6 / run["seconds"]
    return ", ".join(f"{name} {us:.1f}" for name, us in parts.items()) + f" µs a call; {used:.2f} of the {os.cpu_count()} cores busy"
raw = ceiling["two_hop_echo_per_second"]
def codes(run): return ", ".join(f"{k}: {v}" for k, v in sorted(run["codes"].items()))
print(f"| measure | value |")
print(f"| --- | --- |")
print(f"| raw two-hop echo (client → zmq_proxy → echo) | {raw:,} messages/s |")
print(f"| raw REQ/REP round trip p50 / p99 | {ceiling['req_rep_p50_ms']:.3f} / {ceiling['req_rep_p99_ms']:.3f} ms |")
print(f"| stack, {commands:,} tagging-heavy commands, max speed (1 shard) | {peak['commands_per_second']:,.0f} commands/s = {peak['commands_per_second']/raw:.3f} of raw; p99 {peak['latency']['p99_ms']:.1f} ms; codes {codes(peak)} |")
print(f"| same at half that rate | {half['commands_per_second']:,.0f} commands/s; p50 {half['latency']['p50_ms']:.2f} ms, p99 {half['latency']['p99_ms']:.2f} ms |")
print(f"| synchronous round trip through the gateway (reads, window 1) p50 / p99 | {sync['latency']['p50_ms']:.3f} / {sync['latency']['p99_ms']:.3f} ms = {sync['latency']['p50_ms']/ceiling['req_rep_p50_ms']:.1f}× raw REQ/REP p50 |")
print(f"| CPU per call in the max-speed run | {cpu_per_call(peak_measured)} |")
# At half the rate a call costs more: batches, commits and each process's wake-ups are smaller, so
# their fixed costs are shared by fewer calls. How busy the cores are there is what the tail waits on.
print(f"| CPU per call in the half-rate run | {cpu_per_call(half_measured)} |")
reads = reads_measured["run"]
print(f"| reads only, max speed (1 shard; no commit, the ceiling without storage) | {reads['commands_per_second']:,.0f} commands/s = {reads['commands_per_second']/raw:.3f} of raw; {cpu_per_call(reads_measured)} |")
print(f"| tagging on 2 shards, max speed | {sharded['commands_per_second']:,.0f} commands/s = {sharded['commands_per_second']/peak['commands_per_second']:.2f}× one shard |")
PY
