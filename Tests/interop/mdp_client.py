#!/usr/bin/env python3
"""A plain MDP/0.1 client written from ZeroMQ RFC 7, sharing no code with PushBus.

Usage: mdp_client.py ENDPOINT
Drives a running gateway: MMI, register, re-register, get. Exits 0 when every answer is right.
"""
import json
import sys

import zmq


def request(socket, service, *body):
    # RFC 7: a REQ client sends [MDPC01, service, body...]; REQ adds the empty delimiter.
    socket.send_multipart([b"MDPC01", service.encode()] + [part.encode() for part in body])
    header, replied_service, *reply = socket.recv_multipart()
    assert header == b"MDPC01", header
    assert replied_service == service.encode(), replied_service
    return reply


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
    again = json.loads(request(socket, "device", "device.register", payload)[0])
    assert again["registration_id"] == first["registration_id"] and again["is_new"] is False, again

    # Addressing the service directly works as well as the virtual `device` service.
    get = json.dumps({"app_key": "py-app", "registration_id": first["registration_id"]})
    device = json.loads(request(socket, "registration", "device.get", get)[0])
    assert device["code"] == 0 and device["device"]["platform"] == "android", device

    bad = json.loads(request(socket, "device", "device.mobile", json.dumps(
        {"app_key": "py-app", "registration_id": first["registration_id"], "mobile": "12a"}))[0])
    assert bad["code"] == 6023, bad
    print("interop ok", first["registration_id"])


if __name__ == "__main__":
    main(sys.argv[1])
