"""Issue 39 in a real browser (Chromium, as tests/test_checkout_browser.py): a payment link paid
with Pay in 4 (the buyer's fields, the provider's page, back to the result page), with JavaScript
on and off, and qafila.js asking for eligibility and following the redirect from the merchant's
own origin (a refused buyer resolves with bnpl_not_eligible, no redirect)."""
from __future__ import annotations

import os
from urllib.parse import urlsplit

import pytest
from aiohttp import web

from models.intents import PaymentIntent
from tests.test_bnpl import bnpl_body
from tests.test_checkout_browser import CHROMIUM, browser, live, start_live  # noqa: F401  (fixtures)

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing")


# ---------------------------------------------------------------- scenarios (browser thread)

def bnpl_link(page, url: str) -> dict:
    page.goto(url + "?locale=ar")
    page.click("#method-bnpl_split4")                                # the method choice comes first
    choice = '[data-testid="panel-bnpl_split4"] '
    page.locator(choice).wait_for(state="visible")
    for name, value in (("bnpl_name", "سارة"), ("bnpl_email", "sara@example.com"), ("bnpl_phone", "+966500000001"),
                        ("bnpl_line1", "King Fahd Rd 12"), ("bnpl_city", "Riyadh"), ("bnpl_country", "SA"),
                        ("bnpl_postal_code", "12271")):
        page.fill(choice + f'input[name="{name}"]', value)
    page.click("#choose-bnpl_split4")
    page.wait_for_selector('[data-testid="bnpl-schedule"]')
    rows = page.locator('[data-testid="bnpl-schedule"] tr').count()
    direction = page.locator("html").get_attribute("dir")           # the schedule in Arabic
    page.click("#pay-local")
    page.wait_for_selector('[data-testid="sandbox-bnpl_split4"]')
    provider_url = page.url
    page.click("#approve")
    page.wait_for_selector('[data-testid="bnpl-schedule"]')
    return {"rows": rows, "provider_url": provider_url, "url": page.url, "dir": direction}


def script_bnpl(page, shop: str, pk: str, secret: str, approve: bool) -> dict:
    page.goto(shop + "/")
    page.fill("#pk", pk)
    page.fill("#secret", secret)
    page.click("#eligibility")
    page.wait_for_function("document.getElementById('eligible').textContent !== ''", timeout=20000)
    eligible = page.locator("#eligible").inner_text()
    page.click("#pay")
    if approve:
        page.wait_for_selector('[data-testid="sandbox-bnpl_split4"]')     # qafila.js sent the browser there
        page.click("#approve")
        page.wait_for_selector('[data-testid="bnpl-schedule"]')
        return {"eligible": eligible, "url": page.url}
    page.wait_for_function("document.getElementById('result').textContent !== ''", timeout=20000)
    return {"eligible": eligible, "result": page.locator("#result").inner_text()}


def _shop_app(service: str) -> web.Application:
    page = f"""<!doctype html><html><head><meta charset="utf-8"><title>Shop</title>
<script src="{service}/js/v1/qafila.js"></script><script src="/shop.js" defer></script></head>
<body><input id="pk"><input id="secret"><button id="eligibility">Eligible?</button><output id="eligible"></output>
<button id="pay">Pay in 4</button><output id="result"></output></body></html>"""
    script = """var $ = function (id) { return document.getElementById(id); };
$("eligibility").addEventListener("click", function () {
  Qafila($("pk").value).bnplEligibility({method: "bnpl_split4", amount: 100001, currency: "SAR",
                                          phone: "+966500000001"}).then(function (r) {
    $("eligible").textContent = r.status + ":" + r.schedule.map(function (p) { return p.amount; }).join(",");
  }, function (e) { $("eligible").textContent = "error:" + e.message; });
});
$("pay").addEventListener("click", function () {
  Qafila($("pk").value).confirmPayment($("secret").value).then(function (r) {
    $("result").textContent = r.status + ":" + (r.error ? r.error.code + ":" + r.error.decline_code : "");
  }, function (e) { $("result").textContent = "error:" + e.message; });
});"""

    async def index(request):
        return web.Response(text=page, content_type="text/html")

    async def js(request):
        return web.Response(text=script, content_type="text/javascript")
    app = web.Application()
    app.router.add_get("/", index)
    app.router.add_get("/shop.js", js)
    return app


@pytest.fixture
async def live_shop(aiohttp_server, base_settings, clock, browser):  # noqa: F811
    return await start_live(aiohttp_server, base_settings, clock, browser, _shop_app)


# ---------------------------------------------------------------- tests

@pytest.mark.parametrize("js", [True, False])
async def test_a_sar_link_paid_in_4_through_the_providers_page(live, js):  # noqa: F811
    status, link = await live.api("POST", "/api/payment-links", {"amount": 20_000, "currency": "SAR",
                                                                 "description": "Linen dress"})
    out = await live.run(bnpl_link, link["url"], js=js)
    pay_id = urlsplit(out["provider_url"]).path.split("/")[2]
    assert out["dir"] == "rtl" and out["rows"] == 4
    assert urlsplit(out["provider_url"]).path == f"/pay/{pay_id}/bnpl_split4"
    assert urlsplit(out["url"]).path == f"/pay/{pay_id}/result"
    i = await PaymentIntent.get(id=pay_id)
    assert i.status == "requires_capture" and i.metadata == {"payment_link": link["id"]}


async def test_qafila_js_asks_eligibility_and_follows_the_redirect(live_shop):
    live, shop_url = live_shop, live_shop.shop
    status, intent = await live.api("POST", "/v1/payments/intent", {**bnpl_body(), "return_url": None})
    assert status == 201, intent
    out = await live.run(script_bnpl, shop_url, live.pk, intent["client_secret"], True, allowed=(live.base, shop_url))
    assert out["eligible"] == "eligible:25001,25000,25000,25000"
    assert urlsplit(out["url"]).path == f"/pay/{intent['id']}/result"
    assert (await PaymentIntent.get(id=intent["id"])).status == "requires_capture"
    status, refused = await live.api("POST", "/v1/payments/intent",
                                     {**bnpl_body(phone="+966500000002"), "return_url": None})
    out = await live.run(script_bnpl, shop_url, live.pk, refused["client_secret"], False,
                         allowed=(live.base, shop_url))
    assert out["result"] == "requires_payment_method:bnpl_not_eligible:buyer_rejected"
