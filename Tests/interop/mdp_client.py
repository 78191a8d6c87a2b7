#!/usr/bin/env python3
"""A plain MDP/0.1 client written from ZeroMQ RFC 7, sharing no code with PushBus.

Usage: mdp_client.py ENDPOINT
Drives a running gateway: MMI, register, re-register, get. Exits 0 when every answer is right.
Device commands are signed as DESIGN.md fixes it: a third frame `v1 device:<id> <hex HMAC-SHA256>`
over `command + "\n" + payload`, keyed with the device_secret the registration returned.
"""
import hashlib
import hmac
import json
import secrets
import sys
import time

import zmq


def request(socket, service, *body):
    # RFC 7: a REQ client sends [MDPC01, service, body...]; REQ adds the empty delimiter.
    socket.send_multipart([b"MDPC01", service.encode()] + [part.encode() for part in body])
    header, replied_service, *reply = socket.recv_multipart()
    assert header == b"MDPC01", header
    assert replied_service == service.encode(), replied_service
    return reply


def signed(command, registration_id, device_secret, fields):
    payload = json.dumps(dict(fields, ts=int(time.time()), nonce=secrets.token_hex(8)))
    signature = hmac.new(device_secret.encode(), (command + "\n" + payload).encode(), hashlib.sha256).hexdigest()
    return command, payload, f"v1 device:{registration_id} {signature}"


def main(endpoint):
    context = zmq.Context()
    socket = context.socket(zmq.REQ)
    socket.setsockopt(zmq.RCVTIMEO, 5000)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(endpoint)

    assert request(socket, "mmi.service", "registration") == [b"200"]
    assert request(socket, "mmi.service", "no-such-service") == [b"404"]
    assert request(socket, "mmi.unknown") == [b"501"]

    payload = json.dumps({"app_key": "py-app", "platform": "android", "device_id": "py-1", "seq": 9})
    first = json.loads(request(socket, "device", "device.register", payload)[0])
    assert first["code"] == 0 and first["seq"] == 9 and first["is_new"] is True, first
    rid, key = first["registration_id"], first["device_secret"]
    # Registering the install again unsigned is refused and reveals nothing; the device re-registers signed.
    taken = json.loads(request(socket, "device", "device.register", payload)[0])
    assert taken["code"] == 1008 and "registration_id" not in taken and "device_secret" not in taken, taken
    again = json.loads(request(socket, "device", *signed("device.register", rid, key, {
        "app_key": "py-app", "platform": "android", "device_id": "py-1", "registration_id": rid}))[0])
    assert again["registration_id"] == rid and again["is_new"] is False, again

    # Addressing the service directly works as well as the virtual `device` service.
    get = signed("device.get", rid, key, {"app_key": "py-app", "registration_id": rid})
    device = json.loads(request(socket, "registration", *get)[0])
    assert device["code"] == 0 and device["device"]["platform"] == "android", device

    bad = json.loads(request(socket, "device", *signed("device.mobile", rid, key,
                                                      {"app_key": "py-app", "registration_id": rid, "mobile": "12a"}))[0])
    assert bad["code"] == 6023, bad

    unsigned = json.loads(request(socket, "device", "device.get", json.dumps({"app_key": "py-app", "registration_id": rid}))[0])
    assert unsigned["code"] == 1008, unsigned
    forged = signed("device.get", rid, "0" * 64, {"app_key": "py-app", "registration_id": rid})
    assert json.loads(request(socket, "device", *forged)[0])["code"] == 1008
    print("interop ok", first["registration_id"])


if __name__ == "__main__":
    main(sys.argv[1])
