"""The hosted checkout and the browser script in a real headless browser: Debian's chromium
driven by playwright (no browser download), against the app on a real loopback port. Every
request that leaves the service's origin (or, for the browser script, the merchant page's own
origin) is aborted and recorded, and each test asserts none was attempted.

The browser runs in its own thread (playwright's sync API, one browser for the module); the
app runs on the test's event loop, which keeps serving while a scenario runs in that thread."""
from __future__ import annotations

import asyncio
import os
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

import aiohttp
import pytest
from aiohttp import web

from app.server import create_app
from models.payments import Payment

CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
APPROVED, DECLINED, THREE_DS = "4242424242424242", "4000000000000002", "4000002500003155"


@pytest.fixture(scope="module")
def browser():
    """(executor, browser): the browser lives in the executor's one thread."""
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
class Live:
    base: str                 # the service: http://127.0.0.1:PORT
    shop: str                 # the merchant's own site (another origin): http://127.0.0.1:PORT2
    sk: str
    pk: str
    merchant_id: str
    pool: ThreadPoolExecutor
    browser: object

    async def api(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        async with aiohttp.ClientSession() as s:
            async with s.request(method, self.base + path, json=body,
                                 headers={"Authorization": f"Bearer {self.sk}"}) as r:
                return r.status, await r.json()

    async def run(self, scenario, *args, allowed: tuple[str, ...] | None = None, js: bool = True):
        """Run `scenario(page, *args)` in the browser thread with outside requests blocked (and
        JavaScript off with js=False: the pages must work without it)."""
        allowed = allowed or (self.base,)
        blocked: list[str] = []
        errors: list[str] = []

        def go():
            ctx = self.browser.new_context(locale="en-US", java_script_enabled=js)
            ctx.set_default_timeout(15000)

            def guard(route):
                u = urlsplit(route.request.url)
                if u.scheme in ("data", "blob") or f"{u.scheme}://{u.netloc}" in allowed:
                    route.continue_()
                else:
                    blocked.append(route.request.url)
                    route.abort()
            ctx.route("**/*", guard)
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            # A 4xx answer (a decline is a 402) is logged by the browser; it is not an error of the page.
            page.on("console", lambda m: m.type == "error" and not re.match(
                r"Failed to load resource: the server responded with a status of 4\d\d", m.text)
                and errors.append(m.text))
            try:
                return scenario(page, *args)
            finally:
                ctx.close()
        out = await asyncio.get_running_loop().run_in_executor(self.pool, go)
        assert blocked == [], f"requests left the service's origin: {blocked}"
        assert errors == [], f"errors in the page: {errors}"
        return out


@pytest.fixture
async def live(aiohttp_server, base_settings, clock, browser):
    return await start_live(aiohttp_server, base_settings, clock, browser, _shop_app)


async def start_live(aiohttp_server, base_settings, clock, browser, shop_app) -> Live:
    """The service on a loopback port and the merchant's page `shop_app(service_url)` on another
    (allowed by CORS), with a new merchant."""
    port, shop_port = _free_port(), _free_port()
    base, shop = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{shop_port}"
    settings = replace(base_settings, public_url=base, pay_url=f"{base}/pay", js_url=f"{base}/js",
                       cors_origins=[shop])
    await aiohttp_server(create_app(settings, clock=clock), port=port)
    await aiohttp_server(shop_app(base), port=shop_port)
    from services.identity.merchants import create_merchant
    m, keys = await create_merchant(email=f"shop-{os.urandom(4).hex()}@example.com", name="Souk Online")
    return Live(base, shop, keys["secret_key"], keys["publishable_key"], m.id, *browser)


def _shop_app(service: str) -> web.Application:
    """The merchant's own page on another origin, using the browser script from the service."""
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<script src="{service}/js/v1/qafila.js"></script><script src="/shop.js" defer></script></head>
<body><input id="pk"><input id="secret"><input id="number"><button id="pay">Pay</button>
<output id="result"></output></body></html>"""
    script = """document.getElementById("pay").addEventListener("click", function () {
  var q;
  try { q = Qafila(document.getElementById("pk").value); }
  catch (e) { document.getElementById("result").textContent = "error:" + e.message; return; }
  q.confirmPayment(document.getElementById("secret").value,
                   {card: {number: document.getElementById("number").value, exp_month: 12, exp_year: 2030, cvc: "123"}})
   .then(function (r) { document.getElementById("result").textContent = "status:" + r.status; },
         function (e) { document.getElementById("result").textContent = "error:" + e.message; });
});"""

    async def index(request):
        return web.Response(text=page, content_type="text/html")

    async def js(request):
        return web.Response(text=script, content_type="text/javascript")
    app = web.Application()
    app.router.add_get("/", index)
    app.router.add_get("/shop.js", js)
    return app


def _fill_card(page, number: str, **extra) -> None:
    page.fill("#number", number)
    page.fill("#expiry", "12/30")
    page.fill("#cvc", "123")
    page.fill("#name", "Ayşe Yılmaz")
    for field, value in extra.items():
        page.fill(f"#{field}", value)
    page.click("#pay")


# ---------------------------------------------------------------- scenarios (browser thread)

def pay_approved(page, url: str) -> dict:
    page.goto(url)
    assert page.locator('[data-testid="amount"]').inner_text() == "150.00 TRY"
    page.evaluate("window.__sameDocument = true")
    _fill_card(page, APPROVED, email="buyer@example.com")
    page.wait_for_selector('[data-testid="success"]')
    assert page.evaluate("window.__sameDocument") is True          # paid without leaving the page
    pay_id = page.locator('[data-testid="payment-id"]').inner_text()
    page.click("#receipt-link")
    page.wait_for_selector('[data-testid="receipt"]')
    return {"pay_id": pay_id, "receipt_id": page.locator('[data-testid="receipt-payment-id"]').inner_text(),
            "receipt_amount": page.locator('[data-testid="receipt-amount"]').inner_text(), "url": page.url}


def declined_then_approved(page, url: str) -> dict:
    page.goto(url)
    page.evaluate("window.__sameDocument = true")
    _fill_card(page, DECLINED)
    page.wait_for_selector("#error:not([hidden])")
    error = page.locator("#error").inner_text()
    cleared = page.input_value("#number")
    page.fill("#number", APPROVED)
    page.fill("#cvc", "123")
    page.click("#pay")
    page.wait_for_selector('[data-testid="success"]')
    return {"error": error, "cleared": cleared, "same": page.evaluate("window.__sameDocument"),
            "pay_id": page.locator('[data-testid="payment-id"]').inner_text()}


def three_d_secure(page, url: str) -> dict:
    page.goto(url)
    _fill_card(page, THREE_DS)
    page.wait_for_selector('[data-testid="challenge"]')
    text = page.locator('[data-testid="challenge"]').inner_text()
    page.click("#approve")
    page.wait_for_selector('[data-testid="success"]')
    return {"challenge": text, "pay_id": page.locator('[data-testid="payment-id"]').inner_text()}


def arabic(page, url: str) -> dict:
    page.goto(url)
    html = page.locator("html")
    return {"dir": html.get_attribute("dir"), "lang": html.get_attribute("lang"),
            "button": page.locator("#pay").inner_text(), "direction": page.evaluate(
                "getComputedStyle(document.body).direction")}


def script_confirms(page, shop: str, pk: str, secret: str, number: str) -> str:
    page.goto(shop + "/")
    page.fill("#pk", pk)
    page.fill("#secret", secret)
    page.fill("#number", number)
    page.click("#pay")
    if number == THREE_DS:
        frame = page.frame_locator("iframe[title='3-D Secure']")
        frame.locator("#approve").click()
    page.wait_for_function("document.getElementById('result').textContent !== ''", timeout=20000)
    return page.locator("#result").inner_text()


# ---------------------------------------------------------------- tests

async def test_pay_a_link_see_success_and_receipt_then_find_the_payment(live):
    status, link = await live.api("POST", "/api/payment-links", {"amount": 15000, "currency": "TRY",
                                                                 "description": "Copper tray"})
    assert status == 200 and link["url"] == f"{live.base}/pay/{link['id']}"
    out = await live.run(pay_approved, link["url"])
    assert out["receipt_id"] == out["pay_id"] and out["url"].startswith(f"{live.base}/pay/{out['pay_id']}/receipt/")
    assert out["receipt_amount"] == "150.00 TRY"
    status, p = await live.api("GET", f"/api/payments/{out['pay_id']}")
    assert status == 200 and p["status"] == "succeeded" and p["payment_link"] == link["id"]
    assert p["receipt_url"] == out["url"]            # issue 22: the page links the one receipt_url
    status, g = await live.api("POST", "/graphql", {"query": "query($id: ID!) { payment(id: $id) { id status "
                                                              "paymentLink amount } }", "variables": {"id": out["pay_id"]}})
    assert g["data"]["payment"] == {"id": out["pay_id"], "status": "succeeded", "paymentLink": link["id"],
                                    "amount": 15000}


async def test_a_declined_card_then_an_approved_one_without_leaving_the_page(live):
    status, link = await live.api("POST", "/api/payment-links", {"amount": 15000, "currency": "TRY"})
    out = await live.run(declined_then_approved, link["url"])
    assert "The card was declined by the bank." in out["error"] and out["cleared"] == "" and out["same"] is True
    statuses = sorted(await Payment.filter(payment_link=link["id"]).values_list("status", flat=True))
    assert statuses == ["failed", "succeeded"]


async def test_the_three_d_secure_card_through_its_challenge(live):
    status, link = await live.api("POST", "/api/payment-links", {"amount": 15000, "currency": "TRY"})
    out = await live.run(three_d_secure, link["url"])
    assert "3155" in out["challenge"]
    assert (await Payment.get(id=out["pay_id"])).status == "succeeded"


async def test_an_arabic_page_is_right_to_left(live):
    status, link = await live.api("POST", "/api/payment-links", {"amount": 15000, "currency": "SAR"})
    out = await live.run(arabic, link["url"] + "?locale=ar")
    assert (out["dir"], out["lang"], out["direction"]) == ("rtl", "ar", "rtl")
    assert out["button"].startswith("ادفع") and "١٥٠٫٠٠" in out["button"]


async def test_the_browser_script_confirms_an_intent_from_another_origin(live):
    results = {}
    for number in (APPROVED, THREE_DS):
        status, intent = await live.api("POST", "/v1/payments/intent", {"amount": 5000, "currency": "TRY",
                                                                         "payment_method": "card"})
        assert status == 201
        results[number] = await live.run(script_confirms, live.shop, live.pk, intent["client_secret"], number,
                                         allowed=(live.base, live.shop))
        status, got = await live.api("GET", f"/v1/payments/{intent['id']}")
        assert got["status"] == "succeeded", got
    assert results == {APPROVED: "status:succeeded", THREE_DS: "status:succeeded"}
    # A secret key is refused by the script itself, before any request.
    status, intent = await live.api("POST", "/v1/payments/intent", {"amount": 5000, "currency": "TRY",
                                                                     "payment_method": "card"})
    out = await live.run(script_confirms, live.shop, live.sk, intent["client_secret"], APPROVED,
                         allowed=(live.base, live.shop))
    assert out.startswith("error:") and "publishable key" in out
