"""The HTTP transport of the API backends that speak plain HTTP (`openai:`, `openai-compatible:`):
POST a prepared body, get the status, headers and body back. Nothing else of a backend is here:
what a reply means (an error's kind, whether to retry) is the backend's to say.

HTTP/1.1 framing is h11's (python-hyper's maintained protocol state machine: request heads,
Content-Length and chunked bodies, keep-alive and `Connection: close`); the bytes go over asyncio
streams, with TLS from `ssl` for https. Connections are kept alive and reused, one request at a
time each, as many as requests in flight. Why not aiohttp, which this replaced: importing it takes
~0.3 s (it builds TLS contexts at import), more than everything else a run needs before its
first request, and it spends about twice the CPU per request (benchmarks/e2e_throughput.py).

A connection idle for `IDLE_S` is not reused (servers close idle ones: uvicorn, under vLLM and
SGLang, after 5 s); one the server closed while idle is noticed before it is used. A kept
connection that the server closed just as the request went out (nothing of a reply received) is
replaced once by a new one at once; any other failure is raised as `HttpFailure` or TimeoutError.
Environment proxies are not used (as aiohttp's default was).
"""

from __future__ import annotations

import asyncio
import ssl
import time
import zlib
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import h11

from vqakit import __version__

IDLE_S = 4.0  # a connection idle longer than this is closed rather than reused
READ_BYTES = 2**16
USER_AGENT = f"vqakit/{__version__}"


class HttpFailure(Exception):
    """The exchange failed below HTTP (refused, reset, closed early, TLS, a malformed reply)."""


@dataclass(frozen=True)
class HttpReply:
    status: int
    headers: dict[str, str]  # names in lower case; a repeated header keeps its last value
    body: bytes  # decoded from gzip/deflate where the server compressed it


@dataclass
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    protocol: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))
    idle_since: float = 0.0

    def usable(self, now: float) -> bool:
        return (
            now - self.idle_since < IDLE_S
            and not self.reader.at_eof()
            and not self.writer.is_closing()
            and self.protocol.our_state is h11.IDLE
        )

    def close(self) -> None:
        self.writer.close()


class _Reused(Exception):
    """A kept connection was found closed before any of the reply came: try a new one."""


@dataclass(frozen=True)
class _Origin:
    scheme: str
    host: str
    port: int

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        return self.host if self.port == default else f"{self.host}:{self.port}"


