"""Devices on the PushBus device channel, driven by Python's `websockets` (an implementation that
shares no code with the server), and an app server pushing through the REST API.

Usage: device_check.py <config.json> <scenario>...

The config names the channel's ws:// URL, the REST API's base URL, the app's key and master
secret, and devices (registration ID and device secret). Each scenario checks its own expectations
and raises on the first that fails; the last line printed on success is "ok <scenario>".
"""
import base64
import concurrent.futures
import hashlib
import hmac
import json
import os
import socket
import sys
import threading
import time
import urllib.error
import urllib.request

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

CONFIG = json.load(open(sys.argv[1]))
WS = CONFIG["ws"]
API = CONFIG["api"]
APP = CONFIG["app_key"]
MASTER = CONFIG["master_secret"]
DEVICES = CONFIG["devices"]  # name -> {"rid", "secret"}
# What queue_for_restart left for after_restart.
RESTART_FILE = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "restart-expected.json")


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


# -- the app server's side: the REST API -------------------------------------------------------

def rest(method, path, body=None):
    auth = base64.b64encode(f"{APP}:{MASTER}".encode()).decode()
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(API + path, data=data, method=method,
                                     headers={"Authorization": "Basic " + auth, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def push(names, body, options=None):
    payload = {"from": "push", "to": {"registration_id": [DEVICES[n]["rid"] for n in names]},
               "body": dict(body, platform="all")}
    if options:
        payload["body"]["options"] = options
    status, answer = rest("POST", "/v4/push", payload)
    expect(status == 200 and "msg_id" in answer, f"push refused: {status} {answer}")
    return answer["msg_id"]


def message(text, **options):
    return push_message(["a"], text, options)


def push_message(names, text, options=None):
    return push(names, {"message": {"msg_content": text, "title": "T", "extras": {"k": "v"}}}, options)


def online(name):
    status, answer = rest("POST", "/v4/devices/status", {"registration_ids": [DEVICES[name]["rid"]]})
    expect(status == 200, f"devices/status: {status} {answer}")
    return answer[0]


def eventually(check, seconds=10, message="condition never held"):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise Failure(message)


# -- a device ----------------------------------------------------------------------------------

def hello(name, ts=None, secret=None, nonce=None):
    device = DEVICES[name]
    payload = json.dumps({"app_key": APP, "registration_id": device["rid"], "ts": int(ts if ts is not None else time.time()),
                          "nonce": nonce or os.urandom(8).hex()})
    signature = hmac.new((secret or device["secret"]).encode(), b"channel.hello\n" + payload.encode(), hashlib.sha256).hexdigest()
    return payload, f"v1 device:{device['rid']} {signature}"


class Device:
    """One connection of a device: hello, then messages in and reports out; to `url` (the config's
    channel unless another channel process is named)."""

    def __init__(self, name, frames=None, url=None):
        self.name = name
        # A deep queue: a test that reads late must not stop the client answering pings.
        self.ws = connect(url or WS, open_timeout=5, close_timeout=2, max_size=2 ** 22, max_queue=4096)
        for frame in hello(name) if frames is None else frames:
            self.ws.send(frame)

    def welcome(self):
        frame = json.loads(self.ws.recv(timeout=5))
        expect(frame == {"type": "welcome"}, f"{self.name}: expected welcome, got {frame}")
        return self

    def next(self, timeout=5):
        return json.loads(self.ws.recv(timeout=timeout))

    def nothing(self, seconds=1.0):
        try:
            frame = self.ws.recv(timeout=seconds)
        except TimeoutError:
            return
        raise Failure(f"{self.name}: expected nothing, got {frame}")

    def closed_with(self, code, timeout=5):
        deadline = time.time() + timeout
        try:
            while time.time() < deadline:
                self.ws.recv(timeout=max(0.01, deadline - time.time()))
        except ConnectionClosed as closed:
            got = closed.rcvd.code if closed.rcvd else None
            expect(got == code, f"{self.name}: expected close {code}, got {got} ({closed.rcvd})")
            return closed.rcvd.reason
        except TimeoutError:
            pass
        raise Failure(f"{self.name}: expected close {code}, the connection stayed open")

    def send(self, **frame):
        self.ws.send(json.dumps(frame))

    def ack(self, msg_id):
        self.send(type="ack", msg_id=msg_id)

    def close(self):
        self.ws.close()


def open_device(name):
    return Device(name).welcome()


# -- scenarios -----------------------------------------------------------------------------------

def live():
    """A message pushed after connecting arrives at once with its fields, and its ack counts received once."""
    a = open_device("a")
    msg_id = push_message(["a"], "hello live")
    frame = a.next()
    expect(frame["type"] == "message" and frame["kind"] == "message" and frame["msg_id"] == msg_id, f"frame: {frame}")
    expect(frame["msg_content"] == "hello live" and frame["title"] == "T" and frame["extras"] == {"k": "v"}, f"fields: {frame}")
    expect(frame["_j_msgid"] == msg_id, f"_j_msgid: {frame}")
    a.ack(msg_id)
    a.ack(msg_id)

    def received_once():
        status, answer = rest("GET", f"/v4/status/detail?message_ids={msg_id}")
        return status == 200 and (answer.get(msg_id) or {}).get("received") == 1
    eventually(received_once, 10, "the ack never counted as received once")
    a.close()


def offline():
    """Messages pushed while offline arrive on reconnect, in order and once; an expired one does not."""
    a = open_device("a")
    a.close()
    eventually(lambda: not online("a")["online"], 5, "a still online after closing")
    first = push_message(["a"], "one")
    expiring = push_message(["a"], "short-lived", {"time_to_live": 1})
    second = push_message(["a"], "two")
    time.sleep(2.2)
    a = open_device("a")
    got = [a.next()["msg_id"], a.next()["msg_id"]]
    expect(got == [first, second], f"expected {[first, second]} in order, got {got} (expired {expiring})")
    a.nothing(0.7)
    a.ack(first)
    time.sleep(0.3)
    a.close()
    a = open_device("a")
    expect(a.next()["msg_id"] == second, "the unacknowledged message was not sent again")
    a.nothing(0.7)
    a.ack(second)
    time.sleep(0.3)
    a.close()
    a = open_device("a")
    a.nothing(1.0)
    a.close()


def ttl_zero():
    """time_to_live 0 reaches a connected device and not one that connects later."""
    a = open_device("a")
    msg_id = push_message(["a", "b"], "now or never", {"time_to_live": 0})
    expect(a.next()["msg_id"] == msg_id, "the connected device missed it")
    a.ack(msg_id)
    b = open_device("b")
    b.nothing(1.0)
    a.close()
    b.close()


def inapp():
    """An in-app message shows only on a target page, once per device; shows and clicks are reported."""
    a = open_device("a")
    msg_id = push(["a"], {"inapp_message": {"type": "banner", "title": "Sale", "content": "50% off", "target": ["home", "cart"],
                                            "click_action": {"url": "app://sale"}, "extras": {"campaign": "x"}}})
    a.nothing(0.8)
    a.send(type="page", event="enter", page="settings")
    a.nothing(0.8)
    a.send(type="page", event="leave", page="settings")
    a.send(type="page", event="enter", page="home")
    frame = a.next()
    expect(frame["kind"] == "inapp" and frame["msg_id"] == msg_id and frame["inapp_type"] == "banner", f"in-app frame: {frame}")
    expect(frame["title"] == "Sale" and frame["target"] == ["home", "cart"] and frame["click_action"] == {"url": "app://sale"}, f"fields: {frame}")
    a.send(type="inapp", event="show", msg_id=msg_id)
    a.send(type="inapp", event="click", msg_id=msg_id)
    a.ack(msg_id)
    a.send(type="page", event="leave", page="home")
    a.send(type="page", event="enter", page="cart")
    a.nothing(0.8)
    a.close()
    a = open_device("a")
    a.send(type="page", event="enter", page="home")
    a.nothing(0.8)
    a.close()
    print(json.dumps({"inapp_msg_id": msg_id}))


def reminder():
    """A notification with notification_reminder goes to a device with notifications off over the channel."""
    a = open_device("a")
    b = open_device("b")
    a.send(type="authorization", status="denied")
    b.send(type="authorization", status="granted")
    time.sleep(0.5)
    msg_id = push(["a", "b"], {"notification": {"ios": {"alert": {"title": "Hi", "body": "remember"}, "extras": {"r": 1}}}},
                  {"notification_reminder": True})
    frame = a.next()
    expect(frame["kind"] == "reminder" and frame["msg_id"] == msg_id, f"reminder frame: {frame}")
    expect(frame["aps"]["alert"] == {"title": "Hi", "body": "remember"} and frame["r"] == 1, f"reminder fields: {frame}")
    a.ack(msg_id)
    b.nothing(1.0)
    a.close()
    b.close()
    print(json.dumps({"reminder_msg_id": msg_id}))


def status():
    """devices/status follows connects and disconnects."""
    a = open_device("a")
    eventually(lambda: online("a")["online"], 5, "a never online")
    a.close()
    eventually(lambda: not online("a")["online"], 5, "a still online after closing")
    expect(online("a")["last_online_time"], "no last_online_time after a connection")


def refusals():
    """A missing, forged, stale or replayed proof is refused with its close code before anything is sent."""
    payload, _ = hello("a")
    expect(Device("a", [payload, "not a proof"]).closed_with(4400), "missing proof")
    expect(Device("a", hello("a", secret="0" * 64)).closed_with(4401), "forged")
    expect(Device("a", hello("a", ts=time.time() - 3600)).closed_with(4408), "stale")
    frames = hello("a")
    Device("a", frames).welcome().close()
    expect(Device("a", frames).closed_with(4409), "replayed")
    expect("hello" in Device("a", []).closed_with(4400, timeout=8), "no hello in time")
    expect(Device("gone", hello("gone")).closed_with(4410), "deleted device")


def replace():
    """A second connection of the same device replaces the first."""
    first = open_device("a")
    second = open_device("a")
    first.closed_with(4001)
    msg_id = push_message(["a"], "to the newer one")
    expect(second.next()["msg_id"] == msg_id, "the newer connection missed the message")
    second.ack(msg_id)
    second.close()


def raw_connection(name=None, receive_buffer=None):
    """A WebSocket by hand over a socket that the test reads only when it wants to."""
    host, port = WS.split("//")[1].split("/")[0].split(":")
    sock = socket.socket()
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.connect((host, int(port)))
    sock.sendall((f"GET /v1/channel HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sock.recv(1)
    expect(answer.startswith(b"HTTP/1.1 101"), f"handshake: {answer}")
    if name:
        for frame in hello(name):
            sock.sendall(masked(frame.encode()))
        welcome = b""
        while b'{"type":"welcome"}' not in welcome:
            chunk = sock.recv(64)
            expect(chunk, f"{name}: closed before its welcome: {welcome}")
            welcome += chunk
    return sock


def masked(payload, opcode=0x1):
    mask = os.urandom(4)
    header = bytes([0x80 | opcode])
    if len(payload) < 126:
        header += bytes([0x80 | len(payload)])
    elif len(payload) < 65536:
        header += bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
    else:
        header += bytes([0x80 | 127]) + len(payload).to_bytes(8, "big")
    return header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def close_code(sock, timeout=5):
    """Reads frames until a close frame; its code (None when the socket just ends)."""
    sock.settimeout(timeout)
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
        while len(data) >= 2:
            length = data[1] & 0x7F
            offset = 2
            if length == 126:
                length, offset = int.from_bytes(data[2:4], "big"), 4
            elif length == 127:
                length, offset = int.from_bytes(data[2:10], "big"), 10
            if len(data) < offset + length:
                break
            opcode, body = data[0] & 0x0F, data[offset:offset + length]
            data = data[offset + length:]
            if opcode == 0x8:
                return int.from_bytes(body[:2], "big") if len(body) >= 2 else None


def bad_input():
    """Oversized, binary, flooding and slow connections are closed with a code; another device is unaffected."""
    bystander = open_device("b")
    big = raw_connection("a")
    big.sendall(masked(b"x" * 100_000))
    expect(close_code(big) == 1009, "oversized frame not closed with 1009")
    binary = raw_connection("a")
    binary.sendall(masked(os.urandom(64), opcode=0x2))
    expect(close_code(binary) == 1003, "binary frame not closed with 1003")
    garbage = raw_connection()
    garbage.sendall(os.urandom(4096))
    expect(close_code(garbage) in (1002, 1009, None), "garbage not refused")
    flood = raw_connection("a")
    for _ in range(400):
        flood.sendall(masked(b'{"type":"page","event":"enter","page":"p"}'))
    expect(close_code(flood) == 1008, "a flood of frames not closed with 1008")
    time.sleep(0.5)
    slow = raw_connection("a", receive_buffer=4096)
    # It sends (so the heartbeat finds it alive) but never reads, while messages pile up for it.
    reading = threading.Event()

    def keep_sending():
        while not reading.is_set():
            slow.sendall(masked(b'{"type":"page","event":"enter","page":"p"}'))
            time.sleep(0.25)
    sender = threading.Thread(target=keep_sending)
    sender.start()
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda n: push_message(["a"], f"{n:04d}" + "y" * 3000), range(120)))
    # The bystander still gets its messages while the slow reader's queue fills.
    msg_id = push_message(["b"], "still here")
    expect(bystander.next()["msg_id"] == msg_id, "the bystander was held up")
    bystander.ack(msg_id)
    reading.set()
    sender.join()
    # Its close frame waits behind what fills the socket's buffers, and the server stops waiting
    # for a reader that does not read: the code reaches it only if it reads in time. The server
    # logs the 1008 (checked by the Swift test); here, the connection must end.
    code = close_code(slow, timeout=15)
    expect(code in (1008, None), f"the slow reader was closed with {code}, not 1008")
    bystander.close()


def heartbeat():
    """A device that stops answering pings is dropped as dead and shows offline."""
    dead = raw_connection("a")
    dead.settimeout(5)
    eventually(lambda: online("a")["online"], 5, "a never online")
    # Never read again (pings go unanswered): the server must give up on it.
    eventually(lambda: not online("a")["online"], 10, "a dead connection still counted online")
    dead.close()


def drain():
    """A long backlog (the slow reader's) arrives in parts as it is acknowledged, each message once."""
    a = open_device("a")
    seen, unacked, quiet = [], [], 0.0
    while quiet < 2.0:
        try:
            frame = a.next(timeout=0.2)
            seen.append(frame["msg_id"])
            unacked.append(frame["msg_id"])
            quiet = 0.0
        except TimeoutError:
            quiet += 0.2
            if unacked:
                a.send(type="ack", msg_ids=unacked)
                unacked = []
    expect(len(seen) >= 120 and len(set(seen)) == len(seen), f"the backlog: {len(seen)} messages, {len(set(seen))} distinct")
    a.close()


def across_processes():
    """Two channel processes: a device connected to the one that does not own its mailbox gets its
    messages, live and after reconnecting to either, and a second connection on the other process
    replaces the first."""
    urls = CONFIG["ws_by_shard"]
    elsewhere = lambda name: urls[1 - DEVICES[name]["shard"]]
    home = lambda name: urls[DEVICES[name]["shard"]]
    a = Device("a", url=elsewhere("a")).welcome()
    b = Device("b", url=elsewhere("b")).welcome()
    msg_id = push_message(["a", "b"], "across")
    for device in (a, b):
        expect(device.next()["msg_id"] == msg_id, f"{device.name} missed the message on the other process")
        device.ack(msg_id)
    eventually(lambda: online("a")["online"] and online("b")["online"], 5, "not online across processes")
    a.close()
    time.sleep(0.3)
    waiting = push_message(["a"], "while away")
    a = Device("a", url=home("a")).welcome()
    expect(a.next()["msg_id"] == waiting, "the backlog missed on the home process")
    a.ack(waiting)
    again = Device("a", url=elsewhere("a")).welcome()
    a.closed_with(4001)
    later = push_message(["a"], "to the newer connection")
    expect(again.next()["msg_id"] == later, "the newer connection on the other process missed it")
    again.ack(later)
    again.close()
    b.close()


def hold():
    """Keeps b connected for a while (the test kills the channel meanwhile)."""
    b = open_device("b")
    print("holding", flush=True)
    time.sleep(30)
    b.close()


def offline_after_restart():
    """A device whose connection died with the channel process is offline once it restarted."""
    eventually(lambda: not online("b")["online"], 10, "b still online after its channel process was killed")


def report_flood():
    """Devices sending reports as fast as their frame rate allows are told to slow down, and another
    device still connects at once."""
    flooders = [open_device(name) for name in CONFIG["flooders"]]
    told = 0
    for device in flooders:
        for n in range(60):
            device.send(type="page", event="enter", page=f"p{n}")
    for device in flooders:
        try:
            while True:
                frame = device.next(timeout=0.3)
                told += frame.get("type") == "error" and "too many reports" in frame.get("message", "")
        except TimeoutError:
            pass
    expect(told >= len(flooders) * 40, f"only {told} reports were refused as too many")
    started = time.time()
    a = open_device("a")
    waited = time.time() - started
    expect(waited < 2.0, f"a waited {waited:.1f} s for its welcome behind the flood")
    for device in flooders + [a]:
        device.close()


def queue_for_restart():
    """Before a channel restart: one message waits for an offline device, one was sent but not acknowledged."""
    a = open_device("a")
    unacked = push_message(["a"], "sent, never acked")
    expect(a.next()["msg_id"] == unacked, "a missed the first message")
    a.close()
    waiting = push_message(["a"], "waiting while offline")
    with open(RESTART_FILE, "w") as file:
        json.dump({"unacked": unacked, "waiting": waiting}, file)


def after_restart():
    """After the restart both arrive, in order."""
    expected = json.load(open(RESTART_FILE))
    a = open_device("a")
    got = [a.next(timeout=10)["msg_id"], a.next(timeout=10)["msg_id"]]
    expect(got == [expected["unacked"], expected["waiting"]], f"after the restart: {got}, expected {expected}")
    for msg_id in got:
        a.ack(msg_id)
    a.close()


SCENARIOS = {f.__name__: f for f in [live, offline, ttl_zero, inapp, reminder, status, refusals, replace, bad_input, heartbeat, drain, across_processes, hold, offline_after_restart, report_flood,
                                     queue_for_restart, after_restart]}

if __name__ == "__main__":
    for name in sys.argv[2:]:
        try:
            SCENARIOS[name]()
        except Failure as failure:
            print(f"FAILED {name}: {failure}")
            sys.exit(1)
        print(f"ok {name}")
