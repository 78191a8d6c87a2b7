#!/usr/bin/env bash
# The push benchmark of docs/benchmarks.md ("push"): in one run on this machine, h2load's ceiling
# against nghttpd (the APNs stand-in that is never the bottleneck: it answers every POST 200), then
# the real stack (release build, launched by pushbus, the apns sender pointed at the same nghttpd)
# sending one push to a tag of DEVICES devices: notifications/s, time from push.send to the last
# answer, each process's CPU per notification and peak RSS. Then a burst of BURST local
# notifications due in the same second, each delivered to its device as an APNs alert: lateness
# from the due time to the stand-in's answer as push recorded it, p50/p99 (BURST_AT_STANDIN=1: to
# the arrival in nghttpd -v's frame log instead). Then the console's reads at this size (the audience estimate, the
# history, a device's page), timed through the REST API. Prints a Markdown table.
# Usage: bench-push.sh [DEVICES] [BURST] [APNS_REPLICAS] (defaults 1000000 10000 2)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN:-$PWD/.build/release}  # BIN=dir: another build's binaries (the one before a change, side by side)
devices=${1:-1000000}
burst=${2:-10000}
replicas=${3:-2}
port=18580
base=18555
# Not under /tmp: nghttpd gets a tmpfs of its own there, which would hide the certificate.
work=$(mktemp -d /var/tmp/bench-push.XXXXXX)
stop_all() {
    pkill -INT -f "pushbus --base-port $base" 2>/dev/null || true
    [ -n "${nghttpd_pid:-}" ] && kill "$nghttpd_pid" 2>/dev/null || true
}
trap 'stop_all; cp "$work/stack.log" /var/tmp/last-stack.log; rm -rf "$work"' EXIT

# nghttpd: TLS with a throwaway certificate; its uploads go to a tmpfs of its own (--echo-upload
# writes each body to a temporary file in /tmp, which on disk made it the bottleneck).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/tls.key" -out "$work/tls.crt" -days 1 \
    -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/AuthKey.p8" 2>/dev/null
start_nghttpd() {
    local verbose=$1
    [ -n "${nghttpd_pid:-}" ] && { kill "$nghttpd_pid" 2>/dev/null || true; wait "$nghttpd_pid" 2>/dev/null || true; }
    unshare -m sh -c "mount -t tmpfs tmpfs /tmp && exec nghttpd --echo-upload $verbose $port $work/tls.key $work/tls.crt" \
        >"$work/nghttpd.log" 2>&1 &
    nghttpd_pid=$!
    for _ in $(seq 1 100); do ss -ltn | grep -q ":$port " && return 0; sleep 0.05; done
    echo "nghttpd did not start" >&2; exit 1
}
start_nghttpd ""

printf '{"aps":{"alert":"Hello from the benchmark","badge":1},"_j_msgid":"1000000001"}' >"$work/payload.json"
ceiling=$(h2load -n 200000 -c 1 -m 100 -d "$work/payload.json" -H 'apns-topic: com.example.bench' -H 'apns-push-type: alert' \
    "https://127.0.0.1:$port/3/device/00aa" 2>&1 | awk '/^finished in/ {gsub(",", "", $4); print $4}')
# The floor of the transport: PushBus's own HTTP2Client (libnghttp2 and OpenSSL on one epoll
# loop) posting the same payload on one connection, 100 streams at a time, nothing else running.
transport=$("$bin/h2probe" --url "https://127.0.0.1:$port/3/device/00aa" --ca-file "$work/tls.crt" --requests 100000 --batch 100 \
    --max-streams 100 --body-file "$work/payload.json" 2>&1 | sed -n 's/.*rate=\([0-9]*\)\/s.*/\1/p')

# The recording that loads the stack: the app, every device registered with an APNs token, and a
# tag on each; replayed as fast as the stack takes it. Local notifications for the burst go last,
# due in the same second some time after the load has finished.
python3 - "$work/load.jsonl" "$devices" <<'PY'
import json, sys
path, count = sys.argv[1], int(sys.argv[2])
with open(path, "w") as out:
    def line(command, payload, reply=None):
        entry = {"t": 0, "service": "device", "command": command, "payload": payload}
        if reply is not None: entry["reply"] = reply
        out.write(json.dumps(entry, separators=(",", ":")) + "\n")
    line("app.create", {"name": "bench", "app_key": "benchapp"}, {"code": 0, "app_key": "benchapp"})
    for n in range(count):
        line("device.register", {"app_key": "benchapp", "platform": "ios", "device_id": f"d{n}", "apns_token": f"{n:064x}"},
             {"code": 0, "registration_id": f"r{n:019d}", "is_new": True})
    for n in range(count):
        line("tags.add", {"app_key": "benchapp", "registration_id": f"r{n:019d}", "tags": ["bench"]})