def _origin_and_target(url: str) -> tuple[_Origin, str]:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL: {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Origin(parts.scheme, parts.hostname, port), target


class HttpClient:
    """POSTs to one or more origins over kept-alive connections. Bound to the event loop it is
    first used on: a client used from another loop (a later `asyncio.run`) starts afresh."""

    def __init__(self, headers: dict[str, str] | None = None) -> None:
        self.headers = dict(headers or {})
        self._idle: dict[_Origin, list[_Connection]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tls: ssl.SSLContext | None = None

    async def post(self, url: str, body: bytes, *, timeout_s: float | None) -> HttpReply:
        """Send `body` (JSON) to `url`; the reply whatever its status. TimeoutError when the whole
        exchange (connecting included) takes longer than `timeout_s`; HttpFailure when it fails."""
        return await self.request("POST", url, body, timeout_s=timeout_s)

    async def request(
        self, method: str, url: str, body: bytes | None = None, *, timeout_s: float | None,
        headers: dict[str, str] | None = None,
    ) -> HttpReply:  # fmt: skip
        """`method` to `url` with `body` (JSON; None: no body) and `headers` beside the client's;
        as `post` otherwise."""
        origin, target = _origin_and_target(url)
        head = self._head(origin, target, method, body, headers or {})
        body = body or b""
        async with asyncio.timeout(timeout_s):
            connection = self._kept(origin)
            if connection is not None:
                try:
                    return await self._exchange(origin, connection, head, body, reused=True)
                except _Reused:
                    pass
            return await self._exchange(origin, await self._open(origin), head, body, reused=False)

    def _head(
        self, origin: _Origin, target: str, method: str, body: bytes | None, extra: dict[str, str]
    ) -> h11.Request:
        headers = [
            ("Host", origin.host_header),
            ("User-Agent", USER_AGENT),
            ("Accept", "application/json"),
            ("Accept-Encoding", "gzip, deflate"),
            *([("Content-Type", "application/json")] if body is not None else []),
            *{**self.headers, **extra}.items(),
            ("Content-Length", str(len(body or b""))),
        ]
        return h11.Request(method=method, target=target, headers=headers)

    def _kept(self, origin: _Origin) -> _Connection | None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # connections of an earlier loop cannot be used on this one
            self._idle, self._loop = {}, loop
        idle = self._idle.get(origin, [])
        now = time.monotonic()
        while idle:
            connection = idle.pop()  # the most recently used: the least likely to be closed
            if connection.usable(now):
                return connection
            connection.close()
        return None

    async def _open(self, origin: _Origin) -> _Connection:
        tls = None
        if origin.scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            tls = self._tls
        try:
            reader, writer = await asyncio.open_connection(
                origin.host, origin.port, ssl=tls, server_hostname=origin.host if tls else None, limit=2**20
            )
        except (OSError, ssl.SSLError) as error:
            raise HttpFailure(f"cannot connect to {origin.host}:{origin.port}: {error}") from None
        return _Connection(reader, writer)

    async def _exchange(
        self, origin: _Origin, connection: _Connection, head: h11.Request, body: bytes, *, reused: bool
    ) -> HttpReply:
        protocol = connection.protocol
        received = False
        try:
            connection.writer.write(protocol.send(head))
            for piece in protocol.send_with_data_passthrough(h11.Data(data=body)):
                connection.writer.write(piece)
            connection.writer.write(protocol.send(h11.EndOfMessage()))
            await connection.writer.drain()
            status, headers, chunks = 0, {}, []
            while True:
                event = protocol.next_event()
                if event is h11.NEED_DATA:
                    data = await connection.reader.read(READ_BYTES)
                    received |= bool(data)
                    protocol.receive_data(data)  # b"": the server closed the connection
                elif isinstance(event, h11.Response):
                    status = event.status_code
                    headers = {
                        name.decode("latin-1"): value.decode("latin-1") for name, value in event.headers
                    }
                elif isinstance(event, h11.Data):
                    chunks.append(event.data)
                elif isinstance(event, h11.EndOfMessage):
                    break
                elif isinstance(event, h11.ConnectionClosed):
                    raise HttpFailure("the server closed the connection before its reply was complete")
                # InformationalResponse (100 Continue and the like): wait for the real one
        except (OSError, h11.ProtocolError, HttpFailure) as error:
            connection.close()
            if reused and not received:
                raise _Reused from None
            if isinstance(error, HttpFailure):
                raise
            what = "malformed reply" if isinstance(error, h11.ProtocolError) else "connection failed"
            raise HttpFailure(f"{what} from {origin.host}:{origin.port}: {error}") from None
        except BaseException:  # cancelled or timed out mid-exchange: the connection is unusable
            connection.close()
            raise
        self._keep(origin, connection)
        return HttpReply(status, headers, _decoded(b"".join(chunks), headers.get("content-encoding")))

    def _keep(self, origin: _Origin, connection: _Connection) -> None:
        protocol = connection.protocol
        if protocol.our_state is h11.DONE and protocol.their_state is h11.DONE:
            protocol.start_next_cycle()
            connection.idle_since = time.monotonic()
            self._idle.setdefault(origin, []).append(connection)
        else:  # `Connection: close`, or a reply framed by closing the connection
            connection.close()

    async def close(self) -> None:
        """Close the kept connections."""
        for idle in self._idle.values():
            for connection in idle:
                connection.close()
        self._idle = {}


def _decoded(body: bytes, encoding: str | None) -> bytes:
    encoding = (encoding or "").strip().lower()
    try:
        if encoding in ("gzip", "x-gzip"):
            return zlib.decompress(body, 16 + zlib.MAX_WBITS)
        if encoding == "deflate":
            try:
                return zlib.decompress(body)
            except zlib.error:  # raw deflate, as some servers send it
                return zlib.decompress(body, -zlib.MAX_WBITS)
    except zlib.error as error:
        raise HttpFailure(f"reply body not valid {encoding}: {error}") from None
    return body


__all__ = ["HttpClient", "HttpFailure", "HttpReply"]
