#!/usr/bin/env python3
"""A phone on PushBus's device edge, written from DESIGN.md ("The device edge", "The device channel")
with Python's http.client, pyzmq and websockets only: it shares no code with PushBus.

Usage: edge_check.py CONFIG PHASE
CONFIG is a JSON file: {"edge": "http://127.0.0.1:P" or "https://localhost:P", "ca": CA file or null,
"bus": "tcp://127.0.0.1:P", "app_key": "...", "channel": "ws(s)://.../v1/channel" or null,
"second_address": "127.0.0.2"}.
PHASE: flow (every command, the bus's replies, the refusals), flood (unsigned registrations from one
address), channel (requests on an open channel connection), down (one request while the gateway is
stopped; prints the status and body). Exits 0 when every check holds, 1 naming the first that did not.
"""
import hashlib
import hmac
import http.client
import json
import os
import secrets
import ssl
import sys
import threading
import time
import urllib.parse

import zmq

CONFIG = json.load(open(sys.argv[1]))
APP = CONFIG["app_key"]
EDGE = urllib.parse.urlsplit(CONFIG["edge"])


class Failure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failure(message)


# -- the edge over HTTP(S) -------------------------------------------------------------------------

def tls_context():
    context = ssl.create_default_context(cafile=CONFIG["ca"]) if CONFIG.get("ca") else None
    return context


def connection(source=None):
    address = (source, 0) if source else None
    if EDGE.scheme == "https":
        return http.client.HTTPSConnection(EDGE.hostname, EDGE.port, timeout=20, context=tls_context(), source_address=address)
    return http.client.HTTPConnection(EDGE.hostname, EDGE.port, timeout=20, source_address=address)


class Edge:
    """One keep-alive connection to the edge: every request of a phase goes on it."""

    def __init__(self, source=None):
        self.conn = connection(source)
        self.requests = 0

    def raw(self, method, path, body=b"", headers=None):
        self.conn.request(method, path, body=body, headers=headers or {})
        response = self.conn.getresponse()
        data = response.read()
        self.requests += 1
        try:
            parsed = json.loads(data) if data else None
        except ValueError:
            parsed = data
        return response.status, parsed, dict((k.lower(), v) for k, v in response.getheaders())

    def post(self, command, payload_text, proof=None):
        headers = {"Content-Type": "application/json"}
        if proof is not None:
            headers["X-PushBus-Proof"] = proof
        status, body, _ = self.raw("POST", "/v1/device/" + command, payload_text.encode(), headers)
        return status, body


def signed(command, rid, secret, fields):
    """The payload text with ts and nonce, and its proof: DESIGN.md's bus proof frame."""
    payload = json.dumps(dict(fields, ts=int(time.time()), nonce=secrets.token_hex(8)))
    signature = hmac.new(secret.encode(), (command + "\n" + payload).encode(), hashlib.sha256).hexdigest()
    return payload, f"v1 device:{rid} {signature}"


# -- the bus, for the same requests ---------------------------------------------------------------

class Bus:
    def __init__(self):
        self.context = zmq.Context()
        self.socket = self.context.socket(zmq.REQ)
        self.socket.setsockopt(zmq.RCVTIMEO, 10000)
        self.socket.setsockopt(zmq.LINGER, 0)
        self.socket.connect(CONFIG["bus"])

    def request(self, command, payload_text, proof=None):
        body = [command.encode(), payload_text.encode()] + ([proof.encode()] if proof else [])
        self.socket.send_multipart([b"MDPC01", b"device"] + body)
        header, service, reply = self.socket.recv_multipart()
        expect(header == b"MDPC01" and service == b"device", f"bus answered {header} {service}")
        return json.loads(reply)


def register(edge, device_id, source=None):
    status, body = edge.post("device.register", json.dumps({"app_key": APP, "platform": "ios", "device_id": device_id}))
    expect(status == 200 and body.get("code") == 0, f"register {device_id}: {status} {body}")
    return body["registration_id"], body["device_secret"]


def without_seq(reply):
    return {k: v for k, v in reply.items() if k != "seq"}


# -- phases ---------------------------------------------------------------------------------------

