"""Issue 39 in the browser: the hosted checkout of a BNPL intent shows the schedule (Arabic,
English, Turkish) and goes on to the provider's page and back; a payment link offers the BNPL
methods its amount and currency allow and collects the buyer, the address and its one item."""
from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from models.intents import PaymentIntent
from tests.checkout_fixtures import make_link, open_page, path_of, submit
from tests.intents_fixtures import create
from tests.test_bnpl import bnpl_body


def _methods(html: str) -> list[str]:
    return re.findall(r'<li data-method="([a-z0-9_]+)"', html)


async def _provider(client, url: str, action: str):
    _, html, _ = await open_page(client, url)
    token = unescape(re.search(r'name="token" value="([^"]+)"', html).group(1))
    return await client.post(urlsplit(url).path, data={"token": token, "action": action}, allow_redirects=False)


@pytest.mark.parametrize("lang,words", [("en", ("Pay in 4", "interest-free")), ("ar", ("قسّمها على 4 دفعات", "بدون فوائد")),
                                        ("tr", ("4 taksitte öde", "faizsiz"))])
async def test_intent_checkout_shows_the_schedule_and_finishes_at_the_provider(client, merchant, lang, words):
    i = await create(client, merchant.sk, **bnpl_body(amount=100_002))
    path = path_of(i["checkout_url"])
    status, html, _ = await open_page(client, f"{path}?locale={lang}")
    assert status == 200 and 'data-testid="bnpl-schedule"' in html, html
    assert all(w in html for w in words) and html.count("<tr data-due=") == 4
    status, _, headers = await submit(client, path, {"action": "local", "locale": lang})
    assert status == 303 and f"{i['id']}/bnpl_split4?token=" in headers["Location"]
    r = await _provider(client, headers["Location"], "approve")
    back = urlsplit(r.headers["Location"])
    assert back.path == f"{path}/result" and parse_qs(back.query)["status"] == ["requires_capture"]
    status, html, _ = await open_page(client, f"{back.path}?{back.query}&locale=en")
    assert status == 200 and "Approved. The merchant is paid now" in html
    assert (await PaymentIntent.get(id=i["id"])).status == "requires_capture"


async def test_rejected_buyer_sees_the_refusal_on_the_checkout(client, merchant):
    i = await create(client, merchant.sk, **bnpl_body(phone="+966500000002"))
    path = path_of(i["checkout_url"])
    status, html, _ = await submit(client, path, {"action": "local", "locale": "en"})
    assert status == 402, html
    assert (await PaymentIntent.get(id=i["id"])).status == "requires_payment_method"


async def test_link_offers_bnpl_its_amount_allows_and_collects_the_buyer(client, merchant):
    link = await make_link(client, merchant.sk, amount=20_000, currency="SAR", description="Linen dress")
    _, html, _ = await open_page(client, link["url"] + "?locale=en")
    assert _methods(html)[-2:] == ["bnpl_split4", "bnpl_split3"] and 'name="bnpl_postal_code"' in html
    split4 = html.split('data-testid="bnpl-schedule-bnpl_split4"')[1].split("</table>")[0]
    assert split4.count("<tr data-due=") == 4 and "Pay in 4 interest-free parts" in split4 and "50.00" in split4
    _, html, _ = await open_page(client, link["url"] + "?locale=tr")
    assert "3 faizsiz taksitte öde" in html
    small = await make_link(client, merchant.sk, amount=6_000, currency="SAR")
    _, html, _ = await open_page(client, small["url"])
    assert "bnpl_split4" in _methods(html) and "bnpl_split3" not in _methods(html)     # 60 SAR < split3's 100
    path = path_of(link["url"])
    form = {"action": "choose", "method": "bnpl_split4", "locale": "en", "bnpl_name": "Sara", "bnpl_email": "s@example.com",
            "bnpl_phone": "+966500000001", "bnpl_line1": "King Fahd Rd 1", "bnpl_city": "Riyadh", "bnpl_country": "sa"}
    status, html, _ = await submit(client, path, form)
    assert status == 400 and "shipping_address.postal_code is required" in unescape(html)
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0
    status, _, headers = await submit(client, path, {**form, "bnpl_postal_code": "12271"})
    assert status == 303
    intent_path = urlsplit(headers["Location"]).path
    i = await PaymentIntent.get(id=intent_path.rsplit("/", 1)[1])
    assert i.payment_method == "bnpl_split4" and i.metadata == {"payment_link": link["id"]}
    assert i.method_details["items"] == [{"name": "Linen dress", "quantity": 1, "unit_amount": 20_000}]
    assert i.method_details["shipping_address"]["country"] == "SA"
    status, _, headers = await submit(client, intent_path, {"action": "local"})
    r = await _provider(client, headers["Location"], "approve")
    assert parse_qs(urlsplit(r.headers["Location"]).query)["status"] == ["requires_capture"]
