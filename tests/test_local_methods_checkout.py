"""Issue 23: the hosted checkout and payment links offer the local methods of their currency and
complete each flow over plain HTTP (no JavaScript): a KWD link through the KNET page to the
success page, an EGP link to its Fawry reference, STC Pay with its code, mada with 3-D Secure."""
from __future__ import annotations

import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from models.intents import PaymentIntent
from tests.checkout_fixtures import card_form, make_link, open_page, path_of, submit
from tests.intents_fixtures import create
from tests.payments_fixtures import no_exploration  # noqa: F401


def _choices(html: str) -> list[str]:
    return re.findall(r'<li data-method="([a-z_]+)"', html)


# The local method first where most buyers pay with it (issue 35); mada pays through the card form.
@pytest.mark.parametrize("currency,amount,expected", [("KWD", 12_500, ["knet", "card"]),
                                                      ("SAR", 10_000, ["card", "stcpay", "sadad"]),
                                                      ("BHD", 5_000, ["benefit", "card"]),
                                                      ("EGP", 50_000, ["fawry", "eg_wallet", "card"])])
async def test_link_checkout_offers_the_methods_of_its_currency(client, merchant, currency, amount, expected):
    link = await make_link(client, merchant.sk, amount=amount, currency=currency)
    for lang, rtl in (("ar", True), ("en", False), ("tr", False)):
        status, html, headers = await open_page(client, link["url"] + f"?locale={lang}")
        assert status == 200 and _choices(html) == expected, (lang, _choices(html))
        assert ('dir="rtl"' in html) is rtl
        assert "script-src 'self'" in headers["Content-Security-Policy"]
    status, html, _ = await open_page(client, link["url"] + "?locale=ar")
    assert "ادفع عبر" in html


async def test_kwd_link_paid_through_the_knet_page_ends_on_the_success_page(client, merchant):
    link = await make_link(client, merchant.sk, amount=12_500, currency="KWD")
    path = path_of(link["url"])
    status, _, headers = await submit(client, path, {"action": "choose", "method": "knet", "locale": "en"})
    assert status == 303
    intent_path = urlsplit(headers["Location"]).path
    intent_id = intent_path.rsplit("/", 1)[1]
    i = await PaymentIntent.get(id=intent_id)
    assert i.payment_method == "knet" and i.amount == 12_500 and i.metadata == {"payment_link": link["id"]}
    status, html, _ = await open_page(client, intent_path)
    assert status == 200 and 'data-testid="local-knet"' in html
    status, _, headers = await submit(client, intent_path, {"action": "local"})
    assert status == 303 and f"{intent_id}/knet?token=" in headers["Location"]
    bank = headers["Location"]
    status, html, _ = await open_page(client, bank)
    token = unescape(re.search(r'name="token" value="([^"]+)"', html).group(1))
    r = await client.post(urlsplit(bank).path, data={"token": token, "action": "pay", "bank": "NBK",
                                                     "card_number": "8888880000000001", "pin": "1234"},
                          allow_redirects=False)
    assert r.status == 303
    result = urlsplit(r.headers["Location"])
    assert result.path == f"{intent_path}/result" and parse_qs(result.query)["redirect_status"] == ["succeeded"]
    status, html, _ = await open_page(client, f"{result.path}?{result.query}")
    assert status == 200 and 'data-testid="success"' in html
    # Back on the intent's checkout while it waits: a link on to the KNET page; paid: gone.
    status, _, _ = await open_page(client, intent_path)
    assert status == 410


async def test_knet_cancel_on_the_page_shows_the_decline_and_allows_a_new_try(client, merchant):
    i = await create(client, merchant.sk, amount=10_000, currency="KWD", payment_method="knet")
    path = path_of(i["checkout_url"])
    _, _, headers = await submit(client, path, {"action": "local"})
    bank = headers["Location"]
    status, html, _ = await open_page(client, path)          # waiting: the link on to the bank's page
    assert status == 200 and 'id="continue"' in html and unescape(urlsplit(bank).path) in unescape(html)
    _, html, _ = await open_page(client, bank)
    token = unescape(re.search(r'name="token" value="([^"]+)"', html).group(1))
    r = await client.post(urlsplit(bank).path, data={"token": token, "action": "cancel"}, allow_redirects=False)
    result = r.headers["Location"]
    status, html, _ = await open_page(client, result + "&locale=en")
    assert status == 402 and "The payment was canceled." in html
    status, html, _ = await open_page(client, path)
    assert status == 200 and 'data-testid="local-knet"' in html


async def test_egp_link_shows_the_fawry_reference(client, merchant):
    link = await make_link(client, merchant.sk, amount=50_000, currency="EGP")
    _, _, headers = await submit(client, path_of(link["url"]), {"action": "choose", "method": "fawry"})
    intent_path = urlsplit(headers["Location"]).path
    status, _, headers = await submit(client, intent_path, {"action": "local"})
    assert status == 303 and urlsplit(headers["Location"]).path == intent_path
    status, html, _ = await open_page(client, intent_path + "?locale=ar")
    assert status == 200 and 'data-testid="fawry-reference"' in html and 'dir="rtl"' in html
    ref = re.search(r'data-testid="reference" dir="ltr">(\d+)<', html).group(1)
    i = await PaymentIntent.get(id=intent_path.rsplit("/", 1)[1])
    assert i.method_reference == ref and "فوري" in html


async def test_stcpay_on_the_checkout_with_a_wrong_then_the_right_code(client, merchant):
    link = await make_link(client, merchant.sk, amount=10_000, currency="SAR")
    status, html, _ = await submit(client, path_of(link["url"]), {"action": "choose", "method": "stcpay",
                                                                  "phone": "12"})
    assert status == 400 and "Saudi mobile number" in html
    _, _, headers = await submit(client, path_of(link["url"]), {"action": "choose", "method": "stcpay",
                                                                "phone": "+966 55 000 1122"})
    intent_path = urlsplit(headers["Location"]).path
    status, _, headers = await submit(client, intent_path, {"action": "local"})
    assert status == 303
    status, html, _ = await open_page(client, intent_path)
    assert 'data-testid="stcpay-otp"' in html and "****1122" in html
    status, html, _ = await submit(client, intent_path, {"action": "local", "otp": "000000", "locale": "en"})
    assert status == 402 and "2 attempt(s) left." in html
    status, _, headers = await submit(client, intent_path, {"action": "local", "otp": "123456"})
    assert status == 303 and headers["Location"].startswith(f"{intent_path}/result")
    status, html, _ = await open_page(client, headers["Location"])
    assert status == 200 and 'data-testid="success"' in html


async def test_mada_card_on_a_sar_link_goes_through_3ds(client, merchant):
    link = await make_link(client, merchant.sk, amount=10_000, currency="SAR")
    status, _, headers = await submit(client, path_of(link["url"]), card_form("5888 4500 0000 0003"))
    assert status == 303 and "/authenticate?token=" in headers["Location"]