def flow():
    edge, bus = Edge(), Bus()
    rid, secret = register(edge, "edge-phone-1")
    base = {"app_key": APP, "registration_id": rid}

    # Every device command of the issue, the same request over the bus and then over the edge (a
    # new ts and nonce each, so neither is a replay): the replies are the same.
    euid_probe = bus.request("ma.start", *signed("ma.start", rid, secret, dict(base, device_id="edge-phone-1")))
    expect(euid_probe.get("code") == 0, f"ma.start over the bus: {euid_probe}")
    commands = [
        ("tags.add", dict(base, tags=["news", "sports"])),
        ("alias.set", dict(base, alias="edge_owner")),
        ("badge.set", dict(base, value=7)),
        ("local.add", dict(base, identifier="wake", content={"title": "Wake", "body": "up"}, trigger={"time_interval": 3600})),
        ("page.enter", dict(base, page="home")),
        ("ma.start", dict(base, device_id="edge-phone-1")),
        ("ma.events", dict(base, euid=euid_probe["euid"], events=[{"name": "buy", "properties": {"sku": "a1"}, "time": "2026-01-01T10:00:00Z"}])),
        ("stats.report", dict(base, kind="page_enter", page="home")),
        ("tags.get", base),
        ("alias.get", base),
        ("badge.get", base),
        ("device.update", dict(base, language="fr")),
    ]
    for command, fields in commands:
        over_bus = bus.request(command, *signed(command, rid, secret, fields))
        status, over_edge = edge.post(command, *signed(command, rid, secret, fields))
        expect(status == 200, f"{command} over the edge: HTTP {status} {over_edge}")
        if command == "local.add":
            # Added again, the notification's next fire time moves on by the seconds between the two.
            over_bus.pop("next_fire_at", None)
            over_edge.pop("next_fire_at", None)
        expect(without_seq(over_edge) == without_seq(over_bus), f"{command}: edge {over_edge} != bus {over_bus}")
        expect(over_edge.get("code") == 0, f"{command}: {over_edge}")

    # The seed's codes come back unchanged, with HTTP 200.
    status, body = edge.post("tags.add", *signed("tags.add", rid, secret, dict(base, tags=["not a tag!"])))
    expect(status == 200 and body.get("code") == 6005, f"an invalid tag: {status} {body}")
    limited_rid, limited_secret = register(edge, "edge-phone-rate")
    limited = {"app_key": APP, "registration_id": limited_rid}
    codes = []
    for index in range(11):
        status, body = edge.post("tags.set", *signed("tags.set", limited_rid, limited_secret, dict(limited, tags=[f"t{index}"])))
        expect(status == 200, f"tags.set {index}: HTTP {status}")
        codes.append(body.get("code"))
    expect(codes[:10] == [0] * 10 and codes[10] == 6011, f"the 11th set in 10 s is too frequent: {codes}")

    # A replayed proof: refused, and what it would have stored is not stored.
    once = signed("tags.add", rid, secret, dict(base, tags=["replayed"]))
    status, body = edge.post("tags.add", *once)
    expect(status == 200 and body.get("code") == 0, f"tags.add before the replay: {body}")
    status, body = edge.post("tags.delete", *signed("tags.delete", rid, secret, dict(base, tags=["replayed"])))
    expect(body.get("code") == 0, f"tags.delete: {body}")
    status, body = edge.post("tags.add", *once)
    expect(status == 200 and body.get("code") == 1008, f"a replayed proof: {status} {body}")
    status, body = edge.post("tags.get", *signed("tags.get", rid, secret, base))
    expect("replayed" not in body.get("tags", []), f"the replay stored its tag: {body}")

    # A proof from another device: device 2 signs a payload naming device 1.
    other_rid, other_secret = register(edge, "edge-phone-2")
    payload = json.dumps(dict(base, tags=["forged"], ts=int(time.time()), nonce=secrets.token_hex(8)))
    forged = hmac.new(other_secret.encode(), ("tags.add\n" + payload).encode(), hashlib.sha256).hexdigest()
    status, body = edge.post("tags.add", payload, f"v1 device:{other_rid} {forged}")
    expect(status == 200 and body.get("code") == 1008, f"another device's proof: {status} {body}")
    # Device 1's name on device 2's signature.
    status, body = edge.post("tags.add", payload, f"v1 device:{rid} {forged}")
    expect(status == 200 and body.get("code") == 1008, f"a signature under another key: {status} {body}")
    status, body = edge.post("tags.get", *signed("tags.get", rid, secret, base))
    expect("forged" not in body.get("tags", []), f"a forged request stored its tag: {body}")

    # No proof at all: the edge signs nothing, so the gateway refuses it, even for a device this
    # very edge has just registered (it must not have kept the secret it relayed).
    status, body = edge.post("tags.add", json.dumps(dict(base, tags=["unsigned"], ts=int(time.time()), nonce=secrets.token_hex(8))))
    expect(status == 200 and body.get("code") == 1008, f"an unsigned tags.add: {status} {body}")
    status, body = edge.post("tags.get", *signed("tags.get", rid, secret, base))
    expect("unsigned" not in body.get("tags", []), f"an unsigned request stored its tag: {body}")

    # A deleted device: its proofs are refused, and nothing is stored.
    doomed_rid, doomed_secret = register(edge, "edge-phone-doomed")
    doomed = {"app_key": APP, "registration_id": doomed_rid}
    status, body = edge.post("device.delete", *signed("device.delete", doomed_rid, doomed_secret, doomed))
    expect(body.get("code") == 0, f"device.delete: {body}")
    deadline = time.time() + 30
    while True:
        status, body = edge.post("badge.set", *signed("badge.set", doomed_rid, doomed_secret, dict(doomed, value=3)))
        if body.get("code") == 1008 or time.time() > deadline:
            break
        time.sleep(0.2)
    expect(status == 200 and body.get("code") == 1008, f"a deleted device's proof: {status} {body}")

    # Re-registration, signed: the same registration ID back.
    status, body = edge.post("device.register", *signed("device.register", rid, secret,
                                                         {"app_key": APP, "platform": "ios", "device_id": "edge-phone-1", "registration_id": rid}))
    expect(status == 200 and body.get("code") == 0 and body.get("registration_id") == rid and body.get("is_new") is False,
           f"a signed re-registration: {status} {body}")
    # The same install unsigned is refused (the install is registered) and reveals nothing.
    status, body = edge.post("device.register", json.dumps({"app_key": APP, "platform": "ios", "device_id": "edge-phone-1"}))
    expect(status == 200 and body.get("code") == 1008 and "device_secret" not in body, f"an unsigned re-registration: {status} {body}")

    # What the bus never sees: an unknown command, a non-device command, malformed JSON, a body too
    # large, another method, a malformed proof. Each with a JSON body carrying the SDK code.
    status, body = edge.post("no.such", "{}")
    expect(status == 404 and body.get("code") == 6017, f"an unknown command: {status} {body}")
    status, body = edge.post("push.send", "{}")
    expect(status == 404 and body.get("code") == 6017, f"an app's command on the device edge: {status} {body}")
    status, body = edge.post("live.push", "{}")
    expect(status == 404 and body.get("code") == 6017, f"an internal command on the device edge: {status} {body}")
    status, body = edge.post("tags.add", "{not json")
    expect(status == 400 and body.get("code") == 6017, f"malformed JSON: {status} {body}")
    status, body = edge.post("tags.add", "[1, 2]")
    expect(status == 400 and body.get("code") == 6017, f"a JSON array: {status} {body}")
    status, body = edge.post("tags.add", json.dumps(dict(base, tags=["x" * 30] * 4000)))
    expect(status == 413 and body.get("code") == 6017, f"an oversize body: {status} {body}")
    status, body, headers = edge.raw("GET", "/v1/device/tags.get")
    expect(status == 405 and body.get("code") == 6017 and headers.get("allow") == "POST", f"GET: {status} {body} {headers}")
    status, body = edge.post("tags.get", *signed("tags.get", rid, secret, base)[:1], "v2 nonsense\u00e9")
    expect(status == 400 and body.get("code") == 6017, f"a malformed proof: {status} {body}")
    # The app's own proof: good on the bus and the REST API, but the edge is for devices only, so a
    # master secret leaked from a server is no key to the public edge.
    payload = json.dumps(dict(base, ts=int(time.time()), nonce=secrets.token_hex(8)))
    app_proof = hmac.new(CONFIG["master_secret"].encode(), ("tags.get\n" + payload).encode(), hashlib.sha256).hexdigest()
    status, body = edge.post("tags.get", payload, f"v1 app:{APP} {app_proof}")
    expect(status == 400 and body.get("code") == 6017, f"an app's proof on the device edge: {status} {body}")

    # Everything above went on one connection.
    status, body = edge.post("badge.get", *signed("badge.get", rid, secret, base))
    expect(status == 200 and body.get("value") == 7, f"the last request on the kept connection: {status} {body}")
    print(json.dumps({"requests_on_one_connection": edge.requests}))