PY

pushctl() { "$bin/pushctl" --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" --json "$@"; }
field() { python3 -c "import json,sys; v=json.load(sys.stdin); print(eval(sys.argv[1], {}, {'v': v}))" "$1"; }
# pids_usage: CPU seconds and peak RSS (kB) of every process of the stack and of nghttpd, by program, as JSON.
pids_usage() {
    # The stand-in too: its CPU is on the same two cores, and the stack's requests set it.
    for pid in $(pgrep -f -- "--endpoint tcp://127.0.0.1:$base ") $nghttpd_pid; do
        echo "$(basename "$(tr '\0' '\n' < "/proc/$pid/cmdline" | head -1)") $(cut -d' ' -f14,15 "/proc/$pid/stat") $(awk '/VmHWM/ {print $2}' "/proc/$pid/status")"
    done | python3 -c "
import json, os, sys
ticks = os.sysconf('SC_CLK_TCK'); usage = {}
for name, user, system, hwm in (line.split() for line in sys.stdin):
    cpu, peak = usage.get(name, (0, 0))
    usage[name] = (cpu + (int(user) + int(system)) / ticks, max(peak, int(hwm)))
print(json.dumps(usage))"
}

PUSHBUS_REGISTER_RATE=0 PUSHBUS_APNS_URL="https://127.0.0.1:$port" PUSHBUS_APNS_CA_FILE="$work/tls.crt" \
    "$bin/pushbus" --base-port "$base" --data-dir "$work/data" --services registration,tagging,badge,scheduler,analytics,push,apns,channel \
    --replicas "apns=$replicas" --log-level warning >"$work/stack.log" 2>&1 &
for _ in $(seq 1 600); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.1; done
grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }

load_started=$(date +%s.%N)
"$bin/pushbus-replay" run --file "$work/load.jsonl" --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" --speed max \
    --window 2048 --connections 4 --quiet --json >"$work/load.json"
load_seconds=$(python3 -c "import sys,time; print(round(time.time() - float(sys.argv[1]), 1))" "$load_started")
p8=$(python3 -c 'import json,sys; print(json.dumps(open(sys.argv[1]).read()))' "$work/AuthKey.p8")
pushctl call apns.credentials "{\"app_key\":\"benchapp\",\"team_id\":\"TEAM123456\",\"key_id\":\"KEY1234567\",\"bundle_id\":\"com.example.bench\",\"p8\":$p8}" >/dev/null
# Polls tolerate a reply that does not come in time (pushctl exits 2): the stack is busy, not gone.
for _ in $(seq 1 1200); do
    known=$(pushctl call tags.count '{"app_key":"benchapp","tags":["bench"]}' | field "v['counts'].get('bench', 0)" || echo 0)
    [ "$known" -ge "$devices" ] && break
    sleep 0.5
done

before=$(pids_usage)
sent_at=$(date +%s.%N)
msg_id=$(pushctl call push.send '{"app_key":"benchapp","to":{"tag":["bench"]},"body":{"platform":"ios","notification":{"ios":{"alert":"Hello from the benchmark","sound":"default"}}}}' \
    | field "v['msg_id']")
# Until push has recorded the message done: one process reading push's database (read-only, WAL)
# every 20 ms, not a client per poll: a pushctl each 0.2 s cost about 3 % of the machine under test,
# and a python3 per poll (through pyenv's shims) had taken a quarter.
python3 - "$work/data/push.sqlite" "$msg_id" <<'PY'
import sqlite3, sys, time
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=5)
while (db.execute("SELECT state FROM messages WHERE msg_id = ?", (sys.argv[2],)).fetchone() or [""])[0] != "done":
    time.sleep(0.02)
