#!/usr/bin/env bash
# Heap allocations per request in steady state (issue 20): the release stack (gateway, registration,
# tagging) and the replay client run with Tools/MallocCount preloaded, which counts every malloc,
# calloc, realloc and aligned allocation. The services' counts are taken (SIGUSR2) once the stack is
# ready and again after a tagging-mix replay; the difference over the commands replayed is each
# process's allocations per command. The client's count is its whole run over the commands.
# Usage: bench-allocations.sh [COMMANDS] [DEVICES] (defaults 100000 20000)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BENCH_BIN:-$PWD/.build/release}
commands=${1:-100000}
devices=${2:-20000}
base=18855
work=$(mktemp -d /var/tmp/bench-allocations.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port $base" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

gcc -O2 -shared -fPIC -o "$work/libmalloccount.so" Tools/MallocCount/malloc_count.c
"$bin/pushbus-replay" generate --devices "$devices" --commands "$commands" --seed 7 --mix tagging --rate 1000 --out "$work/load.jsonl" >/dev/null
counts="$work/counts.txt"
MALLOC_COUNT_FILE="$counts" LD_PRELOAD="$work/libmalloccount.so" PUSHBUS_REGISTER_RATE=0 \
    "$bin/pushbus" --base-port "$base" --data-dir "$work/data" --services registration,tagging --api 0 --log-level warning >"$work/stack.log" 2>&1 &
for _ in $(seq 1 300); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.1; done
grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }
services=$(pgrep -f -- "--endpoint tcp://127.0.0.1:$base " | tr '\n' ' ')
snapshot() {
    for pid in $services; do kill -USR2 "$pid"; echo "cpu $pid $(cut -d' ' -f14,15 /proc/$pid/stat | tr ' ' +)" >>"$counts"; done
    sleep 0.5
    echo mark >>"$counts"
}
snapshot
MALLOC_COUNT_FILE="$counts" MALLOC_COUNT_AT_EXIT=1 LD_PRELOAD="$work/libmalloccount.so" \
    "$bin/pushbus-replay" run --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" --quiet --json --speed max --file "$work/load.jsonl" >"$work/replay.json"
snapshot
python3 - "$counts" "$commands" "$work/replay.json" <<'PY'
import json, os, sys
lines = open(sys.argv[1]).read().split("mark\n")
ticks = os.sysconf("SC_CLK_TCK")
def parse(text):
    counts, cpu = {}, {}
    for name, pid, value in (l.split() for l in text.splitlines()):
        if name == "cpu":
            cpu[pid] = eval(value) / ticks
        else:
            counts[pid] = (name, int(value))
    return counts, cpu
before, cpu_before = parse(lines[0])
after_counts, cpu_after = parse(lines[1])
after = [(name, pid, count) for pid, (name, count) in after_counts.items()]
after += [l.split() for l in lines[2].splitlines()] if len(lines) > 2 else []
replay = json.load(open(sys.argv[3]))
# The recording registers its devices first: they are commands too.
commands = replay["commands"]
print(f"{commands} tagging-mix commands at {replay['commands_per_second']:.0f}/s (answers by code: {replay.get('codes')}); "
      "heap allocations per command:")
for name, pid, count in after:
    if pid in before:
        cpu = (cpu_after[pid] - cpu_before[pid]) / commands * 1e6
        print(f"  {name}: {(int(count) - before[pid][1]) / commands:.1f} allocations, {cpu:.1f} µs CPU")
    else:
        print(f"  {name} (client, whole run): {int(count) / commands:.1f} allocations, {replay['client_cpu_seconds'] / commands * 1e6:.1f} µs CPU")
PY