def flood():
    """5,000 unsigned registrations in about 5 s from one address, while another address registers."""
    counts = {"ok": 0, "429": 0, "other": 0}
    lock = threading.Lock()
    stop = time.time() + 5

    def flooder(worker):
        edge = Edge()
        index = 0
        while time.time() < stop and index < 625:
            # Half of them claim another client address; the edge believes X-Forwarded-For only from
            # its trusted proxies, and this client is none.
            headers = {"Content-Type": "application/json"}
            if index % 2:
                headers["X-Forwarded-For"] = f"198.51.100.{index % 250}"
            status, body, _ = edge.raw("POST", "/v1/device/device.register",
                                       json.dumps({"app_key": APP, "platform": "android", "device_id": f"flood-{worker}-{index}"}).encode(), headers)
            with lock:
                if status == 200 and body.get("code") == 0:
                    counts["ok"] += 1
                elif status == 429 and body.get("code") == 6011:
                    counts["429"] += 1
                else:
                    counts["other"] += 1
                    counts.setdefault("examples", []).append([status, body])
            index += 1

    threads = [threading.Thread(target=flooder, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    time.sleep(1)
    # Meanwhile a phone from another address registers, and keeps working.
    other = Edge(source=CONFIG["second_address"])
    results = []
    for index in range(5):
        status, body = other.post("device.register", json.dumps({"app_key": APP, "platform": "ios", "device_id": f"bystander-{index}"}))
        results.append((status, body.get("code")))
        time.sleep(0.2)
    for thread in threads:
        thread.join()
    attempts = counts["ok"] + counts["429"] + counts["other"]
    print(json.dumps({"flood": counts, "attempts": attempts, "bystander": results}))
    expect(all(result == (200, 0) for result in results), f"the other address was not served: {results}")
    expect(counts["other"] == 0, f"flood answers other than 200/0 or 429/6011: {counts}")
    expect(attempts >= 2000, f"the flood sent only {attempts} requests")
    expect(counts["429"] > 0, f"no flood request was refused: {counts}")


def channel():
    """Requests on an open channel connection, answered in order with their ids."""
    from websockets.sync.client import connect
    edge = Edge()
    rid, secret = register(edge, "edge-channel-phone")
    base = {"app_key": APP, "registration_id": rid}
    ssl_context = tls_context() if CONFIG["channel"].startswith("wss:") else None
    ws = connect(CONFIG["channel"], open_timeout=5, close_timeout=2, ssl=ssl_context)
    hello = json.dumps({"app_key": APP, "registration_id": rid, "ts": int(time.time()), "nonce": secrets.token_hex(8)})
    ws.send(hello)
    ws.send(f"v1 device:{rid} " + hmac.new(secret.encode(), ("channel.hello\n" + hello).encode(), hashlib.sha256).hexdigest())
    welcome = json.loads(ws.recv(timeout=5))
    expect(welcome == {"type": "welcome"}, f"welcome: {welcome}")

    def request(ident, command, fields):
        payload, proof = signed(command, rid, secret, fields)
        ws.send(json.dumps({"type": "request", "id": ident, "command": command, "payload": payload, "proof": proof}))

    request(1, "tags.add", dict(base, tags=["live"]))
    request(2, "badge.set", dict(base, value=4))
    request(3, "tags.get", base)
    replies = [json.loads(ws.recv(timeout=10)) for _ in range(3)]
    by_id = {reply.get("id"): reply for reply in replies}
    expect(all(reply.get("type") == "reply" for reply in replies), f"replies: {replies}")
    expect(sorted(by_id) == [1, 2, 3], f"ids: {replies}")
    expect(by_id[1]["code"] == 0 and by_id[2] == {"type": "reply", "id": 2, "code": 0, "value": 4}, f"replies: {replies}")
    # In order: a reply is sent when the bus answers, and the third asked after the first two.
    request(4, "tags.get", base)
    reply = json.loads(ws.recv(timeout=10))
    expect(reply.get("id") == 4 and "live" in reply.get("tags", []), f"tags.get after tags.add: {reply}")
    # A request the device may not make, or without a proof: answered with its id and a code.
    ws.send(json.dumps({"type": "request", "id": 5, "command": "push.send", "payload": "{}", "proof": "v1 x y"}))
    reply = json.loads(ws.recv(timeout=10))
    expect(reply == {"type": "reply", "id": 5, "code": 6017, "message": reply.get("message")}, f"push.send on the channel: {reply}")
    ws.send(json.dumps({"type": "request", "id": 6, "command": "tags.get", "payload": json.dumps(base)}))
    reply = json.loads(ws.recv(timeout=10))
    expect(reply.get("id") == 6 and reply.get("code") == 1008, f"no proof: {reply}")
    # A replayed request frame: the gateway's replay check holds on the channel too.
    payload, proof = signed("tags.add", rid, secret, dict(base, tags=["twice"]))
    for ident in (7, 8):
        ws.send(json.dumps({"type": "request", "id": ident, "command": "tags.add", "payload": payload, "proof": proof}))
    replies = {reply["id"]: reply for reply in (json.loads(ws.recv(timeout=10)) for _ in range(2))}
    expect(replies[7]["code"] == 0 and replies[8]["code"] == 1008, f"a replayed frame: {replies}")
    ws.close()
    print(json.dumps({"channel_requests": 8}))


def down():
    edge = Edge()
    status, body = edge.post("device.register", json.dumps({"app_key": APP, "platform": "ios", "device_id": "edge-down-" + secrets.token_hex(4)}))
    print(json.dumps({"status": status, "body": body}))


PHASES = {"flow": flow, "flood": flood, "channel": channel, "down": down}

if __name__ == "__main__":
    try:
        PHASES[sys.argv[2]]()
    except Failure as failure:
        print(f"FAILED: {failure}")
        sys.exit(1)
