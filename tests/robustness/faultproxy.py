"""A TCP proxy on a loopback port in front of PostgreSQL or Redis, to cut it off and bring it back.

The app under test connects to the proxy instead of the service; `down()` drops every proxied
connection and stops listening (new connections are refused, as when the service is stopped);
`up()` listens on the same port again. The machine's shared PostgreSQL and Redis are never
touched.
"""
from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit, urlunsplit


class FaultProxy:
    def __init__(self, target_host: str, target_port: int, *, host: str = "127.0.0.1"):
        assert target_host in ("127.0.0.1", "localhost", "::1"), "loopback services only"
        self.target = (target_host, target_port)
        self.host = host
        self.port = 0
        self._server: asyncio.base_events.Server | None = None
        self._pipes: set[asyncio.Task] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self.accepted = 0
        self._sent = asyncio.Event()        # set when bytes went from the app to the service

    async def next_request(self, timeout: float = 10) -> None:
        """Wait until the app sends the service something (a query, a command) from now on."""
        self._sent.clear()
        await asyncio.wait_for(self._sent.wait(), timeout)

    @classmethod
    def for_url(cls, url: str) -> FaultProxy:
        parts = urlsplit(url)
        return cls(parts.hostname or "127.0.0.1", parts.port or {"redis": 6379}.get(parts.scheme, 5432))

    def url(self, url: str) -> str:
        """`url` with its host and port replaced by the proxy's."""
        parts = urlsplit(url)
        auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
        return urlunsplit((parts.scheme, f"{auth}{self.host}:{self.port}", parts.path, parts.query, parts.fragment))

    async def start(self) -> FaultProxy:
        await self.up()
        return self

    async def up(self) -> None:
        if self._server is None:
            self._server = await asyncio.start_server(self._accept, self.host, self.port, reuse_address=True)
            self.port = self._server.sockets[0].getsockname()[1]

    async def down(self) -> None:
        """Refuse new connections and drop the open ones (both directions, at once)."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for w in list(self._writers):
            w.transport.abort()
        for t in list(self._pipes):
            t.cancel()
        if self._pipes:
            await asyncio.wait(list(self._pipes), timeout=2)

    async def close(self) -> None:
        await self.down()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        self._writers.add(writer)
        try:
            up_reader, up_writer = await asyncio.wait_for(asyncio.open_connection(*self.target), 5)
        except (OSError, asyncio.TimeoutError):
            writer.transport.abort()
            self._writers.discard(writer)
            return
        self._writers.add(up_writer)
        tasks = [asyncio.ensure_future(self._pump(reader, up_writer, self._sent)),
                 asyncio.ensure_future(self._pump(up_reader, writer, None))]
        self._pipes.update(tasks)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            for w in (writer, up_writer):
                w.transport.abort()
                self._writers.discard(w)
            self._pipes.difference_update(tasks)

    @staticmethod
    async def _pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, sent: asyncio.Event | None) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while True:
                data = await reader.read(65536)
                if not data:
                    return
                writer.write(data)
                if sent is not None:
                    sent.set()
                await writer.drain()
