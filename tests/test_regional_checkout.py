"""Issue 46: the hosted checkout and payment links offer SADAD (SAR), CliQ (JOD) and Aani (AED),
card first, and complete each over plain HTTP (no JavaScript): the SADAD bill (number, biller code,
expiry) paid by the bank, the request to pay (masked alias, QR image, expiry) approved in the
buyer's bank app -- the link's payment is then collected."""
from __future__ import annotations

import re
from html import unescape
from urllib.parse import urlsplit

import pytest

from models.intents import PaymentIntent
from tests.checkout_fixtures import call, make_link, open_page, path_of, submit
from tests.payments_fixtures import no_exploration  # noqa: F401

SADAD_PAY = "/api/test-helpers/sadad/pay"
APPROVE = "/api/test-helpers/request-to-pay/approve"


def _choices(html: str) -> list[str]:
    return re.findall(r'<li data-method="([a-z0-9_]+)"', html)


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", html))


async def _choose(client, link: dict, method: str, **form) -> str:
    """Choose the method on the link's page, take the intent's step: the intent's page path."""
    status, _, headers = await submit(client, path_of(link["url"]), {"action": "choose", "method": method, **form})
    assert status == 303, status
    intent_path = urlsplit(headers["Location"]).path
    status, html, _ = await open_page(client, intent_path)
    assert status == 200 and f'data-testid="local-{method}"' in html
    status, _, headers = await submit(client, intent_path, {"action": "local"})
    assert status == 303 and urlsplit(headers["Location"]).path == intent_path
    return intent_path


async def _collected(client, key: str, link: dict) -> tuple[int, int]:
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", key)
    assert status == 200
    return got["payments_count"], got["amount_collected"]


async def _check_link(client, intent_path: str, lang: str = "en") -> str:
    """The panel's "check the payment" link (the result page: the success panel once paid)."""
    status, html, _ = await open_page(client, intent_path + f"?locale={lang}")
    assert status == 200
    return unescape(re.search(r'id="check-result" href="([^"]+)"', html).group(1))


@pytest.mark.parametrize("currency,amount,expected", [("SAR", 4_000, ["card", "stcpay", "sadad"]),
                                                      ("JOD", 12_500, ["card", "cliq"]),
                                                      ("AED", 4_000, ["card", "aani"])])
async def test_a_link_offers_card_first_then_the_regional_method(client, merchant, currency, amount, expected):
    link = await make_link(client, merchant.sk, amount=amount, currency=currency)
    names = {"sadad": {"ar": "سداد", "en": "SADAD", "tr": "SADAD"}, "cliq": {"ar": "كليك", "en": "CliQ", "tr": "CliQ"},
             "aani": {"ar": "آني", "en": "Aani", "tr": "Aani"}}
    method = expected[-1]
    for lang in ("ar", "en", "tr"):
        status, html, _ = await open_page(client, link["url"] + f"?locale={lang}")
        assert status == 200 and _choices(html) == expected, (lang, _choices(html))
        assert f'id="method-{method}"' in html and f">{names[method][lang]}</a>" in html
        # Its form: what happens next, and (request to pay) the optional alias
        status, html, _ = await open_page(client, link["url"] + f"?method={method}&locale={lang}")
        panel = html[html.index(f'data-testid="panel-{method}"'):]
        assert f'id="choose-{method}"' in panel and 'class="hint"' in panel
        assert (f'id="{method}-alias"' in panel) is (method != "sadad")
    # A request-to-pay panel's texts in each language
    status, html, _ = await open_page(client, link["url"] + f"?method={method}&locale=en")
    if method == "sadad":
        assert "You get a SADAD bill number to pay in your bank" in html
    else:
        assert f"Your bank&#39;s app gets a {names[method]['en']} request to pay" in html


