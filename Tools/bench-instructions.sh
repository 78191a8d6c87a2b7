#!/usr/bin/env bash
# Instructions per tagging-mix command in the tagging worker and the gateway, counted by valgrind's
# callgrind: a figure that, unlike CPU time on a shared machine, comes out the same run after run
# (within 1 %), so two builds can be told apart by a few per cent. The release stack (gateway,
# registration, tagging) starts with those two under callgrind; the devices are registered, the
# counts zeroed once tagging knows them all, the mix replayed on them (a window of 256 over 2
# connections; Tools/map-ids.py writes the devices' IDs into it), and the counts read. They
# count instructions, not time: a memcpy of a page is one instruction, a cache miss none.
# Usage: bench-instructions.sh [COMMANDS] [DEVICES] (defaults 5000 2000)
#   BENCH_BIN   the build measured (default .build/release)
#   BENCH_BASE  a second build, measured right after it, for a side-by-side line
set -euo pipefail
cd "$(dirname "$0")/.."
commands=${1:-5000}
devices=${2:-2000}
port=18955
work=$(mktemp -d /var/tmp/bench-instructions.XXXXXX)
trap 'pkill -INT -f "pushbus --base-port $port" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

# The recording, made once by the build measured, replayed against each build.
"${BENCH_BIN:-.build/release}/pushbus-replay" generate --devices "$devices" --commands "$commands" --seed 7 \
    --mix tagging --rate 1000 --out "$work/load.jsonl" >/dev/null
head -n $((devices + 1)) "$work/load.jsonl" >"$work/register.jsonl"
tail -n +$((devices + 2)) "$work/load.jsonl" >"$work/mix.jsonl"

# measure BUILD LABEL: prints "LABEL: tagging N, gateway N instructions per command".
measure() {
    local build=$1 label=$2
    # pushbus starts its children from its own directory: a copy of it beside two wrappers.
    rm -rf "$work/bin" "$work/data" "$work"/*.out*
    mkdir -p "$work/bin"
    cp "$build/pushbus" "$build/registration" "$work/bin/"
    for name in tagging gateway; do
        printf '#!/bin/sh\nexec valgrind --tool=callgrind --callgrind-out-file=%s/%s.%%p.out %s/%s "$@"\n' \
            "$work" "$name" "$build" "$name" >"$work/bin/$name"
        chmod +x "$work/bin/$name"
    done
    # Requests wait longer than the default 5 s: callgrind runs each process some 50 times slower.
    PUSHBUS_REQUEST_TIMEOUT_MS=60000 PUSHBUS_REGISTER_RATE=0 "$work/bin/pushbus" --base-port "$port" --data-dir "$work/data" \
        --services registration,tagging --api 0 --log-level warning >"$work/stack.log" 2>&1 &
    for _ in $(seq 1 900); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.2; done
    grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }
    # The devices registered by the measured build's client, which keeps the IDs the stack gave
    # them; the mix then names those (Tools/map-ids.py), whichever build's client replays it.
    rm -f "$work/ids.json"
    "${BENCH_BIN:-.build/release}/pushbus-replay" run --endpoint "tcp://127.0.0.1:$port" --data-dir "$work/data" --quiet \
        --speed max --window 64 --ids "$work/ids.json" --file "$work/register.jsonl" >/dev/null
    python3 Tools/map-ids.py "$work/ids.json" "$work/mix.jsonl" "$work/mix-mapped.jsonl"
    # Tagging learns the devices from registration's events. Under callgrind it falls behind and
    # catches up from registration's outbox later, so the mix would make most devices' entries
    # itself (a third more instructions a command): wait until it knows every device, as it does
    # within a second at full speed.
    python3 - "$work/data/tagging.sqlite" "$devices" <<'PY'
import sqlite3, sys, time
path, wanted = sys.argv[1], int(sys.argv[2])
for _ in range(1200):
    try:
        with sqlite3.connect(path, timeout=5) as db:
            if db.execute("SELECT count(*) FROM devices").fetchone()[0] >= wanted:
                sys.exit(0)
    except sqlite3.Error:
        pass
    time.sleep(0.5)
sys.exit("tagging did not learn every device within 10 minutes")
PY
    sleep 1
    callgrind_control --zero >/dev/null 2>&1
    "$build/pushbus-replay" run --endpoint "tcp://127.0.0.1:$port" --data-dir "$work/data" --quiet --json --speed max \
        --window 256 --connections 2 --file "$work/mix-mapped.jsonl" >"$work/replay.json"
    callgrind_control --dump >/dev/null 2>&1
    pkill -INT -f "pushbus --base-port $port" 2>/dev/null || true
    while pgrep -f "pushbus --base-port $port" >/dev/null; do sleep 0.2; done
    python3 - "$work" "$label" <<'PY'
import glob, json, sys
work, label = sys.argv[1:3]
replay = json.load(open(f"{work}/replay.json"))
n = replay["commands"]
def counted(name):
    # The dump taken after the replay (file .1 of each process); "summary:" is its total.
    total = 0
    for path in glob.glob(f"{work}/{name}.*.out.1"):
        total += next(int(line.split()[1]) for line in open(path) if line.startswith(("summary:", "totals:")))
    return total / n
print(f"{label}: tagging {counted('tagging'):,.0f}, gateway {counted('gateway'):,.0f} instructions per command"
      f" ({n:,} commands, codes {replay.get('codes')})")
PY
}

measure "${BENCH_BIN:-$PWD/.build/release}" this
if [ -n "${BENCH_BASE:-}" ]; then measure "$BENCH_BASE" base; fi
