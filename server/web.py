"""The browser's way in (``atoll serve --web``): the page's files, and the Connect protocol over HTTP/1.1 for the same
``atoll.v1.Atoll`` service the gRPC port serves. Each call is handed to the very methods gRPC calls (the request
bytes, a context that carries the caller's token, deadline and peer), so the page meets the same checks, quotas,
errors and seat views as any gRPC client; nothing here is a second API.

Connect (https://connectrpc.com/docs/protocol): a unary call is ``POST /atoll.v1.Atoll/<Method>`` with a JSON or
binary protobuf body, answered with the response message, or with an HTTP error status and ``{"code", "message"}``; a
server-streaming call sends one enveloped request (``application/connect+json`` or ``+proto``) and receives enveloped
messages, the last one flagged end-of-stream with the error, if any. Timeouts come as ``Connect-Timeout-Ms``."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import mimetypes
import struct
import time
from pathlib import Path

from google.protobuf import json_format
from google.protobuf import message as protobuf_message
from google.rpc import status_pb2

from atoll.v1 import atoll_pb2 as pb

log = logging.getLogger("atoll.web")

PAGE = Path(__file__).resolve().parents[1] / "web"  # index.html and style.css; dist/ is what make web builds
PAGE_FILES = ("index.html", "style.css")
MAX_BODY = 1 << 20
MAX_HEADER_LINES = 100
SERVICE = "atoll.v1.Atoll"
# Connect's HTTP status for each code (the protocol's table).
HTTP_STATUS = {
    "CANCELLED": 499, "UNKNOWN": 500, "INVALID_ARGUMENT": 400, "DEADLINE_EXCEEDED": 504, "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409, "PERMISSION_DENIED": 403, "RESOURCE_EXHAUSTED": 429, "FAILED_PRECONDITION": 400,
    "ABORTED": 409, "OUT_OF_RANGE": 400, "UNIMPLEMENTED": 501, "INTERNAL": 500, "UNAVAILABLE": 503, "DATA_LOSS": 500,
    "UNAUTHENTICATED": 401,
}  # fmt: skip
REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405:
           "Method Not Allowed", 409: "Conflict", 413: "Payload Too Large", 415: "Unsupported Media Type", 429:
           "Too Many Requests", 499: "Client Closed Request", 500: "Internal Server Error", 501: "Not Implemented",
           503: "Service Unavailable", 504: "Gateway Timeout"}  # fmt: skip


class WebContext:
    """What the service's methods read of a gRPC context, for a Connect call: the token, the deadline, the peer,
    and the status the method sets when it refuses."""

    def __init__(self, headers: dict[str, str], peer: str) -> None:
        self.headers = headers
        self._peer = peer
        timeout = headers.get("connect-timeout-ms")
        self.deadline = time.monotonic() + int(timeout) / 1000.0 if timeout and timeout.isdigit() else None
        self.code: str | None = None
        self.details = ""
        self.trailing: tuple = ()

    def invocation_metadata(self) -> tuple:
        value = self.headers.get("authorization")
        return (("authorization", value),) if value else ()

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def set_code(self, code) -> None:
        self.code = code.name

    def set_details(self, details: str) -> None:
        self.details = details

    def set_trailing_metadata(self, metadata) -> None:
        self.trailing = tuple(metadata)

    async def abort(self, code, details: str = "") -> None:
        self.code, self.details = code.name, details
        raise asyncio.CancelledError


def error_body(code: str, message: str, trailing: tuple = ()) -> dict:
    """Connect's error object; a field violation travels as its google.rpc.BadRequest detail, as over gRPC."""
    body = {"code": code.lower(), "message": message}
    for key, value in trailing:
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            body["details"] = [
                {"type": any_.type_url.rsplit("/", 1)[-1], "value": base64.b64encode(any_.value).decode().rstrip("=")}
                for any_ in status.details
            ]
    return body


