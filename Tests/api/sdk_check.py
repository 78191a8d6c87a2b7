"""Drives PushBus's REST API with the official server SDKs, unmodified: EngageLab's
`engagelab-apppush` (its Client takes base_url) and JPush's `jpush` (pointed here by a ZONES
entry). Every check raises on failure; the exit code and the last line tell the Swift test.

Usage: sdk_check.py CONFIG.json, where the config names the API's base URLs (one with a small
quota), the app's key and secret, another app's, and registration IDs registered over the bus.
"""
import json
import sys
import time

import engagelab
import jpush
from engagelab import (ApiError, Client, DeviceSetParam, DeviceSetTags, DeviceStatusGetParam, IOSNotification,
                       NotificationMessage, PushBody, PushParam, PushTo, TagRegistrationIDs, TagSetParam)
from engagelab.push import BatchPushParam, BatchPushRequest
from engagelab.schedule import SchedulePushParam, ScheduleTrigger, TriggerSingle


def expect(condition, what):
    if not condition:
        raise AssertionError(what)


def refused(call, status, code):
    """Runs `call`, which must fail with the SDK's own error type carrying `status` and `code`."""
    try:
        call()
    except ApiError as error:
        expect(error.status_code == status and error.error.code == code,
               f"expected {status}/{code}, got {error.status_code}/{error.error.code} {error.error.message}")
        return error
    raise AssertionError(f"expected a refusal {status}/{code}, the call succeeded")


def jpush_refused(call, code):
    try:
        call()
    except jpush.JPushFailure as error:
        expect(error.error_code == code, f"expected JPush code {code}, got {error.error_code}: {error.details}")
        return error
    raise AssertionError(f"expected a JPushFailure {code}, the call succeeded")


