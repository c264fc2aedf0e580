"""Helpers for the dashboard's browser tests (tests/test_dashboard_browser*.py): Debian's chromium
driven by playwright (no browser download), one browser per module in its own thread, against
the app on a real loopback port. Each scenario runs in a fresh browser context that

- aborts and records every request outside the service's origin, and records every same-origin
  request that is neither `/graphql` nor `/dashboard[/...]` (the page may call /graphql only);
- records page errors and console errors (a 4xx answer logged by the browser is not one);
- may start signed in: a cookie session (`qafila_session` + the JS-readable `qafila_csrf`) opened
  directly with services.identity.auth.open_session.

The built front end (app/static/dashboard) must exist: `cd dashboard && npm ci && npm run build`."""
from __future__ import annotations

import asyncio
import os
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

import aiohttp
import pytest

from app.server import BACKEND, create_app
from models.team import Member
from services.identity import auth
from tests.helpers import bearer

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "app" / "static" / "dashboard" / "index.html"
AXE = ROOT / "dashboard" / "node_modules" / "axe-core" / "axe.min.js"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
needs_browser = pytest.mark.skipif(not os.path.exists(CHROMIUM) or not DIST.exists(),
                                   reason=f"{CHROMIUM} or the dashboard build is missing")

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@pytest.fixture(scope="module")
def browser():
    """(executor, browser): the browser lives in the executor's one thread."""
    from playwright.sync_api import expect
    expect.set_options(timeout=15_000)       # expect(...) waits 5 s by default: short on a busy machine
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chromium")

    def start():
        from playwright.sync_api import sync_playwright
        pw = sync_playwright().start()
        return pw, pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
    pw, b = pool.submit(start).result(timeout=60)
    yield pool, b
    pool.submit(lambda: (b.close(), pw.stop())).result(timeout=30)
    pool.shutdown()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Seen:
    """What a scenario's page asked for."""
    blocked: list[str] = field(default_factory=list)       # other origins (aborted)
    other_paths: list[str] = field(default_factory=list)   # same origin, not /graphql nor /dashboard
    graphql_posts: int = 0
    errors: list[str] = field(default_factory=list)


