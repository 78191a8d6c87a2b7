#!/usr/bin/env bash
# The half-rate tail of docs/benchmarks.md, compared side by side: the stack benchmark's
# 1,000,000-call tagging file replayed at a fixed rate (window 4096 over 4 connections) against a
# fresh release stack for each run, variants alternating round by round, so the machine's drift
# falls on all of them alike. Each run prints one line: the rate reached, p50 / p90 / p99 / max
# latency, and each process's CPU a call (from /proc; the client's own count).
# Usage: bench-half-rate.sh RATE [ROUNDS] [VARIANT...]   (RATE in commands/s; ROUNDS default 2)
#   A VARIANT is LABEL or LABEL:VAR=value,VAR=value: the settings go into the stack's environment
#   (PUSHBUS_CHECKPOINT_MS=50, PUSHBUS_GATHER_US=500, LD_PRELOAD=...). Default: one variant, "plain".
#   BENCH_BIN   the build (default .build/release)
#   BENCH_FILE  a recording to reuse (default: generated as bench-stack.sh does, 200,000 devices)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BENCH_BIN:-$PWD/.build/release}
rate=${1:?usage: bench-half-rate.sh RATE [ROUNDS] [VARIANT...]}
rounds=${2:-2}
shift $(( $# < 2 ? $# : 2 ))
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=(plain)
port=18655
work=$(mktemp -d /var/tmp/bench-half-rate.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port $port" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

file=${BENCH_FILE:-$work/load.jsonl}
[ -f "$file" ] || "$bin/pushbus-replay" generate --devices 200000 --commands 1000000 --seed 7 --mix tagging --rate 1000 --out "$file" >/dev/null
speed=$(python3 -c "print($rate / 1000)")   # the file is recorded at 1,000 commands/s

# cpu: CPU seconds so far of each process on the port, by program, as "name=seconds ...".
cpu() {
    for pid in $(pgrep -f -- "--endpoint tcp://127.0.0.1:$port "); do
        echo "$(basename "$(tr '\0' '\n' <"/proc/$pid/cmdline" | head -1)") $(cut -d' ' -f14,15 "/proc/$pid/stat")"
    done | awk -v hz="$(getconf CLK_TCK)" '{a[$1] += $2 + $3} END {for (k in a) printf "%s=%.2f ", k, a[k] / hz}'
}

# run LABEL SETTINGS: one replay against a fresh stack started with SETTINGS in its environment.
run() {
    local label=$1 settings=$2
    pkill -INT -f "pushbus --base-port $port" 2>/dev/null || true
    while pgrep -f "pushbus --base-port $port" >/dev/null; do sleep 0.1; done
    rm -rf "$work/data"
    # shellcheck disable=SC2086  # the settings are words on purpose
    env ${settings//,/ } PUSHBUS_REGISTER_RATE=0 "$bin/pushbus" --base-port "$port" --data-dir "$work/data" \
        --services registration,tagging --log-level warning >"$work/stack.log" 2>&1 &
    for _ in $(seq 1 300); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.1; done
    grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }
    local before after out
    before=$(cpu)
    out=$("$bin/pushbus-replay" run --endpoint "tcp://127.0.0.1:$port" --data-dir "$work/data" --quiet --json \
        --file "$file" --speed "$speed" --window 4096 --connections 4)
    after=$(cpu)
    python3 - "$label" "$out" "$before" "$after" <<'PY'
import json, sys
label, out, before, after = sys.argv[1:5]
r = json.loads(out); l = r["latency"]; n = r["commands"]
b = dict(x.split("=") for x in before.split()); a = dict(x.split("=") for x in after.split())
per_call = {k: (float(a[k]) - float(b.get(k, 0))) * 1e6 / n for k in sorted(a)}
per_call["client"] = r["client_cpu_seconds"] * 1e6 / n
print(f"{label}: {r['commands_per_second']:,.0f}/s p50 {l['p50_ms']:.2f} p90 {l.get('p90_ms', 0):.2f} "
      f"p99 {l['p99_ms']:.2f} max {l.get('max_ms', 0):.1f} ms | CPU a call: "
      + ", ".join(f"{k} {v:.1f}" for k, v in per_call.items() if v >= 0.05) + " µs", flush=True)
PY
}

for round in $(seq 1 "$rounds"); do
    for variant in "${variants[@]}"; do
        label=${variant%%:*}
        settings=""
        [[ $variant == *:* ]] && settings=${variant#*:}
        run "$label (round $round)" "$settings"
    done
done
