#!/usr/bin/env bash
# The device channel benchmark of docs/benchmarks.md ("channel"): DEVICES WebSocket connections
# held at once by two channel processes sharing base port + 5 (SO_REUSEPORT; each within this
# machine's open-file limit), opened by HOLDERS load-client processes (bench-channel, one epoll
# loop each). Reports the channel processes' memory per connection, then pushes one custom
# message to the whole app through the REST API and reports the time from the push to each
# device's receipt (p50, p99, last) and the load client's CPU time.
# Usage: bench-channel.sh [DEVICES] [HOLDERS] (defaults 20000 2)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/.build/release
devices=${1:-20000}
holders=${2:-2}
base=18755
work=$(mktemp -d /var/tmp/bench-channel.XXXXXX)
trap 'pkill -f "bench-channel $((base + 5))" 2>/dev/null || true; pkill -INT -f "pushbus --base-port $base" 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

PUSHBUS_REGISTER_RATE=0 PUSHBUS_APP_QUOTA=0 "$bin/pushbus" --base-port "$base" --data-dir "$work/data" \
    --services registration,tagging,analytics,push,channel --shards channel=2 --log-level warning >"$work/stack.log" 2>&1 &
for _ in $(seq 1 600); do grep -q "pushbus: ready" "$work/stack.log" && break; sleep 0.1; done
grep -q "pushbus: ready" "$work/stack.log" || { echo "stack did not start" >&2; cat "$work/stack.log" >&2; exit 1; }

pushctl() { "$bin/pushctl" --endpoint "tcp://127.0.0.1:$base" --data-dir "$work/data" --json "$@"; }
secret=$(pushctl call app.create '{"name":"bench","app_key":"benchapp"}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["master_secret"])')

# Devices registered over MDP, 512 in flight; "registration_id device_secret" lines.
python3 - "$base" "$devices" "$work/devices.txt" <<'PY'
import json, sys, zmq
port, count, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
socket = zmq.Context().socket(zmq.DEALER)
socket.connect(f"tcp://127.0.0.1:{port}")
sent, lines = 0, []
while len(lines) < count:
    while sent < count and sent - len(lines) < 512:
        payload = {"app_key": "benchapp", "platform": "ios", "device_id": f"bench-{sent}"}
        socket.send_multipart([b"", b"MDPC01", b"device", b"device.register", json.dumps(payload).encode()])
        sent += 1
    reply = json.loads(socket.recv_multipart()[-1])
    assert reply["code"] == 0, reply
    lines.append(f'{reply["registration_id"]} {reply["device_secret"]}')
open(path, "w").write("\n".join(lines) + "\n")
PY
for _ in $(seq 1 600); do
    known=$(pushctl call audience.resolve '{"app_key":"benchapp","all":true,"limit":1}' | python3 -c 'import json,sys; print(json.load(sys.stdin).get("total", 0))')
    [ "$known" -ge "$devices" ] && break
    sleep 0.2
done

channels=$(pgrep -f "/channel --endpoint .*--data-dir $work/data" | tr "\n" " ")
rss() { local total=0; for pid in $channels; do total=$((total + $(awk '/VmRSS/ {print $2}' /proc/$pid/status))); done; echo $total; }
before=$(rss)
per=$(( (devices + holders - 1) / holders ))
for i in $(seq 0 $((holders - 1))); do
    "$bin/bench-channel" $((base + 5)) benchapp "$work/devices.txt" $((i * per)) $per 60 >"$work/holder$i.out" 2>&1 &
done
for i in $(seq 0 $((holders - 1))); do
    for _ in $(seq 1 1200); do grep -q "^ready" "$work/holder$i.out" && break; sleep 0.1; done
    head -1 "$work/holder$i.out"
done
after=$(rss)
echo "channel processes ($channels): RSS $((before / 1024)) MiB before, $((after / 1024)) MiB with the connections open"

stack=$(pgrep -f -- "--data-dir $work/data" | tr "\n" " ")
python3 - "$base" "$secret" "$work" "$holders" "$devices" "$before" "$after" "$stack" <<'PY'
import base64, glob, http.client, json, os, sys, time
port, secret, work, holders, devices = int(sys.argv[1]) + 4, sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
before, after, stack = int(sys.argv[6]), int(sys.argv[7]), sys.argv[8].split()

def cpu():
    """CPU seconds so far of each stack process, by executable name (channel#2 for the second channel)."""
    seen = {}
    for pid in stack:
        try:
            name = os.path.basename(open(f"/proc/{pid}/cmdline").read().split("\0")[0])
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        key = name if name not in seen else f"{name}#2"
        seen[key] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return seen
cpu_before = cpu()
body = json.dumps({"from": "push", "to": "all", "body": {"platform": "all", "message": {"msg_content": "to every device", "title": "bench"}}})
connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
auth = base64.b64encode(f"benchapp:{secret}".encode()).decode()
pushed = time.time()
connection.request("POST", "/v4/push", body, {"Authorization": "Basic " + auth, "Content-Type": "application/json"})
answer = connection.getresponse()
assert answer.status == 200, answer.read()
summaries = []
deadline = time.time() + 120
while len(summaries) < holders and time.time() < deadline:
    summaries = [json.loads(line) for path in glob.glob(f"{work}/holder*.out") for line in open(path) if line.startswith("{")]
    time.sleep(0.2)
times = sorted(t - pushed for s in summaries for t in s["times"])
ready = sum(s["ready"] for s in summaries)
client_cpu = sum(s["cpu_seconds"] for s in summaries)
quantile = lambda q: times[min(len(times) - 1, int(q * len(times)))] * 1000
print(f"connections held: {ready} of {devices}; memory per connection (channel RSS growth / connections): {(after - before) * 1024 / max(1, ready):.0f} bytes")
print(f"one custom message to all: received by {len(times)} of {ready}; push to receipt p50 {quantile(0.5):.0f} ms, "
      f"p99 {quantile(0.99):.0f} ms, last {times[-1] * 1000:.0f} ms")
print(f"load client: {holders} processes, {client_cpu:.1f} s CPU in all (connecting, the hellos, receiving and acknowledging)")
cpu_after = cpu()
print("CPU seconds from the push to the last receipt: " + ", ".join(
    f"{name} {cpu_after[name] - cpu_before.get(name, 0):.1f}" for name in sorted(cpu_after) if name != "pushbus"))
PY