@dataclass
class Dash:
    base: str                 # the service: http://127.0.0.1:PORT
    merchant_id: str
    email: str                # the owner's e-mail
    sk: str
    pool: ThreadPoolExecutor
    browser: object
    app: object
    clock: object

    @property
    def mailer(self):
        return self.app[BACKEND].runtime.mailer

    async def api(self, method: str, path: str, body: dict | None = None, token: str | None = None) -> tuple[int, dict]:
        async with aiohttp.ClientSession() as s:
            async with s.request(method, self.base + path, json=body, headers=bearer(token or self.sk)) as r:
                return r.status, await r.json()

    async def gql(self, query: str, variables: dict | None = None, token: str | None = None) -> dict:
        async with aiohttp.ClientSession() as s:
            async with s.post(self.base + "/graphql", json={"query": query, "variables": variables or {}},
                              headers=bearer(token or self.sk)) as r:
                body = await r.json()
                assert "errors" not in body, body
                return body["data"]

    async def pay(self, amount: int = 10000, currency: str = "SAR", number: str = "4242424242424242", **body) -> dict:
        status, p = await self.api("POST", "/api/payments/create", {
            "amount": amount, "currency": currency,
            "payment_method": {"type": "card", "card": {"number": number, "exp_month": 12, "exp_year": 2030, "cvc": "123"}},
            **body})
        assert status == 200, p
        return p

    async def owner(self) -> Member:
        return await Member.get(merchant_id=self.merchant_id, email=self.email)

    async def owner_session(self):
        """A cookie session of the merchant's owner (.cookie, .csrf_token)."""
        return await auth.open_session(await self.owner(), kind="cookie")

    async def owner_token(self) -> str:
        return (await auth.open_session(await self.owner())).token

    async def member_session(self, roles: list[str], email: str | None = None):
        """A new member with `roles` (invited by the owner, accepted through the API) and its cookie session."""
        email = email or f"member-{os.urandom(4).hex()}@example.com"
        owner = await self.owner_token()
        status, inv = await self.api("POST", "/api/team/invites", {"email": email, "roles": roles}, token=owner)
        assert status == 201, inv
        mail = [m for m in self.mailer.sent if m.to == email][-1]
        token = re.search(r"/dashboard/accept-invite\?token=([A-Za-z0-9_\-]+)", mail.text).group(1)
        async with aiohttp.ClientSession() as s:
            async with s.post(self.base + "/api/team/invites/accept", json={"token": token}) as r:
                accepted = await r.json()
                assert r.status == 200, accepted
        return await auth.open_session(await Member.get(id=accepted["member"]["id"]), kind="cookie")

    async def run(self, scenario, *args, session=None, locale: str = "en-US", timeout_ms: int = 30000):
        """Run `scenario(page, *args)` in the browser thread; `session` (from open_session(kind="cookie"))
        signs the context in. Asserts: nothing left the origin, only /graphql and /dashboard were
        asked for, no page or console error. Returns (the scenario's result, Seen)."""
        seen = Seen()
        host = urlsplit(self.base).netloc

        def go():
            ctx = self.browser.new_context(locale=locale, accept_downloads=True)
            ctx.set_default_timeout(timeout_ms)
            if session is not None:
                ctx.add_cookies([
                    {"name": "qafila_session", "value": session.cookie, "url": self.base, "httpOnly": True, "sameSite": "Lax"},
                    {"name": "qafila_csrf", "value": session.csrf_token, "url": self.base, "sameSite": "Strict"},
                ])

            def guard(route):
                u = urlsplit(route.request.url)
                if u.scheme in ("data", "blob"):
                    return route.continue_()
                if u.netloc != host or u.scheme != "http":
                    seen.blocked.append(route.request.url)
                    return route.abort()
                if u.path == "/graphql":
                    seen.graphql_posts += route.request.method == "POST"
                    if route.request.method != "POST":
                        seen.other_paths.append(f"{route.request.method} {u.path}")
                elif not (u.path == "/dashboard" or u.path.startswith("/dashboard/")):
                    seen.other_paths.append(u.path)
                route.continue_()
            ctx.route("**/*", guard)
            page = ctx.new_page()
            page.on("pageerror", lambda e: seen.errors.append(str(e)))
            page.on("console", lambda m: m.type == "error" and not re.match(
                r"Failed to load resource: the server responded with a status of 4\d\d", m.text)
                and seen.errors.append(m.text))
            try:
                return scenario(page, *args)
            finally:
                ctx.close()
        out = await asyncio.get_running_loop().run_in_executor(self.pool, go)
        assert seen.blocked == [], f"requests left the service's origin: {seen.blocked}"
        assert seen.other_paths == [], f"the page called more than /graphql: {seen.other_paths}"
        assert seen.errors == [], f"errors in the page: {seen.errors}"
        return out, seen


@pytest.fixture
async def dash(aiohttp_server, base_settings, clock, browser) -> Dash:
    """The service on a loopback port with a new merchant in Kuwait (Asia/Kuwait, KWD has 3 decimals)."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    settings = replace(base_settings, public_url=base)
    app = create_app(settings, clock=clock)
    await aiohttp_server(app, port=port)
    from services.identity.merchants import create_merchant
    email = f"owner-{os.urandom(4).hex()}@example.com"
    m, keys = await create_merchant(email=email, name="Souk Kuwait")
    d = Dash(base, m.id, email, keys["secret_key"], *browser, app, clock)
    status, body = await d.api("PUT", "/api/merchant", {"country": "KW"})
    assert status == 200, body
    return d


def axe_violations(page, impact: tuple[str, ...] = ("critical",)) -> list[dict]:
    """axe-core's violations of these impacts on the page (axe bundled from npm: dashboard/node_modules)."""
    # Evaluated over the DevTools protocol: an injected <script> would be refused by the page's CSP.
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations'], runOnly: {type: 'tag', "
                           "values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}})).violations"
                           ".map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))}))")
    return [v for v in result if v["impact"] in impact]