def wait_sent(client, msg_id, count, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        detail = client.status.message_detail([msg_id])
        if detail.get(msg_id, {}).get("sent") == count:
            return detail[msg_id]
        time.sleep(0.2)
    raise AssertionError(f"message {msg_id} not sent to {count} devices: {client.status.message_detail([msg_id])}")


def notification(text):
    return NotificationMessage(alert=text, ios=IOSNotification(alert=text, sound="default"))


def admin(config, method, path, body, secret=None):
    """PushBus's admin endpoints, which no SDK has: plain HTTP with the admin secret as a Bearer token."""
    import urllib.error
    import urllib.request
    request = urllib.request.Request(config["base"] + path, data=json.dumps(body).encode(), method=method,
                                     headers={"Authorization": "Bearer " + (secret or config["admin"])})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def admin_endpoints(config):
    """Creates the other app and gives it an APNs key; a wrong admin secret does neither."""
    status, body = admin(config, "POST", "/v1/apps", {"name": "other", "app_key": config["other_key"]}, secret="0" * 64)
    expect(status == 401 and body["error"]["code"] == 1004, f"wrong admin secret: {status} {body}")
    status, body = admin(config, "POST", "/v1/apps", {"name": "other", "app_key": config["other_key"]})
    expect(status == 200 and body["master_secret"] == config["other_secret"], f"create app: {status} {body}")
    credentials = {key: config[key] for key in ["team_id", "key_id", "bundle_id", "p8"]}
    status, body = admin(config, "PUT", f"/v1/apps/{config['other_key']}/apns", credentials)
    expect(status == 200, f"apns credentials: {status} {body}")
    status, body = admin(config, "PUT", f"/v1/apps/{config['other_key']}/apns", dict(credentials, p8="not a key"))
    expect(status == 400 and body["error"]["code"] == 1003, f"a bad key: {status} {body}")


def engagelab_sdk(config, results):
    base = config["base"]
    app = Client(config["app_key"], config["secret"], base_url=base)
    other = Client(config["other_key"], config["other_secret"], base_url=base)
    r1, r2, r3 = config["devices"]

    # Devices: tags and alias through the device API, read back through every read.
    app.device.set(r1, DeviceSetParam(tags=DeviceSetTags(add=["vip", "news"]), alias="alice"))
    got = app.device.get(r1)
    expect(sorted(got.tags) == ["news", "vip"] and got.alias == "alice", f"device.get: {got}")
    app.device.set(r1, DeviceSetParam(tags=DeviceSetTags(remove=["news"])))
    expect(app.device.get(r1).tags == ["vip"], "tags.remove")
    app.tag.set("gold", TagSetParam(registration_ids=TagRegistrationIDs(add=[r2, r3])))
    expect({"vip", "gold"} <= set(app.tag.list().tags), "tag.list")
    expect(app.tag.get_device_status("gold", r2).result is True, "tag status r2")
    expect(app.tag.get_device_status("gold", r1).result is False, "tag status r1")
    counts = app.tag.get_count(["vip", "gold"], "ios").tags_count
    expect(counts == {"vip": 1, "gold": 2}, f"tags_count: {counts}")
    expect(app.alias.get("alice").registration_ids == [r1], "alias.get")
    status = app.device.get_status(DeviceStatusGetParam(registration_ids=[r1]))
    expect(status[0]["regid"] == r1 and status[0]["online"] is False, f"devices/status: {status}")

    # Pushes: to a tag, to an alias; status and per-device status; validate; batch; withdraw.
    to_gold = app.push.send(PushParam(to=PushTo(tag=["gold"]), body=PushBody(platform="all", notification=notification("gold"))))
    to_alice = app.push.send(PushParam(to=PushTo(alias=["alice"]), body=PushBody(platform="all", notification=notification("alice"))))
    expect(to_gold.msg_id and to_alice.msg_id and to_gold.msg_id != to_alice.msg_id, "msg_ids")
    detail = wait_sent(app, to_gold.msg_id, 2)
    expect(detail["targets"] == 2 and detail["pending"] == 0, f"status/detail: {detail}")
    wait_sent(app, to_alice.msg_id, 1)
    lifecycle = app.status.message_lifecycle(to_gold.msg_id, [r2, r1])
    expect(lifecycle[r2]["status"] == "sent" and lifecycle[r1]["status"] == "not_target", f"status/message: {lifecycle}")
    checked = app.push.validate(PushParam(to=PushTo(tag=["gold"]), body=PushBody(platform="all", notification=notification("v"))))
    expect(not checked.msg_id, "validate sends nothing")
    batch = app.push.batch_by_regid(BatchPushParam(requests=[BatchPushRequest(target=r3, platform="all", notification=notification("b"))]))
    expect(batch.results[r3].success is True, f"batch: {batch}")
    twice = app.push.batch_by_regid(BatchPushParam(requests=[BatchPushRequest(target=r3, platform="all", notification=notification(text))
                                                             for text in ["b1", "b2"]]))
    again = twice.results.get(r3 + "#1")
    expect(twice.results[r3].success is True and again is not None and again.success is True
           and twice.results[r3].msg_id != again.msg_id, f"a batch to one target twice: {twice}")
    withdrawn = app.push.withdraw(to_alice.msg_id)
    expect(withdrawn.msg_id == to_alice.msg_id, "withdraw")
    refused(lambda: app.push.withdraw("999999999"), 404, 1003)

    # Schedules: create, read, list, change, delete.
    trigger = ScheduleTrigger(single=TriggerSingle(time="2099-01-01 08:00:00"))
    push = PushParam(to=PushTo(tag=["vip"]), body=PushBody(platform="all", notification=notification("morning")))
    created = app.schedule.create(SchedulePushParam(name="morning", enabled=True, trigger=trigger, push=push))
    expect(created.schedule_id and created.name == "morning", f"schedule.create: {created}")
    expect(app.schedule.get(created.schedule_id)["name"] == "morning", "schedule.get")
    expect(app.schedule.list().total_count >= 1, "schedule.list")
    changed = app.schedule.update(created.schedule_id, SchedulePushParam(name="evening"))
    expect(changed.name == "evening", f"schedule.update: {changed}")
    expect(app.schedule.get_msg_ids(created.schedule_id).count == 0, "schedule msg-ids")
    app.schedule.delete(created.schedule_id)
    refused(lambda: app.schedule.get(created.schedule_id), 404, 1003)

    # Bad requests, a wrong secret, an unknown path: the SDK's error type with the code.
    refused(lambda: app.push.send(PushParam(to=PushTo(tag=["gold"]), body=PushBody(platform="all"))), 400, 1002)
    refused(lambda: app.push.send(PushParam(to=PushTo(tag=[f"t{i}" for i in range(21)]), body=PushBody(platform="all", notification=notification("x")))), 400, 1003)
    refused(lambda: app.push.send_raw({"to": "all", "body": {"platform": "all", "notification": {"ios": {"alert": "x", "badge": "x1"}}}}), 400, 1003)
    refused(lambda: Client(config["app_key"], "0" * 64, base_url=base).tag.list(), 401, 1004)
    refused(lambda: app.device.get("no-such-device"), 404, 7002)
    refused(lambda: app._request("GET", "/v4/nothing/here"), 404, 1011)
    refused(lambda: app._request("PATCH", "/v4/push"), 405, 1003)
    refused(lambda: app._request("POST", "/v4/push", raw_body=b"{not json"), 400, 1003)

    # Another app's key reads and changes nothing of this app's devices.
    for call in [lambda: other.device.get(r1),
                 lambda: other.device.set(r1, DeviceSetParam(alias="stolen", tags=DeviceSetTags(add=["x"]))),
                 lambda: other.device.set(r1, DeviceSetParam(tags="")),
                 lambda: other.device.delete(r1),
                 lambda: other.tag.get_device_status("vip", r1),
                 lambda: other.device.get_status(DeviceStatusGetParam(registration_ids=[r1])),
                 lambda: other.tag.set("vip", TagSetParam(registration_ids=TagRegistrationIDs(add=[r2], remove=[r1]))),
                 lambda: other.tag.set("vip", TagSetParam(registration_ids=TagRegistrationIDs(remove=[r1])))]:
        refused(call, 404, 7002)
    expect(other.alias.get("alice").registration_ids == [], "another app sees no alias")
    expect("vip" not in other.tag.list().tags, "another app sees no tag")
    other.alias.delete("alice")
    other.tag.delete("vip")
    refused(lambda: other.status.message_lifecycle(to_gold.msg_id, [r2]), 400, 1003)
    refused(lambda: other.push.withdraw(to_gold.msg_id), 404, 1003)
    refused(lambda: other.push.send(PushParam(to=PushTo(registration_id=[r1]), body=PushBody(platform="all", notification=notification("x")))), 400, 1011)
    after = app.device.get(r1)
    expect(after.tags == ["vip"] and after.alias == "alice", f"unchanged by the other app: {after}")
    expect(app.device.get(r2).tags == ["gold"], "r2 unchanged by the other app")

    # Alias and tag removal for the whole app.
    app.alias.delete("alice")
    expect(app.alias.get("alice").registration_ids == [], "alias deleted")
    app.tag.delete("gold")
    expect(app.device.get(r2).tags == [], "tag deleted")
    app.device.set(r1, DeviceSetParam(tags=""))
    expect(app.device.get(r1).tags == [], "tags cleared")
    results["engagelab"] = {"to_gold": to_gold.msg_id, "to_alice": to_alice.msg_id, "batch": batch.results[r3].msg_id}


def jpush_sdk(config, results):
    base = config["base"]
    zone = {"PUSH": base + "/v3/", "REPORT": base + "/v3/", "DEVICE": base + "/v3/devices/", "ALIAS": base + "/v3/aliases/",
            "TAG": base + "/v3/tags/", "SCHEDULE": base + "/v3/schedules/", "ADMIN": base + "/v1/"}
    jpush.common.ZONES["PUSHBUS"] = zone
    app = jpush.JPush(config["app_key"], config["secret"], zone="PUSHBUS")
    r1, r2, r3 = config["devices"]

    device = app.create_device()
    device.set_deviceinfo(r2, {"tags": {"add": ["jp"]}, "alias": "bob", "mobile": "+8613800000000"})
    info = device.get_deviceinfo(r2).payload
    expect(info["tags"] == ["jp"] and info["alias"] == "bob" and info["mobile"] == "+8613800000000", f"get_deviceinfo: {info}")
    device.update_tagusers("jp", {"registration_ids": {"add": [r3]}})
    expect("jp" in device.get_taglist().payload["tags"], "get_taglist")
    expect(device.check_taguserexist("jp", r3).payload["result"] is True, "check_taguserexist")
    expect(device.get_aliasuser("bob").payload["registration_ids"] == [r2], "get_aliasuser")
    expect(device.get_device_status([r2]).payload[r2]["online"] is False, "get_device_status")

    push = app.create_push()
    push.audience = jpush.audience(jpush.tag("jp"))
    push.notification = jpush.notification(alert="hello jp")
    push.platform = jpush.all_
    sent = push.send().payload
    expect(sent["msg_id"] and sent["sendno"] == "0", f"push: {sent}")
    cid = push.get_cid(1, "push").payload["cidlist"][0]
    push.cid = cid
    first = push.send().payload["msg_id"]
    expect(push.send().payload["msg_id"] == first, "a reused cid returns the first msg_id")
    checked = push.send_validate().payload
    expect("msg_id" in checked, f"validate: {checked}")
    batch = app.create_push().batch_push_by_regid([{"platform": "all", "target": r1, "notification": {"alert": "one"}}]).payload
    expect(all("msg_id" in result for result in batch.values()), f"batch: {batch}")

    deadline = time.time() + 30
    while time.time() < deadline:
        received = app.create_report().get_received(sent["msg_id"]).payload
        if received and received[0]["ios_apns_sent"] == 2:
            break
        time.sleep(0.2)
    expect(received[0]["ios_apns_sent"] == 2, f"received: {received}")
    status = app.create_report().get_status_message(int(sent["msg_id"]), [r2, r1]).payload
    expect(status[r2]["status"] == 0 and status[r1]["status"] == 2, f"status/message: {status}")

    schedule = app.create_schedule()
    made = schedule.post_schedule({"name": "nightly", "enabled": True, "trigger": {"single": {"time": "2099-06-01 22:00:00"}},
                                   "push": {"platform": "all", "audience": {"tag": ["jp"]}, "notification": {"alert": "night"}}}).payload
    schedule_id = made["schedule_id"]
    expect(schedule.get_schedule_by_id(schedule_id).payload["name"] == "nightly", "get_schedule_by_id")
    expect(schedule.get_schedule_list(1).payload["total_count"] >= 1, "get_schedule_list")
    expect(schedule.put_schedule({"name": "late"}, schedule_id).payload["name"] == "late", "put_schedule")
    schedule.delete_schedule(schedule_id)
    jpush_refused(lambda: schedule.get_schedule_by_id(schedule_id), 1003)

    bad = app.create_push()
    bad.audience = jpush.audience(jpush.tag("jp"))
    bad.platform = jpush.all_
    bad.message = jpush.message(msg_content="")
    bad.notification = {"ios": {"alert": "x", "badge": "plenty"}}
    jpush_refused(bad.send, 1003)
    try:
        jpush.JPush(config["app_key"], "0" * 64, zone="PUSHBUS").create_device().get_taglist()
        raise AssertionError("a wrong secret was taken")
    except jpush.Unauthorized:
        pass
    device.delete_alias("bob")
    device.delete_tag("jp")
    expect(device.get_deviceinfo(r2).payload["tags"] == [], "delete_tag")
    results["jpush"] = {"push": sent["msg_id"], "cid": first}


def rate_limits(config, results):
    """The API with a small quota: the burst past it gets 429 and code 2002 in both SDKs."""
    limited = Client(config["app_key"], config["secret"], base_url=config["limited"])
    codes = []
    for _ in range(config["quota"] + 3):
        try:
            limited.tag.list()
            codes.append(200)
        except ApiError as error:
            codes.append((error.status_code, error.error.code))
    expect(codes[:config["quota"]] == [200] * config["quota"] and codes[-1] == (429, 2002), f"engagelab burst: {codes}")
    zone = dict(jpush.common.ZONES["PUSHBUS"])
    for key in zone:
        zone[key] = zone[key].replace(config["base"], config["limited"])
    jpush.common.ZONES["LIMITED"] = zone
    jpush_refused(lambda: jpush.JPush(config["app_key"], config["secret"], zone="LIMITED").create_device().get_taglist(), 2002)
    results["burst"] = codes


def http_edges(config):
    """What the SDKs do not try: keep-alive and Connection: close, trailing slashes, any Content-Type,
    bodies over the limit, wrong types, unknown paths; each a JSON error, and the server serves on."""
    import base64
    import http.client
    host = config["base"].removeprefix("http://")
    auth = "Basic " + base64.b64encode(f"{config['app_key']}:{config['secret']}".encode()).decode()

    def ask(connection, method, path, body=None, content_type="application/json;charset:utf-8", close=False):
        headers = {"Authorization": auth, "Content-Type": content_type}
        if close:
            headers["Connection"] = "close"
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read())

    kept = http.client.HTTPConnection(host, timeout=10)
    for path in ["/v4/tags", "/v3/tags/", "/v3/tags", "/v4/schedules/"]:
        status, body = ask(kept, "GET", path)
        expect(status == 200, f"keep-alive GET {path}: {status} {body}")
    status, body = ask(kept, "POST", "/v4/push", body=b"x" * (config["max_body"] + 1))
    expect(status == 413 and body["error"]["code"] == 1005, f"over the limit: {status} {body}")
    fresh = http.client.HTTPConnection(host, timeout=10)
    for path, payload, code in [("/v4/push", b"[1, 2]", 1003), ("/v4/push", b'{"to": 5, "body": "x"}', 1002),
                                ("/v4/devices/status", b'{"registration_ids": "r1"}', 7002),
                                (f"/v4/devices/{config['devices'][0]}", b'{"tags": 7}', 7002),
                                ("/v3/push", b"\xff\xfe", 1003)]:
        status, body = ask(fresh, "POST", path, body=payload, content_type="text/plain")
        expect(status == 400 and body["error"]["code"] == code, f"POST {path} {payload!r}: {status} {body}")
    status, body = ask(fresh, "GET", "/v9/anything")
    expect(status == 404 and "error" in body, f"unknown path: {status} {body}")
    status, body = ask(fresh, "PUT", "/v4/tags")
    expect(status == 405 and "error" in body, f"wrong method: {status} {body}")
    for _ in range(3):
        closing = http.client.HTTPConnection(host, timeout=10)
        status, _ = ask(closing, "GET", "/v4/tags", close=True)
        expect(status == 200, "Connection: close")
        closing.close()
    status, _ = ask(kept, "GET", "/v4/tags")
    expect(status == 200, "the kept connection still serves")


def main():
    config = json.load(open(sys.argv[1]))
    results = {}
    admin_endpoints(config)
    http_edges(config)
    engagelab_sdk(config, results)
    jpush_sdk(config, results)
    rate_limits(config, results)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
