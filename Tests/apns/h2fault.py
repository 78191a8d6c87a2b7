#!/usr/bin/env python3
"""A fault-injecting HTTP/2 server for the HTTP/2 client's tests (Tests/PushBusTests/HTTP2ClientTests).

Answers every request 200 with its body echoed (or --response-bytes of its own), over TLS with
ALPN (given --cert and --key) or h2c with prior knowledge, and misbehaves as the flags say, one
behaviour per test. Every event is appended to --log as one JSON line, flushed at once:

    {"event": "accept", "conn": 1}                       a TCP connection was accepted
    {"event": "request", "conn": 1, "stream": 3, "id": "7", "bytes": 200, "open": 2}
                                                          a whole request was taken to be answered
                                                          ("id" is its x-id header, "open" the streams
                                                          open on the connection when it began)
    {"event": "ignored" | "refused" | "reset", ...}       not processed: above GOAWAY's last-stream-id,
                                                          refused (REFUSED_STREAM), reset (INTERNAL_ERROR)
    {"event": "withdrawn", ...}                           a request logged before the GOAWAY whose stream
                                                          is above its last-stream-id: not processed after all
    {"event": "over-limit", ...}                          a stream opened past MAX_CONCURRENT_STREAMS
    {"event": "answered", ...}                            its response has been sent whole
    {"event": "client-reset", "conn", "stream", "code"}   the client reset a stream
    {"event": "goaway", "conn", "last": 5}, {"event": "stalled", "conn": 1}, {"event": "settings", "max": 10}

Usage: h2fault.py --port 0 --ready-file F --log L [--cert C --key K [--alpn P]] [behaviour flags below]
The port in use is written to --ready-file (atomically) once the socket listens.
"""
import argparse
import asyncio
import socket
import json
import os
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h2.settings
import hpack
from hyperframe.frame import GoAwayFrame


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def parse():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--ready-file", required=True)
    p.add_argument("--log", required=True)
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--alpn", default="h2", help="the protocol the server offers in ALPN (http/1.1 to refuse h2)")
    p.add_argument("--delay", type=float, default=0, help="seconds before each answer")
    p.add_argument("--max-streams", type=int, default=100, help="SETTINGS_MAX_CONCURRENT_STREAMS at first")
    p.add_argument("--raise-streams", type=int, default=0, help="raised to this after the first answer")
    p.add_argument("--lower-after", type=int, default=0, help="after this many answers on a connection, lower the limit")
    p.add_argument("--lower-to", type=int, default=1)
    p.add_argument("--goaway-after", type=int, default=0, help="first connection: GOAWAY after this many requests")
    p.add_argument("--goaway-last", type=int, default=0, help="last-stream-id: that of this request on the connection (1-based)")
    p.add_argument("--goaway-error", type=int, default=0, help="GOAWAY's error code")
    p.add_argument("--goaway-close", action="store_true", help="close right after the GOAWAY, answering nothing")
    p.add_argument("--refuse", type=int, default=0, help="refuse (REFUSED_STREAM) the first N requests of the server")
    p.add_argument("--reset-ids", default="", help="comma-separated x-id values answered with RST_STREAM INTERNAL_ERROR")
    p.add_argument("--stall-after", type=int, default=0, help="first connection: answers nothing, and stops reading at the Nth request's headers")
    p.add_argument("--receive-buffer", type=int, default=0, help="SO_RCVBUF of accepted sockets (fixed, so the kernel's autotuning cannot grow it)")
    p.add_argument("--close-after", type=int, default=0, help="first connection: answers nothing, and closes after N requests")
    p.add_argument("--window", type=int, default=0, help="SETTINGS_INITIAL_WINDOW_SIZE for what the client sends (the connection's window too, when larger)")
    p.add_argument("--response-bytes", type=int, default=-1, help="answer with this many bytes instead of the echo")
    p.add_argument("--close-on-accept", action="store_true", help="close every connection as soon as it is accepted")
    return p.parse_args()


class Server:
    def __init__(self, args):
        self.args = args
        self.log_file = open(args.log, "a", buffering=1)
        self.connections = 0
        self.refused = 0
        self.reset_ids = set(filter(None, args.reset_ids.split(",")))

    def log(self, event, **fields):
        fields = {"event": event, "time": time.time(), **fields}
        self.log_file.write(json.dumps(fields) + "\n")

    async def handle(self, reader, writer):
        self.connections += 1
        number = self.connections
        self.log("accept", conn=number)
        if self.args.close_on_accept:
            writer.transport.abort()
            return
        await Connection(self, number, reader, writer).run()


