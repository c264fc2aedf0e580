"""Slow and greedy clients: a slowloris (request heads sent a byte at a time), a body that never
ends, and more connections than the process allows, against the app served on a real port by
app.serving (what `qafila serve` runs). The timeouts are small real wall-clock timeouts: that is
what is tested."""
from __future__ import annotations

import asyncio
import logging
import os
import socket
import subprocess
import sys
import time

import aiohttp
import pytest

from app.serving import ConnectionGuard, Limits, start_app

HEAD_TIMEOUT = 0.5
SLACK = 3.0            # a loaded 2-core CI machine: how late a timer may fire and a close arrive


@pytest.fixture
async def serve(app):
    """serve(**limits) -> (port, guard): the test's app on a free loopback port."""
    runners = []

    async def start(**limits) -> tuple[int, ConnectionGuard]:
        guard = ConnectionGuard(Limits(**limits))
        runner, port = await start_app(app, "127.0.0.1", 0, guard=guard)
        runners.append(runner)
        return port, guard
    yield start
    for runner in runners:
        await runner.cleanup()


async def until(condition, timeout: float = 5.0) -> None:
    """Wait (bounded) for the server to notice what the client did (a close arrives asynchronously)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


async def read_response(reader: asyncio.StreamReader) -> tuple[int, dict[str, str], bytes]:
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines[1:] if ":" in ln)}
    body = await asyncio.wait_for(reader.readexactly(int(headers.get("content-length", 0))), 10)
    return status, headers, body


async def connect(port: int, source: str = "127.0.0.1"):
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))


async def keepalive_get(port: int, source: str = "127.0.0.1", path: str = "/health"):
    """A connection that made one request, got its answer, and stays open (keep-alive)."""
    reader, writer = await connect(port, source)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: qafila.test\r\n\r\n".encode())
    status, headers, _ = await read_response(reader)
    assert status == 200
    return reader, writer


async def one_get(port: int, source: str) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await connect(port, source)
    try:
        writer.write(b"GET /health HTTP/1.1\r\nHost: qafila.test\r\nConnection: close\r\n\r\n")
        return await read_response(reader)
    finally:
        writer.close()


async def closed_by_server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, pace: float = 0.05,
                           max_bytes: int = 200) -> float | None:
    """Dribble one header byte every `pace` seconds until the server closes the connection; the
    seconds it took, or None if it was still open after `max_bytes` bytes."""
    start = time.monotonic()
    for _ in range(max_bytes):
        try:
            writer.write(b"x")
            got = await asyncio.wait_for(reader.read(1024), pace)
        except asyncio.TimeoutError:
            continue
        except OSError:                       # reset: closed as well
            return time.monotonic() - start
        if got == b"":
            return time.monotonic() - start
    return None


async def dribble_all_until_closed(conns, *, pace: float = 0.05, max_bytes: int = 200) -> list[asyncio.Future]:
    """The slowloris of many connections: one byte to each every `pace` seconds, from one task,
    while one plain read per connection waits for the server to close it. Answers, per
    connection, a future of the seconds until it was closed (None if still open after
    `max_bytes` bytes). The same load on the server as `closed_by_server` per connection, with
    a fraction of the client's own work: no timer and no task per byte, so the client does not
    starve the event loop it shares with the server under test."""
    start = time.monotonic()

    async def closed(reader: asyncio.StreamReader) -> float:
        try:
            while await reader.read(1024):
                pass
        except OSError:                       # reset: closed as well
            pass
        return time.monotonic() - start

    waits = [asyncio.ensure_future(closed(r)) for r, _ in conns]

    async def writer_task() -> None:
        for _ in range(max_bytes):
            if all(w.done() for w in waits):
                return
            for (_, writer), w in zip(conns, waits):
                if not w.done():
                    try:
                        writer.write(b"x")
                    except OSError:
                        pass
            await asyncio.sleep(pace)

    async def bounded(w: asyncio.Future, writing: asyncio.Future) -> float | None:
        done, _ = await asyncio.wait({w, writing}, return_when=asyncio.FIRST_COMPLETED)
        if w in done:
            return w.result()
        w.cancel()
        return None

    writing = asyncio.ensure_future(writer_task())
    return [asyncio.ensure_future(bounded(w, writing)) for w in waits]


async def test_slowloris_connections_are_closed_and_the_service_keeps_answering(serve, caplog):
    # A longer cut here: the normal request must be answered before it even on a loaded machine.
    head_timeout = 2.0
    port, guard = await serve(header_timeout=head_timeout, max_connections=2000, max_connections_per_client=0)
    n = 300
    conns = await asyncio.gather(*(connect(port) for _ in range(n)))
    for _, writer in conns:
        writer.write(b"GET /health HTTP/1.1\r\nHost: qafila.test\r\nX-Slow: ")
    dribblers = await dribble_all_until_closed(conns)
    try:
        asked = time.monotonic()
        async with aiohttp.ClientSession() as http:            # a normal client meanwhile
            async with http.get(f"http://127.0.0.1:{port}/health") as r:
                assert r.status == 200
        answered_in = time.monotonic() - asked
        cut = sum(d.done() for d in dribblers)
        assert not cut, f"{cut} slow connections were cut before the normal request was answered ({answered_in:.3f} s)"
        took = await asyncio.gather(*dribblers)
    finally:
        for _, writer in conns:
            writer.close()
    assert None not in took, "every slow connection was closed"
    assert max(took) < head_timeout + SLACK
    assert guard.header_timeouts == n
    await until(lambda: guard.open == 0)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_kept_alive_connection_is_timed_per_request_head(serve):
    port, guard = await serve(header_timeout=HEAD_TIMEOUT, max_connections=100)
    reader, writer = await keepalive_get(port)
    try:
        # Idle between requests is the keep-alive timeout's business, not the header timeout's.
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(reader.read(1), HEAD_TIMEOUT * 2)
        writer.write(b"GET /health HTTP/1.1\r\nHost: qafila.test\r\n\r\n")
        assert (await read_response(reader))[0] == 200
        # The next head, dribbled: cut like a first one.
        writer.write(b"GET /health HTTP/1.1\r\n")
        took = await closed_by_server(reader, writer)
        assert took is not None and took < HEAD_TIMEOUT + SLACK
        assert guard.header_timeouts == 1
    finally:
        writer.close()


async def test_a_body_that_never_ends_is_cut_and_normal_bodies_pass(serve, caplog):
    port, guard = await serve(header_timeout=5, body_timeout=HEAD_TIMEOUT, max_connections=100)
    reader, writer = await connect(port)
    try:
        writer.write(b"POST /graphql HTTP/1.1\r\nHost: qafila.test\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 1000\r\n\r\n{\"query\": \"")
        took = await closed_by_server(reader, writer)
        assert took is not None and took < HEAD_TIMEOUT + SLACK
        assert guard.body_timeouts == 1
    finally:
        writer.close()
    async with aiohttp.ClientSession() as http:
        async with http.post(f"http://127.0.0.1:{port}/graphql", json={"query": "{ __typename }"}) as r:
            assert r.status == 200 and (await r.json())["data"] == {"__typename": "Query"}
    assert guard.body_timeouts == 1
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_connection_limits_per_client_address_and_per_process(serve):
    port, guard = await serve(header_timeout=5, max_connections=12, max_connections_per_client=8)
    kept = [await keepalive_get(port, "127.0.0.1") for _ in range(8)]
    try:
        status, headers, body = await one_get(port, "127.0.0.1")          # the 9th from one address
        assert status == 503 and headers["retry-after"] == "1" and headers["connection"] == "close"
        assert b'"code":"service_unavailable"' in body
        kept += [await keepalive_get(port, "127.0.0.2") for _ in range(4)]  # other addresses still served
        assert guard.open == 12
        status, headers, _ = await one_get(port, "127.0.0.3")            # the process is full
        assert status == 503 and headers["retry-after"] == "1"
        assert guard.refused == 2

        for _, writer in kept[:2]:                                      # two leave: room again
            writer.close()
        await until(lambda: guard.open == 10)
        status, _, _ = await one_get(port, "127.0.0.3")
        assert status == 200
    finally:
        for _, writer in kept:
            writer.close()
    await until(lambda: guard.open == 0 and not guard.per_client)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_qafila_serve_applies_the_header_timeout_on_both_ports(tmp_path):
    """The limits are in `qafila serve` itself, not only in a test harness."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("QAFILA_") and k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"QAFILA_ENV": "test", "QAFILA_VAR_DIR": str(tmp_path / "var"),
                "DATABASE_URL": f"sqlite://{tmp_path}/serve.sqlite3", "QAFILA_HEADER_TIMEOUT": str(HEAD_TIMEOUT)})
    ports = [_free_port(), _free_port()]
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(ports[0]),
                             "--crm-port", str(ports[1])], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        deadline, output = time.monotonic() + 60, []
        while time.monotonic() < deadline:
            output.append(proc.stdout.readline())
            if not output[-1] or "serving main on" in output[-1]:
                break
        assert "serving main on" in output[-1], "".join(output)
        for port in ports:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
                s.sendall(b"GET /health HTTP/1.1\r\nHost: qafila.test\r\n")      # and nothing more
                start = time.monotonic()
                assert s.recv(1024) == b""                                     # closed by the server
                assert time.monotonic() - start < HEAD_TIMEOUT + SLACK
    finally:
        proc.terminate()
        proc.wait(30)


def test_connection_settings_are_validated():
    from app.settings import SettingsError, load_settings

    env = {"QAFILA_ENV": "test"}
    assert Limits.from_settings(load_settings(env)) == Limits(header_timeout=10.0, body_timeout=30.0,
                                                              max_connections=1000, max_connections_per_client=256)
    s = load_settings({**env, "QAFILA_HEADER_TIMEOUT": "2.5", "QAFILA_BODY_TIMEOUT": "60",
                       "QAFILA_MAX_CONNECTIONS": "5000", "QAFILA_MAX_CONNECTIONS_PER_CLIENT": "0"})
    assert Limits.from_settings(s) == Limits(2.5, 60.0, 5000, 0)
    for name, bad in [("QAFILA_HEADER_TIMEOUT", "0"), ("QAFILA_HEADER_TIMEOUT", "inf"), ("QAFILA_BODY_TIMEOUT", "-3"),
                      ("QAFILA_MAX_CONNECTIONS", "0"), ("QAFILA_MAX_CONNECTIONS", "lots"),
                      ("QAFILA_MAX_CONNECTIONS_PER_CLIENT", "-1")]:
        with pytest.raises(SettingsError, match=f"^{name}="):
            load_settings({**env, name: bad})
