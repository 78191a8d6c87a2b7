#!/usr/bin/env python3
"""A stand-in for Apple's APNs HTTP/2 provider API, for PushBus's integration tests.

Serves `POST /3/device/<hex token>` over TLS with HTTP/2 (and HTTP/1.1) through Hypercorn,
checks requests the way APNs does (ES256 provider token, headers, payload size) and answers
with APNs's statuses and reasons. What a device token answers is set at run time through the
admin endpoints under /admin/ on the same port; every push request is kept for the test to read.

Usage:
    standin.py --port P --cert CERT.pem --key KEY.pem --jwt-public-key PUB.pem
               [--team-id T] [--key-id K] [--expire-older-than SECONDS]
               [--max-streams N] [--log LOG.jsonl] [--ready-file F]

Port 0 picks a free port; the port in use is written to --ready-file once the socket listens.
README.md beside this file describes the admin endpoints.
"""
import argparse
import asyncio
import base64
import binascii
import json
import os
import re
import signal
import socket
import sys
import time
import uuid
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from hypercorn.asyncio import serve
from hypercorn.config import Config

PUSH_PREFIX = "/3/device/"
MAX_PAYLOAD = 4096
MAX_VOIP_PAYLOAD = 5120
MAX_COLLAPSE_ID = 64
# APNs advertises 1000 concurrent streams; Hypercorn's priority tree holds at most 1000 streams
# including its root, and a connection that opens one more is dropped, so 999 is the most.
MAX_STREAMS = 999
# Seconds a shutdown may take before connections a client keeps open are dropped with the process.
SHUTDOWN_GRACE = 2
PRIORITIES = {"1", "5", "10"}
PUSH_TYPES = {
    "alert", "background", "complication", "controls", "fileprovider", "liveactivity",
    "location", "mdm", "pushtotalk", "voip", "widgets",
}
APNS_ID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
HEX = re.compile(r"^[0-9a-fA-F]+$")
TOPIC = re.compile(r"^\S+$")
# The reason a rule answers with when it names only a status.
DEFAULT_REASONS = {
    400: "BadDeviceToken",
    403: "Forbidden",
    410: "Unregistered",
    413: "PayloadTooLarge",
    429: "TooManyRequests",
    500: "InternalServerError",
    503: "ServiceUnavailable",
}


class Rejection(Exception):
    """A push request APNs refuses: status, `reason`, and for rules a timestamp and retry-after."""

    def __init__(self, status, reason, timestamp=None, retry_after=None):
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.retry_after = retry_after

    def response(self, apns_id):
        """The response APNs sends: JSON reason (410 adds a timestamp in ms), apns-id, maybe retry-after."""
        body = {"reason": self.reason}
        if self.status == 410:
            body["timestamp"] = self.timestamp if self.timestamp is not None else int(time.time() * 1000)
        headers = [(b"apns-id", apns_id.encode())]
        if self.retry_after is not None:
            headers.append((b"retry-after", str(self.retry_after).encode()))
        return Response.json(self.status, body, headers)


@dataclass
class Response:
    """What the app sends back: status, extra headers and body."""

    status: int
    headers: list = field(default_factory=list)
    body: bytes = b""

    @classmethod
    def json(cls, status, value, headers=()):
        """A response whose body is `value` as JSON."""
        body = json.dumps(value).encode()
        content_headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        return cls(status, content_headers + list(headers), body)