class Connection:
    def __init__(self, server, number, reader, writer):
        self.server = server
        self.args = server.args
        self.number = number
        self.first = number == 1
        self.reader = reader
        self.writer = writer
        self.h2 = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self.streams = {}       # stream id -> {"headers": dict, "body": bytearray, "open": n}
        self.heads = 0          # requests whose headers came on this connection
        self.received = 0       # whole requests on this connection
        self.order = []         # their stream ids, in arrival order
        self.answered = 0
        self.limit = self.args.max_streams
        self.pending_limit = None
        self.last_stream_id = None
        self.stalled = False
        self.window_open = asyncio.Event()
        self.tasks = set()

    def flush(self):
        if not self.stalled:
            data = self.h2.data_to_send()
            if data:
                self.writer.write(data)

    async def run(self):
        initial = {h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.args.max_streams}
        if self.args.window:
            initial[h2.settings.SettingCodes.INITIAL_WINDOW_SIZE] = self.args.window
        self.h2.local_settings = h2.settings.Settings(client=False, initial_values=initial)
        self.h2.initiate_connection()
        if self.args.window > 65535:
            self.h2.increment_flow_control_window(self.args.window - 65535)
        self.flush()
        try:
            while True:
                if self.stalled:
                    await asyncio.Event().wait()    # reads nothing, answers nothing, PINGs included
                data = await self.reader.read(65536)
                if not data:
                    break
                try:
                    events = self.h2.receive_data(data)
                except h2.exceptions.ProtocolError as error:
                    self.server.log("protocol-error", conn=self.number, error=str(error))
                    self.flush()
                    break
                for event in events:
                    self.on(event)
                    if self.stalled:
                        break
                self.flush()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            for task in self.tasks:
                task.cancel()
            if not self.stalled:
                self.writer.close()

    def on(self, event):
        if isinstance(event, h2.events.RequestReceived):
            self.heads += 1
            if self.first and self.args.stall_after and self.heads >= self.args.stall_after:
                self.server.log("stalled", conn=self.number, stream=event.stream_id, id=dict(event.headers).get("x-id"))
                self.stalled = True
                return
            open_now = sum(1 for s in self.streams.values() if not s.get("done"))
            headers = dict(event.headers)
            # The headers sent "never indexed" (HPACK): those the client keeps out of its table.
            unindexed = sorted(_text(name) for name, _ in (h for h in event.headers if isinstance(h, hpack.NeverIndexedHeaderTuple)))
            self.streams[event.stream_id] = {"headers": headers, "body": bytearray(), "open": open_now + 1, "unindexed": unindexed}
            if open_now + 1 > self.limit:
                self.server.log("over-limit", conn=self.number, stream=event.stream_id, open=open_now + 1, limit=self.limit)
            if self.server.refused < self.args.refuse:
                self.server.refused += 1
                self.streams[event.stream_id]["done"] = True
                self.server.log("refused", conn=self.number, stream=event.stream_id, id=headers.get("x-id"))
                self.h2.reset_stream(event.stream_id, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
            if event.stream_ended:
                self.ended(event.stream_id)
        elif isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream["body"] += event.data
            self.h2.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            if event.stream_ended:
                self.ended(event.stream_id)
        elif isinstance(event, h2.events.StreamReset):
            self.server.log("client-reset", conn=self.number, stream=event.stream_id, code=int(event.error_code))
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream["done"] = True
        elif isinstance(event, h2.events.WindowUpdated) or isinstance(event, h2.events.RemoteSettingsChanged):
            self.window_open.set()
        elif isinstance(event, h2.events.SettingsAcknowledged):
            if self.pending_limit is not None:
                self.limit = self.pending_limit
                self.pending_limit = None

    def ended(self, stream_id):
        stream = self.streams[stream_id]
        if stream.get("done"):
            return
        ident = stream["headers"].get("x-id")
        fields = dict(conn=self.number, stream=stream_id, id=ident, bytes=len(stream["body"]), open=stream["open"], unindexed=stream["unindexed"])
        if self.last_stream_id is not None and stream_id > self.last_stream_id:
            stream["done"] = True
            self.server.log("ignored", **fields)
            return
        self.received += 1
        self.order.append(stream_id)
        if ident in self.server.reset_ids:
            stream["done"] = True
            self.server.log("request", **fields)
            self.server.log("reset", **fields)
            self.h2.reset_stream(stream_id, error_code=h2.errors.ErrorCodes.INTERNAL_ERROR)
            return
        self.server.log("request", **fields)
        if self.first and self.args.stall_after:
            return
        if self.first and self.args.close_after:
            if self.received >= self.args.close_after:
                self.server.log("closed", conn=self.number)
                self.writer.transport.abort()
            return
        if self.first and self.args.goaway_after and self.received == self.args.goaway_after:
            last_index = self.args.goaway_last or self.args.goaway_after
            self.last_stream_id = self.order[min(last_index, len(self.order)) - 1]
            # Written by hand: h2 would refuse to send anything more once it has sent a GOAWAY,
            # and the streams at or below last-stream-id must still be answered.
            frame = GoAwayFrame(stream_id=0)
            frame.last_stream_id = self.last_stream_id
            frame.error_code = self.args.goaway_error
            self.flush()
            self.writer.write(frame.serialize())
            self.server.log("goaway", conn=self.number, last=self.last_stream_id)
            for earlier in self.order:
                if earlier > self.last_stream_id:
                    self.server.log("withdrawn", conn=self.number, stream=earlier, id=self.streams[earlier]["headers"].get("x-id"))
            if self.args.goaway_close:
                self.server.log("closed", conn=self.number)
                self.writer.close()
                return
            if stream_id > self.last_stream_id:
                stream["done"] = True
                return
            for other in list(self.streams):
                if other > self.last_stream_id and not self.streams[other].get("done") and other != stream_id:
                    self.streams[other]["done"] = True
        task = asyncio.ensure_future(self.answer(stream_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def answer(self, stream_id):
        if self.args.delay:
            await asyncio.sleep(self.args.delay)
        stream = self.streams[stream_id]
        if stream.get("done") or self.stalled:
            return
        body = bytes(stream["body"]) if self.args.response_bytes < 0 else b"x" * self.args.response_bytes
        try:
            self.h2.send_headers(stream_id, [(":status", "200"), ("content-length", str(len(body)))])
            offset = 0
            while offset < len(body):
                window = min(self.h2.local_flow_control_window(stream_id), self.h2.max_outbound_frame_size)
                if window <= 0:
                    self.flush()
                    self.window_open.clear()
                    await self.window_open.wait()
                    continue
                chunk = body[offset:offset + window]
                self.h2.send_data(stream_id, chunk)
                offset += len(chunk)
                self.flush()
            self.h2.end_stream(stream_id)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError) as error:
            self.server.log("answer-failed", conn=self.number, stream=stream_id, error=str(error))
            return
        stream["done"] = True
        self.flush()
        self.answered += 1
        self.server.log("answered", conn=self.number, stream=stream_id, id=stream["headers"].get("x-id"))
        if self.answered == 1 and self.args.raise_streams:
            self.limit = max(self.limit, self.args.raise_streams)
            self.h2.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.args.raise_streams})
            self.server.log("settings", conn=self.number, max=self.args.raise_streams)
            self.flush()
        if self.args.lower_after and self.answered == self.args.lower_after:
            self.pending_limit = self.args.lower_to
            self.h2.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: self.args.lower_to})
            self.server.log("settings", conn=self.number, max=self.args.lower_to)
            self.flush()
        if self.last_stream_id is not None and not any(
                not s.get("done") for sid, s in self.streams.items() if sid <= self.last_stream_id):
            self.writer.close()


async def main():
    args = parse()
    server = Server(args)
    context = None
    # Closing on accept happens before any TLS: the client's handshake fails, as against a dead server.
    if args.cert and not args.close_on_accept:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        context.set_alpn_protocols([args.alpn])
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if args.receive_buffer:
        # Set before listen, so accepted sockets inherit it with their window sized to it.
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, args.receive_buffer)
    listening.bind(("127.0.0.1", args.port))
    listener = await asyncio.start_server(server.handle, sock=listening, ssl=context)
    port = listener.sockets[0].getsockname()[1]
    temporary = args.ready_file + ".tmp"
    with open(temporary, "w") as out:
        out.write(f"{port}\n")
    os.replace(temporary, args.ready_file)
    async with listener:
        await listener.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
