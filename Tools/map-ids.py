#!/usr/bin/env python3
"""map-ids.py IDS IN OUT: a recording with the IDs an earlier run was given written into it.

IDS is the file `pushbus-replay run --ids` writes (recorded ID -> this stack's). Each call of IN
gets the stack's IDs in the payload fields that name a device, user or app, so any replay client
(an older build's too, which has no --ids) sends the load to the devices the earlier run
registered. The benchmarks register the devices in one run and measure the load in another.
"""
import json
import sys

ids_path, source, target = sys.argv[1:4]
ids = json.load(open(ids_path))
if not isinstance(ids, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in ids.items()):
    sys.exit(f"map-ids.py: {ids_path} is not a JSON object of recorded IDs to this stack's")
with open(source) as lines, open(target, "w") as out:
    for line in lines:
        call = json.loads(line)
        payload = call.get("payload")
        if isinstance(payload, dict):
            for key in ("registration_id", "euid", "app_key"):
                if isinstance(payload.get(key), str):
                    payload[key] = ids.get(payload[key], payload[key])
            if isinstance(payload.get("registration_ids"), list):
                payload["registration_ids"] = [ids.get(i, i) if isinstance(i, str) else i for i in payload["registration_ids"]]
        out.write(json.dumps(call, separators=(",", ":"), ensure_ascii=False) + "\n")