class WebServer:
    """The page and the Connect endpoints, on ``host:port``, calling ``service``'s methods."""

    def __init__(self, service, host: str, port: int) -> None:
        self.service = service
        self.host, self.port = host, port
        self.server: asyncio.Server | None = None
        descriptor = pb.DESCRIPTOR.services_by_name["Atoll"]
        self.methods = {m.name: m for m in descriptor.methods}
        dist = PAGE / "dist" / "app.js"
        if not dist.exists():
            raise FileNotFoundError(f"the page is not built ({dist} is missing): run make web")

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._connection, self.host, self.port, limit=MAX_BODY)
        self.port = self.server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        peer_name = f"web:{peer[0]}:{peer[1]}" if peer else "web:unknown"
        try:
            while True:
                request = await self._read_request(reader)
                if request is None:
                    break
                method, path, headers, body = request
                if body is None:
                    refusal = error_body("RESOURCE_EXHAUSTED", f"requests are at most {MAX_BODY} bytes")
                    await self._send(writer, 413, "application/json", json.dumps(refusal))
                    break
                keep = await self._answer(reader, writer, method, path, headers, body, peer_name)
                if not keep:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass
        finally:
            writer.close()

    async def _read_request(self, reader: asyncio.StreamReader):
        line = await reader.readline()
        if not line:
            return None
        try:
            method, path, _ = line.decode("latin-1").split(" ", 2)
        except ValueError:
            raise ValueError("not an HTTP request line") from None
        headers: dict[str, str] = {}
        for _ in range(MAX_HEADER_LINES):
            raw = await reader.readline()
            if raw in (b"\r\n", b"\n", b""):
                break
            key, _, value = raw.decode("latin-1").partition(":")
            headers[key.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0") or 0)
        if length > MAX_BODY:
            return method, path, headers, None  # answered 413 without reading it
        body = await reader.readexactly(length) if length else b""
        return method, path, headers, body

    async def _answer(self, reader, writer, method: str, path: str, headers: dict, body: bytes, peer: str) -> bool:
        path = path.split("?", 1)[0]
        if method == "GET":
            await self._file(writer, path)
            return True
        prefix = f"/{SERVICE}/"
        if method != "POST" or not path.startswith(prefix) or path[len(prefix) :] not in self.methods:
            await self._send(writer, 404, "application/json", json.dumps(error_body("UNIMPLEMENTED", f"no {path}")))
            return True
        descriptor = self.methods[path[len(prefix) :]]
        if descriptor.server_streaming:
            await self._stream(reader, writer, descriptor, headers, body, peer)
            return False  # the stream ended the response with the connection
        await self._unary(writer, descriptor, headers, body, peer)
        return True

    async def _file(self, writer, path: str) -> None:
        name = "index.html" if path in ("/", "/index.html") else path.lstrip("/")
        if name in PAGE_FILES:
            candidate = PAGE / name
        else:  # the built bundle: dist/ and nothing outside it
            candidate = (PAGE / "dist" / name).resolve()
            if (PAGE / "dist").resolve() not in candidate.parents:
                candidate = None
        if candidate is None or not candidate.is_file():
            await self._send(writer, 404, "text/plain", b"not found")
            return
        kind = mimetypes.guess_type(candidate.name)[0] or "application/octet-stream"
        await self._send(writer, 200, kind, candidate.read_bytes())

    def _request(self, descriptor, payload: bytes, as_json: bool) -> bytes:
        request_type = getattr(pb, descriptor.input_type.name)
        if not as_json:
            return payload
        try:
            return json_format.Parse(payload.decode() or "{}", request_type()).SerializeToString()
        except (json_format.ParseError, UnicodeDecodeError) as err:
            message = f"the request is not a valid {request_type.__name__}: {err}"
            raise WebRequestError("INVALID_ARGUMENT", message) from None

    async def _unary(self, writer, descriptor, headers: dict, body: bytes, peer: str) -> None:
        as_json = await self._format(writer, headers, "application/")
        if as_json is None:
            return
        context = WebContext(headers, peer)
        try:
            raw = self._request(descriptor, body, as_json)
            response = await self._call(getattr(self.service, descriptor.name)(raw, context), context)
        except WebRequestError as err:
            context.code, context.details = err.code, str(err)
            response = None
        if response is None or context.code not in (None, "OK"):
            code = context.code or "INTERNAL"
            text = json.dumps(error_body(code, context.details or code.lower(), context.trailing))
            await self._send(writer, HTTP_STATUS.get(code, 500), "application/json", text)
            return
        if as_json:
            await self._send(writer, 200, "application/json", json_format.MessageToJson(response, indent=None))
        else:
            await self._send(writer, 200, "application/proto", response.SerializeToString())

    async def _format(self, writer, headers: dict, prefix: str) -> bool | None:
        """True for JSON, False for binary protobuf (``prefix`` + ``json`` or ``proto``); None once a 415 is sent."""
        kind = headers.get("content-type", "")
        if kind.startswith((prefix + "json", prefix + "proto")):
            return kind.startswith(prefix + "json")
        await self._send(writer, 415, "application/json", json.dumps(error_body("UNKNOWN", f"content type {kind}")))
        return None

    async def _call(self, awaitable, context: WebContext):
        remaining = context.time_remaining()
        try:
            return await asyncio.wait_for(awaitable, remaining) if remaining is not None else await awaitable
        except TimeoutError:
            context.code, context.details = "DEADLINE_EXCEEDED", "the call's deadline passed"
            return None

    async def _stream(self, reader, writer, descriptor, headers: dict, body: bytes, peer: str) -> None:
        """A server stream, ended by the service, the deadline, or the client going away (the connection closes): then
        the service's stream is closed at once, as a cancelled gRPC call's is, and gives back its stream quota."""
        as_json = await self._format(writer, headers, "application/connect+")
        if as_json is None:
            return
        kind = headers["content-type"]
        writer.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: " + kind.encode() + b"\r\nTransfer-Encoding: chunked\r\n"
            b"Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        )
        context = WebContext(headers, peer)
        end: dict = {}
        stream = None
        gone = asyncio.ensure_future(reader.read(1))  # the client sends nothing more: EOF means it left
        try:
            if len(body) < 5:
                raise WebRequestError("INVALID_ARGUMENT", "a streaming call sends one enveloped message")
            flags, length = struct.unpack(">BI", body[:5])
            raw = self._request(descriptor, body[5 : 5 + length], as_json)
            stream = getattr(self.service, descriptor.name)(raw, context)
            while True:
                timeout = None if context.deadline is None else max(0.0, context.deadline - time.monotonic())
                following = asyncio.ensure_future(stream.__anext__())
                await asyncio.wait({following, gone}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
                if not following.done():
                    following.cancel()
                    await asyncio.gather(following, return_exceptions=True)
                    if gone.done():
                        return  # the client left: nobody to answer
                    context.code, context.details = "DEADLINE_EXCEEDED", "the call's deadline passed"
                    break
                try:
                    message = following.result()
                except StopAsyncIteration:
                    break
                data = (
                    json_format.MessageToJson(message, indent=None).encode() if as_json else message.SerializeToString()
                )
                await self._chunk(writer, struct.pack(">BI", 0, len(data)) + data)
        except WebRequestError as err:
            context.code, context.details = err.code, str(err)
        except (ConnectionError, protobuf_message.DecodeError):
            return
        finally:
            gone.cancel()
            if stream is not None:
                await stream.aclose()
        if context.code not in (None, "OK"):
            end["error"] = error_body(context.code, context.details or context.code.lower(), context.trailing)
        data = json.dumps(end).encode()
        try:
            await self._chunk(writer, struct.pack(">BI", 2, len(data)) + data)
            await self._chunk(writer, b"")
        except ConnectionError:
            pass

    async def _chunk(self, writer, data: bytes) -> None:
        writer.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        await writer.drain()

    async def _send(self, writer, status: int, kind: str, body: str | bytes) -> None:
        data = body.encode() if isinstance(body, str) else body
        writer.write(
            f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\nContent-Type: {kind}\r\n"
            f"Content-Length: {len(data)}\r\nCache-Control: no-store\r\n\r\n".encode()
            + data
        )
        await writer.drain()


class WebRequestError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