def b64url_decode(text):
    """Decodes unpadded base64url, as JWTs use it."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def whole_number(value, name):
    """value[name] as an int (410 and 410.0 alike), None when absent; ValueError unless a whole number >= 0."""
    number = value.get(name)
    if number is None:
        return None
    whole = isinstance(number, int) or (isinstance(number, float) and number.is_integer())
    if isinstance(number, bool) or not whole or number < 0:
        raise ValueError(f"{name} must be a non-negative integer")
    return int(number)


class TokenVerifier:
    """Checks ES256 provider tokens; each distinct token string is verified once."""

    def __init__(self, public_key, team_id=None, key_id=None):
        self.public_key = public_key
        self.team_id = team_id
        self.key_id = key_id
        self.issued_at = {}  # token string -> iat, or None when the token is invalid
        self.revoked = set()  # token strings expired by /admin/expire-tokens

    def iat(self, token):
        """The token's iat claim, or None when its signature, kid or iss is wrong."""
        if token not in self.issued_at:
            self.issued_at[token] = self._verify(token)
        return self.issued_at[token]

    def revoke_all(self):
        """Marks every token seen so far as expired."""
        self.revoked.update(self.issued_at)

    def _verify(self, token):
        """Verifies the token's signature and names; returns its iat, or None."""
        try:
            header_part, claims_part, signature_part = token.split(".")
            header = json.loads(b64url_decode(header_part))
            claims = json.loads(b64url_decode(claims_part))
            signature = b64url_decode(signature_part)
        except (ValueError, binascii.Error):
            return None
        if not (isinstance(header, dict) and isinstance(claims, dict) and len(signature) == 64):
            return None
        if header.get("alg") != "ES256" or not self._matches(header.get("kid"), self.key_id):
            return None
        if not self._matches(claims.get("iss"), self.team_id) or type(claims.get("iat")) is not int:
            return None
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        try:
            self.public_key.verify(der, f"{header_part}.{claims_part}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return None
        return claims["iat"]

    @staticmethod
    def _matches(value, expected):
        """A kid or iss is a non-empty string, equal to the expected one when one was given."""
        return isinstance(value, str) and value != "" and (expected is None or value == expected)


@dataclass
class Rule:
    """How device tokens starting with `prefix` are answered, for `times` requests or forever."""

    prefix: str
    status: int
    reason: str | None
    timestamp: int | None
    times: int | None
    retry_after: int | None

    @classmethod
    def from_json(cls, value):
        """Builds a rule from the body of POST /admin/rules; raises ValueError when it is malformed."""
        if not isinstance(value, dict):
            raise ValueError("a rule is a JSON object")
        prefix = value.get("token")
        if not isinstance(prefix, str) or (prefix and not HEX.match(prefix)):
            raise ValueError("token must be a hex string (a prefix of the device tokens it applies to)")
        status = whole_number(value, "status")
        if status is None or not 200 <= status <= 599:
            raise ValueError("status must be an HTTP status")
        reason = value.get("reason", DEFAULT_REASONS.get(status))
        if status != 200 and not isinstance(reason, str):
            raise ValueError(f"reason is needed for status {status}")
        return cls(prefix.lower(), status, reason, whole_number(value, "timestamp"), whole_number(value, "times"),
                   whole_number(value, "retry_after"))

    def applies_to(self, token):
        """Whether this rule answers for `token` now (it matches and has uses left)."""
        return token.startswith(self.prefix) and self.times != 0

    def answer(self):
        """Uses the rule once: raises its Rejection, or returns when its status lets the push through."""
        if self.times is not None:
            self.times -= 1
        if self.status != 200:
            raise Rejection(self.status, self.reason, self.timestamp, self.retry_after)


class Journal:
    """The push requests received, in arrival order, optionally appended to a JSON-lines file."""

    def __init__(self, log_path=None):
        self.entries = []
        self.sent = 0
        self.log = open(log_path, "a", encoding="utf-8") if log_path else None

    def record(self, entry):
        """Keeps one answered request."""
        self.entries.append(entry)
        if entry["status"] == 200:
            self.sent += 1
        if self.log:
            self.log.write(json.dumps(entry) + "\n")
            self.log.flush()

    def clear(self):
        """Forgets the requests kept in memory; the log file keeps them."""
        self.entries = []
        self.sent = 0

    def close(self):
        """Closes the log file."""
        if self.log:
            self.log.close()


class Standin:
    """The ASGI app: APNs's push endpoint and the admin endpoints."""

    def __init__(self, verifier, expire_older_than, journal):
        self.verifier = verifier
        self.expire_older_than = expire_older_than
        self.journal = journal
        self.rules = []
        self.delay = 0.0
        self.admin_routes = {
            ("POST", "/admin/rules"): self.add_rule,
            ("DELETE", "/admin/rules"): self.clear_rules,
            ("GET", "/admin/requests"): self.list_requests,
            ("DELETE", "/admin/requests"): self.clear_requests,
            ("GET", "/admin/count"): self.count,
            ("POST", "/admin/expire-older-than"): self.set_expire_older_than,
            ("POST", "/admin/expire-tokens"): self.expire_tokens,
            ("POST", "/admin/delay"): self.set_delay,
        }

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            await self.lifespan(receive, send)
        elif scope["type"] == "http":
            body = await read_body(receive)
            if scope["path"].startswith("/admin/"):
                response = self.admin(scope["method"], scope["path"], body)
            else:
                if self.delay:
                    await asyncio.sleep(self.delay)
                response = self.push(scope, body)
            await send({"type": "http.response.start", "status": response.status, "headers": response.headers})
            await send({"type": "http.response.body", "body": response.body})

    async def lifespan(self, receive, send):
        """Answers the ASGI lifespan protocol; closes the log at shutdown."""
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.journal.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    # The push endpoint.

    def push(self, scope, body):
        """Answers one push request as APNs would and records it."""
        headers, duplicated = request_headers(scope["headers"])
        apns_id = headers.get("apns-id", "")
        if not APNS_ID.match(apns_id):
            apns_id = str(uuid.uuid4())
        token = device_token(scope["path"])
        payload, is_json = decode_payload(body)
        try:
            self.check(scope["method"], token, headers, duplicated, body, payload if is_json else None)
            self.apply_rules(token.lower())
            status, reason, response = 200, None, Response(200, [(b"apns-id", apns_id.encode())])
        except Rejection as rejection:
            status, reason, response = rejection.status, rejection.reason, rejection.response(apns_id)
        self.journal.record({
            "token": token, "headers": headers, "payload": payload, "status": status,
            "reason": reason, "apns_id": apns_id, "time": time.time(),
        })
        return response

    def check(self, method, token, headers, duplicated, body, payload):
        """Raises the Rejection APNs would answer the request with, in the order APNs checks."""
        if token is None:
            raise Rejection(404, "BadPath")
        if method != "POST":
            raise Rejection(405, "MethodNotAllowed")
        if token == "":
            raise Rejection(400, "MissingDeviceToken")
        if not HEX.match(token):
            raise Rejection(400, "BadDeviceToken")
        if duplicated:
            raise Rejection(400, "DuplicateHeaders")
        self.check_provider_token(headers.get("authorization"))
        check_headers(headers)
        check_payload(body, payload, headers.get("apns-push-type"))

    def check_provider_token(self, authorization):
        """Raises unless the authorization header carries a valid, fresh provider token."""
        if not authorization:
            raise Rejection(403, "MissingProviderToken")
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Rejection(403, "InvalidProviderToken")
        token = token.strip()
        issued_at = self.verifier.iat(token)
        if issued_at is None:
            raise Rejection(403, "InvalidProviderToken")
        if token in self.verifier.revoked or int(time.time()) - issued_at > self.expire_older_than:
            raise Rejection(403, "ExpiredProviderToken")

    def apply_rules(self, token):
        """Lets the first rule that applies to the token answer; with none, the push goes through."""
        for rule in self.rules:
            if rule.applies_to(token):
                rule.answer()
                return

    # The admin endpoints.

    def admin(self, method, path, body):
        """Routes an admin request; admin bodies are JSON."""
        handler = self.admin_routes.get((method, path))
        if handler is None:
            if any(route_path == path for _, route_path in self.admin_routes):
                return Response.json(405, {"reason": "MethodNotAllowed"})
            return Response.json(404, {"reason": "BadPath"})
        try:
            value = json.loads(body) if body else None
            return handler(value)
        except ValueError as error:
            return Response.json(400, {"error": str(error)})

    def add_rule(self, value):
        """POST /admin/rules: adds a rule after the existing ones."""
        self.rules.append(Rule.from_json(value))
        return Response.json(200, {"rules": len(self.rules)})

    def clear_rules(self, _value):
        """DELETE /admin/rules: every token answers 200 again."""
        self.rules = []
        return Response.json(200, {"rules": 0})

    def list_requests(self, _value):
        """GET /admin/requests: every push request kept, in arrival order."""
        return Response.json(200, self.journal.entries)

    def clear_requests(self, _value):
        """DELETE /admin/requests: forgets the requests kept and their counts."""
        self.journal.clear()
        return Response.json(200, {"requests": 0, "sent": 0})

    def count(self, _value):
        """GET /admin/count: how many push requests were kept, and how many were answered 200."""
        return Response.json(200, {"requests": len(self.journal.entries), "sent": self.journal.sent})

    def set_delay(self, value):
        """POST /admin/delay {"seconds": S}: every push is answered S seconds after it arrives (a slow APNs)."""
        seconds = value.get("seconds") if isinstance(value, dict) else None
        if not isinstance(seconds, (int, float)) or not 0 <= seconds <= 600:
            return Response.json(400, {"error": "seconds must be a number in 0...600"})
        self.delay = float(seconds)
        return Response.json(200, {"seconds": self.delay})

    def set_expire_older_than(self, value):
        """POST /admin/expire-older-than: sets the provider-token age past which tokens are expired."""
        seconds = whole_number(value, "seconds") if isinstance(value, dict) else None
        if seconds is None:
            raise ValueError("seconds must be a non-negative integer")
        self.expire_older_than = seconds
        return Response.json(200, {"seconds": seconds})

    def expire_tokens(self, _value):
        """POST /admin/expire-tokens: every provider token seen so far is expired from now on."""
        self.verifier.revoke_all()
        return Response.json(200, {"expired": len(self.verifier.revoked)})


# Request helpers.


async def read_body(receive):
    """The whole request body."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def device_token(path):
    """The device token of a /3/device/<token> path, or None for any other path."""
    if not path.startswith(PUSH_PREFIX) or "/" in path[len(PUSH_PREFIX):]:
        return None
    return path[len(PUSH_PREFIX):]


def request_headers(raw_headers):
    """The apns-* and authorization headers as {name: value}, and whether one of them came twice."""
    headers = {}
    duplicated = False
    for name, value in raw_headers:
        if name.startswith(b"apns-") or name == b"authorization":
            key = name.decode("latin-1")
            duplicated = duplicated or key in headers
            headers[key] = value.decode("latin-1")
    return headers, duplicated


def decode_payload(body):
    """The body as parsed JSON, or as text when it is not JSON; the flag tells which."""
    try:
        return json.loads(body), True
    except ValueError:
        return body.decode("utf-8", "replace"), False


def check_headers(headers):
    """Raises the Rejection for a missing or malformed apns-* header."""
    topic = headers.get("apns-topic")
    if topic is None:
        raise Rejection(400, "MissingTopic")
    if not TOPIC.match(topic):
        raise Rejection(400, "BadTopic")
    if headers.get("apns-push-type", "alert") not in PUSH_TYPES:
        raise Rejection(400, "InvalidPushType")
    if headers.get("apns-priority", "10") not in PRIORITIES:
        raise Rejection(400, "BadPriority")
    if not headers.get("apns-expiration", "0").isdigit():
        raise Rejection(400, "BadExpirationDate")
    if len(headers.get("apns-collapse-id", "").encode("latin-1")) > MAX_COLLAPSE_ID:
        raise Rejection(400, "BadCollapseId")
    if "apns-id" in headers and not APNS_ID.match(headers["apns-id"]):
        raise Rejection(400, "BadMessageId")


def check_payload(body, payload, push_type):
    """Raises the Rejection for an empty, oversized or non-JSON-object payload."""
    if not body:
        raise Rejection(400, "PayloadEmpty")
    if len(body) > (MAX_VOIP_PAYLOAD if push_type == "voip" else MAX_PAYLOAD):
        raise Rejection(413, "PayloadTooLarge")
    if not isinstance(payload, dict):
        # APNs documents no reason for this; the stand-in names it BadPayload.
        raise Rejection(400, "BadPayload")


# Start-up.


def parse_arguments(argv):
    """The command line."""
    parser = argparse.ArgumentParser(description="APNs HTTP/2 provider API stand-in for tests.")
    parser.add_argument("--port", type=int, required=True, help="port on 127.0.0.1; 0 picks a free one")
    parser.add_argument("--cert", required=True, help="TLS certificate (PEM)")
    parser.add_argument("--key", required=True, help="TLS private key (PEM)")
    parser.add_argument("--jwt-public-key", required=True, help="public key (PEM) provider tokens are verified with")
    parser.add_argument("--team-id", help="the iss provider tokens must carry (any when not given)")
    parser.add_argument("--key-id", help="the kid provider tokens must carry (any when not given)")
    parser.add_argument("--expire-older-than", type=int, default=3600, metavar="SECONDS",
                        help="provider tokens whose iat is older are expired (default 3600)")
    parser.add_argument("--max-streams", type=int, default=MAX_STREAMS, metavar="N",
                        help=f"SETTINGS_MAX_CONCURRENT_STREAMS advertised (default and most: {MAX_STREAMS})")
    parser.add_argument("--log", help="append every push request to this file as a JSON line")
    parser.add_argument("--ready-file", help="write the listening port here once ready")
    arguments = parser.parse_args(argv)
    if not 1 <= arguments.max_streams <= MAX_STREAMS:
        parser.error(f"--max-streams must be between 1 and {MAX_STREAMS}")
    return arguments


def load_public_key(path):
    """The P-256 public key provider tokens are verified with."""
    with open(path, "rb") as file:
        key = serialization.load_pem_public_key(file.read())
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp256r1":
        raise SystemExit(f"{path}: not a P-256 public key")
    return key


def hypercorn_config(arguments, listener_fd):
    """Hypercorn's settings: TLS with ALPN h2 and http/1.1 on the listening socket, many streams per connection."""
    config = Config()
    config.bind = [f"fd://{listener_fd}"]
    config.certfile = arguments.cert
    config.keyfile = arguments.key
    config.h2_max_concurrent_streams = arguments.max_streams
    config.keep_alive_max_requests = 2**62  # never close a connection for the number of requests it carried
    config.keep_alive_timeout = 600
    config.graceful_timeout = SHUTDOWN_GRACE / 2
    config.include_server_header = False
    config.create_ssl_context()  # fails now, before the ready file, on a bad certificate or key
    return config


def listen(port):
    """A TCP socket listening on 127.0.0.1:port."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(1024)
    return listener


def write_ready_file(path, port):
    """Writes the port to `path` atomically, so a reader never sees it half-written."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="ascii") as file:
        file.write(f"{port}\n")
    os.replace(temporary, path)


async def serve_until_signalled(app, config):
    """Serves until SIGINT or SIGTERM, then stops within SHUTDOWN_GRACE seconds.

    Hypercorn's own shutdown waits for every TLS connection to close, which lasts as long as a client
    that does not answer close_notify likes; past the grace period the process simply exits.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)
    server = asyncio.ensure_future(serve(app, config, shutdown_trigger=stop.wait))
    stopping = asyncio.ensure_future(stop.wait())
    await asyncio.wait({server, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    finished, _ = await asyncio.wait({server}, timeout=SHUTDOWN_GRACE)
    if not finished:
        app.journal.close()
        os._exit(0)
    server.result()


def main(argv):
    """Starts the stand-in and serves until SIGINT or SIGTERM."""
    arguments = parse_arguments(argv)
    verifier = TokenVerifier(load_public_key(arguments.jwt_public_key), arguments.team_id, arguments.key_id)
    app = Standin(verifier, arguments.expire_older_than, Journal(arguments.log))
    listener = listen(arguments.port)
    port = listener.getsockname()[1]
    config = hypercorn_config(arguments, listener.detach())
    if arguments.ready_file:
        write_ready_file(arguments.ready_file, port)
    asyncio.run(serve_until_signalled(app, config))


if __name__ == "__main__":
    main(sys.argv[1:])