PY
done_at=$(date +%s.%N)
after=$(pids_usage)
sent=$(pushctl call push.status "{\"app_key\":\"benchapp\",\"msg_ids\":[\"$msg_id\"]}" | field "v['messages']['$msg_id']['sent']")

# The burst: BURST more devices, each with one local notification, all due at the same second;
# lateness = when push recorded the stand-in's answer to it (deliveries.answered_at) − due, which is
# later than its arrival there by the answer's way back. With BURST_AT_STANDIN=1 it is the arrival
# itself, from nghttpd -v's frame log; but that log costs nghttpd about 40 µs of CPU a request (three
# times its serving), taken from the same two cores as the stack under test.
if [ "${BURST_AT_STANDIN:-0}" = 1 ]; then start_nghttpd -v; fi
nghttpd_started=$(date +%s.%N)
due=$(( $(date +%s) + 30 + burst / 1000 ))
due_text=$(date -u -d "@$due" +%Y-%m-%dT%H:%M:%SZ)
python3 - "$work/burst.jsonl" "$burst" "$due_text" <<'PY'
import json, sys
path, count, due = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path, "w") as out:
    for n in range(count):
        out.write(json.dumps({"t": 0, "service": "device", "command": "device.register",
                              "payload": {"app_key": "benchapp", "platform": "ios", "device_id": f"b{n}", "apns_token": f"{n + 1:064x}"[:-1] + "b"},
                              "reply": {"code": 0, "registration_id": f"b{n:019d}", "is_new": True}}, separators=(",", ":")) + "\n")
    for n in range(count):
        out.write(json.dumps({"t": 0, "service": "device", "command": "local.add",
                              "payload": {"app_key": "benchapp", "registration_id": f"b{n:019d}", "identifier": "burst",
                                          "content": {"title": "Due", "body": f"reminder {n}"}, "trigger": {"fire_date": due}}},
                             separators=(",", ":")) + "\n")
PY
"$bin/pushbus-replay" run --file "$work/burst.jsonl" --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" --speed max \
    --window 1024 --connections 4 --quiet --json >"$work/burst-load.json"
sleep $(( due - $(date +%s) + 5 + burst / 1000 ))
for _ in $(seq 1 120); do
    if [ "${BURST_AT_STANDIN:-0}" = 1 ]; then
        arrived=$(grep -c 'recv HEADERS' "$work/nghttpd.log" || true)
    else
        arrived=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(
            'SELECT COUNT(*) FROM deliveries WHERE message > ? AND answered_at IS NOT NULL', (int(sys.argv[2]),)).fetchone()[0])" \
            "$work/data/push.sqlite" "$msg_id")
    fi
    [ "$arrived" -ge "$burst" ] && break
    sleep 1
done

# The console at this size (issue 58): each read it makes, timed through the REST API as the app,
# five times each: the estimate of the tag's audience (one count in tagging), the same with AND/NOT,
# the history's first page and its funnel, a device's whole page (its last messages among the app's
# latest 2,000 pushes, the burst's included).
master=$(python3 -c 'import hmac,hashlib,sys; print(hmac.new(open(sys.argv[1]).read().strip().encode(), b"app:benchapp", hashlib.sha256).hexdigest())' "$work/data/server.key")
api="http://127.0.0.1:$((base + 4))"
timed() {  # timed NAME METHOD PATH [BODY]: the slowest of five, in ms, and the last status
    local name=$1 method=$2 path=$3 body=${4:-} worst=0 status=0 seconds
    for _ in 1 2 3 4 5; do
        read -r status seconds < <(curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -u "benchapp:$master" -X "$method" \
            ${body:+-H 'Content-Type: application/json' -d "$body"} "$api$path")
        worst=$(python3 -c "print(max($worst, round($seconds * 1000)))")
    done
    echo "$name $status $worst"
}
{
    timed "estimate: tag bench" POST /v4/audience/estimate '{"to":{"tag":["bench"]}}'
    timed "estimate: tag bench AND bench, NOT none" POST /v4/audience/estimate '{"to":{"tag":["bench"],"tag_and":["bench"],"tag_not":["none"]}}'
    timed "estimate: all" POST /v4/audience/estimate '{"to":"all"}'
    timed "history: first page" GET "/v4/messages?limit=20"
    timed "history: the big push's funnel" GET "/v4/status/detail?message_ids=$msg_id"
    # A device of the tag (replay gives the recorded registrations new IDs): its page lists the big
    # push among the app's latest 2,000, the burst's one-device pushes after it.
    rid=$(pushctl call audience.resolve '{"app_key":"benchapp","tag":["bench"],"limit":1}' | field "v['registration_ids'][0]")
    timed "device: its page" GET "/v4/devices/$rid/detail"
} >"$work/console.txt"