async def test_sadad_shows_the_bill_and_paying_it_completes_the_link(client, merchant):
    link = await make_link(client, merchant.sk, amount=25_000, currency="SAR")
    intent_path = await _choose(client, link, "sadad")
    intent_id = intent_path.rsplit("/", 1)[1]
    for lang, words in (("en", ("Bill number", "Biller code")), ("ar", ("رقم الفاتورة", "رمز المفوتر")),
                        ("tr", ("Fatura numarası", "Fatura kurumu kodu"))):
        status, html, _ = await open_page(client, intent_path + f"?locale={lang}")
        assert status == 200 and 'data-testid="sadad-bill"' in html
        assert all(w in html for w in words)
    status, html, _ = await open_page(client, intent_path + "?locale=en")
    ref = re.search(r'data-testid="reference" dir="ltr">(\d{13})<', html).group(1)
    assert re.search(r'data-testid="biller-code" dir="ltr">001<', html)
    i = await PaymentIntent.get(id=intent_id)
    assert i.method_reference == ref and i.metadata == {"payment_link": link["id"]} and i.amount == 25_000
    expires = i.expires_at.strftime("%Y-%m-%d %H:%M")
    assert f"before {expires} UTC" in _text(html)
    # Not paid yet: the check leads back to the bill
    check = await _check_link(client, intent_path)
    r = await client.get(check, allow_redirects=False)
    assert r.status == 303 and urlsplit(r.headers["Location"]).path == intent_path
    assert await _collected(client, merchant.sk, link) == (0, 0)
    status, paid = await call(client, "POST", SADAD_PAY, merchant.sk, {"reference": ref})
    assert status == 200 and paid["status"] == "succeeded", paid
    status, html, _ = await open_page(client, check)
    assert status == 200 and "Payment successful" in html
    assert await _collected(client, merchant.sk, link) == (1, 25_000)


@pytest.mark.parametrize("method,currency,amount,alias,hint", [
    ("cliq", "JOD", 12_500, "078 555 1234", "+962******234"),
    ("aani", "AED", 4_000, "050 555 1234", "+971******234")])
async def test_request_to_pay_shows_the_alias_and_qr_and_approving_completes_the_link(
        client, merchant, method, currency, amount, alias, hint):
    link = await make_link(client, merchant.sk, amount=amount, currency=currency)
    # The alias is checked as /v1 checks it: a 400 naming it, the form kept
    status, html, _ = await submit(client, path_of(link["url"]), {"action": "choose", "method": method,
                                                                  "alias": "12", "locale": "en"})
    assert status == 400 and f'id="{method}-alias"' in html and 'aria-invalid="true"' in html
    assert "alias must be" in unescape(html) and 'value="12"' in html
    assert await PaymentIntent.filter(merchant_id=merchant.id, payment_method=method).count() == 0
    intent_path = await _choose(client, link, method, alias=alias)
    intent_id = intent_path.rsplit("/", 1)[1]
    i = await PaymentIntent.get(id=intent_id)
    assert i.metadata == {"payment_link": link["id"]} and i.status == "requires_action"
    for lang in ("ar", "en", "tr"):
        status, html, _ = await open_page(client, intent_path + f"?locale={lang}")
        assert status == 200 and 'data-testid="request-to-pay"' in html
        assert f'data-testid="alias-hint" dir="ltr">{hint}<' in html
        assert alias.replace(" ", "")[1:] not in html           # the whole alias is never shown
    status, html, headers = await open_page(client, intent_path + "?locale=en")
    assert f"expires at {i.expires_at.strftime('%Y-%m-%d %H:%M')} UTC" in _text(html)
    src = unescape(re.search(r'data-testid="rtp-qr" src="([^"]+)"', html).group(1))
    assert src.endswith(f"/v1/payments/{intent_id}/qr.png")
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(src))     # the page lets the browser load it
    img_src = re.search(r"img-src ([^;]+);", headers["Content-Security-Policy"]).group(1).split()
    assert origin in img_src or (origin == "{0.scheme}://{0.netloc}".format(urlsplit(link["url"]))
                                 and "'self'" in img_src)
    r = await client.get(urlsplit(src).path)
    assert r.status == 200 and r.content_type == "image/png" and (await r.read()).startswith(b"\x89PNG\r\n\x1a\n")
    assert await _collected(client, merchant.sk, link) == (0, 0)
    check = await _check_link(client, intent_path)
    status, paid = await call(client, "POST", APPROVE, merchant.sk, {"payment_intent": intent_id})
    assert status == 200 and paid["status"] == "succeeded", paid
    status, html, _ = await open_page(client, check)
    assert status == 200 and "Payment successful" in html
    assert await _collected(client, merchant.sk, link) == (1, amount)


async def test_request_to_pay_without_an_alias_shows_the_qr_only(client, merchant):
    link = await make_link(client, merchant.sk, amount=4_000, currency="AED")
    intent_path = await _choose(client, link, "aani", alias="")
    status, html, _ = await open_page(client, intent_path + "?locale=ar")
    assert status == 200 and 'data-testid="rtp-qr"' in html and 'data-testid="alias-hint"' not in html
    assert "امسح هذا الرمز" in html
