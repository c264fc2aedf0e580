"""A real webhook receiver for the tests: an aiohttp server on loopback that records every
request (raw body, headers) and answers by a plan (200, an error status, a redirect, hang)."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import pytest
from aiohttp import web
from tortoise.transactions import in_transaction

from services import events


@dataclass
class Received:
    path: str
    body: bytes
    headers: dict[str, str]


@dataclass
class Receiver:
    base: str = ""
    got: list[Received] = field(default_factory=list)
    plan: list = field(default_factory=list)        # per request: int status or "hang"; then `default`
    default: object = 200
    hang_release: asyncio.Event = field(default_factory=asyncio.Event)

    def url(self, path: str = "/hook") -> str:
        return self.base + path

    def for_path(self, path: str) -> list[Received]:
        return [r for r in self.got if r.path == path]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.got.append(Received(request.path, body, {k.lower(): v for k, v in request.headers.items()}))
        what = self.plan.pop(0) if self.plan else self.default
        if what == "hang":
            await self.hang_release.wait()
            return web.Response(status=200)
        if what == "redirect":
            raise web.HTTPFound(location=self.base + "/elsewhere")
        return web.Response(status=int(what), text="ok" if int(what) < 300 else "no")


@pytest.fixture
async def receiver():
    rx = Receiver()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", rx.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    rx.base = f"http://127.0.0.1:{port}"
    yield rx
    rx.hang_release.set()
    await runner.cleanup()


async def emit(merchant_id: str, type: str = "payment.succeeded", *, livemode: bool = False, obj: dict | None = None):
    async with in_transaction():
        return await events.emit(merchant_id=merchant_id, livemode=livemode, type=type,
                                 obj=obj or {"id": "pay_test123", "object": "payment", "status": "succeeded",
                                             "amount": 5000, "currency": "TRY"})