python3 - "$ceiling" "$transport" "$devices" "$sent_at" "$done_at" "$before" "$after" "$work/load.json" "$load_seconds" \
    "$work/nghttpd.log" "$nghttpd_started" "$due" "$burst" "$replicas" "$work/console.txt" "${BURST_AT_STANDIN:-0}" \
    "$work/data/push.sqlite" "$msg_id" "$sent" <<'PY'
import json, re, sys
ceiling, transport = float(sys.argv[1]), float(sys.argv[2] or 0)
devices, sent_at, done_at = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
before, after, load = json.loads(sys.argv[6]), json.loads(sys.argv[7]), json.load(open(sys.argv[8]))
load_seconds, log, started, due, burst, replicas = float(sys.argv[9]), sys.argv[10], float(sys.argv[11]), int(sys.argv[12]), int(sys.argv[13]), sys.argv[14]
seconds = done_at - sent_at
rate = devices / seconds
print(f"| push to a tag of {devices:,} devices, apns replicas {replicas} | value |")
print("| --- | --- |")
print(f"| h2load ceiling against the same nghttpd (1 connection, 100 streams) | {ceiling:,.0f} req/s |")
print(f"| HTTP/2 transport alone (h2probe: the apns sender's HTTP2Client, 100 streams, nothing else running) | {transport:,.0f} req/s ({transport / ceiling:.2f} of the ceiling) |")
print(f"| PushBus: notifications/s (push.send → the last answer) | {rate:,.0f} /s ({rate / ceiling:.2f} of the ceiling) |")
print(f"| time to the last one | {seconds:.1f} s |")
print(f"| sent (the stand-in's 200 recorded) | {int(sys.argv[19]):,} of {devices:,} |")
print(f"| loading the devices (register + tag, replayed) | {load_seconds:.0f} s ({load.get('commands_per_second', 0):,.0f} commands/s) |")
stack_cpu = 0.0
for name in sorted(after):
    cpu = after[name][0] - before.get(name, (0, 0))[0]
    if name != "nghttpd": stack_cpu += cpu
    print(f"| {name}: CPU per notification, peak RSS | {cpu / devices * 1e6:.1f} µs, {after[name][1] / 1024:.0f} MiB |")
print(f"| the stack's CPU per notification, all its processes (nghttpd apart) | {stack_cpu / devices * 1e6:.1f} µs |")
if sys.argv[16] == "1":
    # nghttpd -v: "[id=1] [  0.527] recv HEADERS frame <…>", the time in seconds since it started.
    arrivals, where = [], "arrival at the stand-in (nghttpd -v)"
    for line in open(log, errors="replace"):
        if "recv HEADERS" in line:
            m = re.search(r"\[\s*([0-9]+\.[0-9]+)\] recv HEADERS", line)
            if m: arrivals.append(started + float(m.group(1)))
else:
    import sqlite3
    arrivals = [row[0] for row in sqlite3.connect(sys.argv[17]).execute(
        "SELECT answered_at FROM deliveries WHERE message > ? AND answered_at IS NOT NULL", (int(sys.argv[18]),))]
    where = "the stand-in's answer recorded by push"
late = sorted(max(0.0, a - due) for a in arrivals)
if late:
    p = lambda q: late[min(len(late) - 1, int(q * len(late)))]
    print(f"| burst of {burst:,} local notifications due in one second: answered | {len(late):,} |")
    print(f"| lateness from due time to {where}, p50 / p99 / max | {p(0.5) * 1000:.0f} / {p(0.99) * 1000:.0f} / {late[-1] * 1000:.0f} ms |")
# The console's reads at this size (target: each under a second).
for line in open(sys.argv[15]):
    name, status, worst = line.rsplit(" ", 2)
    print(f"| console: {name} (slowest of 5; HTTP {status}) | {int(worst):,} ms |")
PY
