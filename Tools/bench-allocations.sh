#!/usr/bin/env bash
# Heap allocations and CPU per request in steady state (issue 20): the release stack (gateway,
# registration, tagging) and the replay client run with Tools/MallocCount preloaded, which counts
# every malloc, calloc, realloc and aligned allocation. The services' counts and CPU times are taken
# (SIGUSR2, /proc) once the devices are registered and again after a tagging-mix replay at full
# speed (window 2048 over 4 connections, as the stack benchmark's peak run) on those devices (the
# IDs the registrations were given are written into the mix: Tools/map-ids.py); the difference over the
# commands replayed is each process's share per command. The client's count is its whole run
# (reading the recording included).
# Usage: bench-allocations.sh [COMMANDS] [DEVICES] [ROUNDS] (defaults 100000 20000 1)
#   BENCH_BIN    the build measured (default .build/release)
#   BENCH_BASE   a second build, measured in alternating rounds with BENCH_BIN for a side-by-side table
#   BENCH_COUNT  0 runs every process without the counter, for CPU figures alone: counting every
#                allocation costs CPU itself (default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BENCH_BIN:-$PWD/.build/release}
base=${BENCH_BASE:-}
commands=${1:-100000}
devices=${2:-20000}
rounds=${3:-1}
port=18855
work=$(mktemp -d /var/tmp/bench-allocations.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port $port" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

# The counter every process preloads; none with BENCH_COUNT=0 (nor a compiler then).
preload=""
if [ "${BENCH_COUNT:-1}" != 0 ]; then
    gcc -O2 -shared -fPIC -o "$work/libmalloccount.so" Tools/MallocCount/malloc_count.c -ldl
    preload="$work/libmalloccount.so"
fi
"$bin/pushbus-replay" generate --devices "$devices" --commands "$commands" --seed 7 --mix tagging --rate 1000 --out "$work/load.jsonl" >/dev/null
head -n $((devices + 1)) "$work/load.jsonl" >"$work/register.jsonl"
tail -n +$((devices + 2)) "$work/load.jsonl" >"$work/mix.jsonl"

# measure BUILD LABEL: one round on a fresh stack of BUILD; appends a JSON line to results.jsonl.
measure() {
    local build=$1 label=$2
    local counts="$work/counts-$label.txt"
    rm -rf "$work/data" "$counts"
    MALLOC_COUNT_FILE="$counts" LD_PRELOAD="$preload" PUSHBUS_REGISTER_RATE=0 \
        "$build/pushbus" --base-port "$port" --data-dir "$work/data" --services registration,tagging --api 0 --log-level warning >"$work/stack.log" 2>&1 &
    for _ in $(seq 1 300); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.1; done
    grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }
    # The devices registered by this build's client, which keeps the IDs the stack gave them; the
    # mix then names those (Tools/map-ids.py), whichever build's client replays it.
    rm -f "$work/ids.json"
    "$bin/pushbus-replay" run --endpoint "tcp://127.0.0.1:$port" --data-dir "$work/data" --quiet --speed max \
        --ids "$work/ids.json" --file "$work/register.jsonl" >/dev/null
    python3 Tools/map-ids.py "$work/ids.json" "$work/mix.jsonl" "$work/mix-mapped.jsonl"
    local services
    services=$(pgrep -f -- "--endpoint tcp://127.0.0.1:$port " | tr '\n' ' ')
    snapshot() {
        for pid in $services; do
            [ -z "$preload" ] || kill -USR2 "$pid"
            echo "cpu $pid $(cut -d' ' -f14,15 /proc/$pid/stat | tr ' ' +) $(cat /proc/$pid/comm)" >>"$counts"
        done
        sleep 0.5
        echo mark >>"$counts"
    }
    snapshot
    MALLOC_COUNT_FILE="$counts" MALLOC_COUNT_AT_EXIT=1 LD_PRELOAD="$preload" \
        "$build/pushbus-replay" run --endpoint "tcp://127.0.0.1:$port" --data-dir "$work/data" --quiet --json --speed max \
        --window 2048 --connections 4 --file "$work/mix-mapped.jsonl" >"$work/replay.json"
    snapshot
    pkill -INT -f "pushbus --base-port $port" 2>/dev/null || true
    while pgrep -f "pushbus --base-port $port" >/dev/null; do sleep 0.1; done
    python3 - "$counts" "$work/replay.json" "$label" >>"$work/results.jsonl" <<'PY'
import json, os, sys
parts = open(sys.argv[1]).read().split("mark\n")
ticks = os.sysconf("SC_CLK_TCK")
def parse(text):
    counts, cpu, names = {}, {}, {}
    for fields in (l.split() for l in text.splitlines()):
        if fields[0] == "cpu":
            cpu[fields[1]] = eval(fields[2]) / ticks
            names[fields[1]] = fields[3]
        else:
            counts[fields[1]] = int(fields[2])
    return counts, cpu, names
before, cpu_before, names = parse(parts[0])
after, cpu_after, _ = parse(parts[1])
replay = json.load(open(sys.argv[2]))
n = replay["commands"]
row = {"label": sys.argv[3], "commands": n, "rate": replay["commands_per_second"], "codes": replay.get("codes"), "processes": {}}
for pid, name in names.items():
    allocations = (after[pid] - before[pid]) / n if pid in after and pid in before else None
    row["processes"][name] = {"allocations": allocations, "cpu_us": (cpu_after[pid] - cpu_before[pid]) / n * 1e6}
# The client counted its whole run at exit (when counting), under its own pid.
client = [count for pid, count in after.items() if pid not in names]
row["processes"]["replay client"] = {"allocations": client[0] / n if client else None,
                                     "cpu_us": replay["client_cpu_seconds"] / n * 1e6}
print(json.dumps(row))
PY
}

for round in $(seq 1 "$rounds"); do
    if [ -n "$base" ]; then measure "$base" base; fi
    measure "$bin" this
done
python3 - "$work/results.jsonl" "$commands" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
labels = [l for l in ("base", "this") if any(r["label"] == l for r in rows)]
names = ["gateway", "registration", "tagging", "replay client"]
def cell(label, name, key):
    values = [r["processes"][name][key] for r in rows if r["label"] == label and name in r["processes"]]
    return " / ".join("–" if v is None else f"{v:.1f}" for v in values)
print(f"{sys.argv[2]} tagging-mix commands at full speed (window 2048, 4 connections); per command, each round's figure:")
print("| per command | " + " | ".join(f"{l} allocations | {l} CPU µs" for l in labels) + " |")
print("| --- | " + " | ".join("---: | ---:" for _ in labels) + " |")
for name in names:
    label = name + (" (allocations over the whole run, reading the recording included; CPU over the replay)" if name == "replay client" else "")
    print(f"| {label} | " + " | ".join(f"{cell(l, name, 'allocations')} | {cell(l, name, 'cpu_us')}" for l in labels) + " |")
for l in labels:
    sums = [sum(p["cpu_us"] for p in r["processes"].values()) for r in rows if r["label"] == l]
    rates = [r["rate"] for r in rows if r["label"] == l]
    print(f"| CPU of the four, {l} | " + " / ".join(f"{s:.1f} µs" for s in sums) + " | commands/s " + " / ".join(f"{x:,.0f}" for x in rates) + " |")
PY
