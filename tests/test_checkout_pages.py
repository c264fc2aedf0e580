"""The hosted checkout over plain HTTP, as a browser without JavaScript uses it: the form POST,
CSRF, declines, the 3-D Secure step, 404/410 pages, locales, security headers, invoices and
intents paid on their hosted pages, the receipt page."""
from __future__ import annotations

import re

from models.billing import Invoice
from models.payments import Payment
from models.receipts import Receipt
from tests.billing_fixtures import customer
from tests.checkout_fixtures import (APPROVED, BROWSER_LANGUAGE, DECLINED, THREE_DS, call, card_form, csrf_of,
                                     make_link, open_page, path_of, submit)
from tests.conftest import gql


def _no_card_number(*texts: str) -> None:
    for text in texts:
        text = re.sub(r'<p class="test-mode"[^>]*>.*?</p>', "", text)      # the sandbox cards' own hint
        for number in (APPROVED, DECLINED, THREE_DS):
            assert number.replace(" ", "") not in text and number not in text


async def test_the_page_shows_merchant_description_and_amount_with_security_headers(client, make_merchant):
    m = await make_merchant(name="Bazaar Kuwait")
    link = await make_link(client, m.sk, amount=12345, currency="KWD", description="Dates box")
    status, html, headers = await open_page(client, link["url"])
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "Bazaar Kuwait" in html and "Dates box" in html and "12.345" in html     # KWD: 3 decimals
    assert '<html lang="en" dir="ltr">' in html and 'name="number"' in html and 'name="cvc"' in html
    csp = headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert headers["X-Frame-Options"] == "DENY" and headers["Cache-Control"] == "no-store"
    assert "<script>" not in html and "style=" not in html and "http" not in re.sub(r'href="\?locale', "", html)
    for asset in re.findall(r'(?:href|src)="(/assets/[^"]+)"', html):
        r = await client.get(asset)
        assert r.status == 200, asset


async def test_locale_from_query_intent_or_accept_language_and_arabic_is_rtl(client, merchant):
    link = await make_link(client, merchant.sk, amount=123450, currency="SAR")
    _, html, _ = await open_page(client, path_of(link["url"]) + "?locale=ar")
    assert '<html lang="ar" dir="rtl">' in html and "ادفع" in html and "١٬٢٣٤٫٥٠" in html
    _, html, _ = await open_page(client, link["url"], **{"Accept-Language": "tr-TR,tr;q=0.9,en;q=0.5"})
    assert '<html lang="tr" dir="ltr">' in html and "Kart numarası" in html
    _, html, _ = await open_page(client, link["url"], **{"Accept-Language": "de-DE, ar;q=0.3"})
    assert 'lang="ar"' in html
    status, intent = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                                {"amount": 5000, "currency": "TRY", "payment_method": "card", "locale": "ar"})
    _, html, _ = await open_page(client, intent["checkout_url"], **{"Accept-Language": "en"})
    assert 'dir="rtl"' in html


async def test_pay_without_javascript_creates_a_payment_of_the_link(client, merchant):
    link = await make_link(client, merchant.sk, amount=15000)
    path = path_of(link["url"])
    status, html, _ = await submit(client, path, card_form(email="buyer@example.com"))
    assert status == 200 and "Payment successful" in html, html
    pay_id = re.search(r'data-testid="payment-id">(pay_\w+)<', html).group(1)
    receipt = re.search(r'href="([^"]+/receipt/[^"]+)"', html).group(1)
    token = (await Payment.get(id=pay_id)).receipt_token
    assert receipt == f"https://pay.qafila.test/{pay_id}/receipt/{token}"      # issue 22: a token of its own
    status, p = await call(client, "GET", f"/api/payments/{pay_id}", merchant.sk)
    assert status == 200 and p["status"] == "succeeded" and p["payment_link"] == link["id"]
    assert p["amount"] == 15000 and p["payment_method"]["card"]["last4"] == "4242"
    assert p["receipt_url"] == receipt and p["receipt"] == {"channel": "email", "sent_to": "buyer@example.com",
                                                            "status": "pending"}
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", merchant.sk)
    assert got["payments_count"] == 1 and got["amount_collected"] == 15000
    # Reusable: a second buyer pays the same link.
    status, html, _ = await submit(client, path, card_form())
    assert status == 200
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", merchant.sk)
    assert got["payments_count"] == 2 and got["amount_collected"] == 30000
    # The receipt page: no key, printable, the payment's facts.
    status, html, headers = await open_page(client, receipt)
    assert status == 200 and "Receipt from Shop" in html and pay_id in html and "Visa ending 4242" in html
    assert "150.00" in html and headers["X-Frame-Options"] == "DENY"
    row = await Payment.get(id=pay_id)
    _no_card_number(str(row.__dict__), html)


async def test_csrf_is_enforced_and_a_double_submit_charges_once(client, merchant):
    link = await make_link(client, merchant.sk)
    path = path_of(link["url"])
    status, html, _ = await submit(client, path, card_form(), csrf=None)
    assert status == 403 and "This form has expired" in html
    _, page, _ = await open_page(client, path)
    token = csrf_of(page)
    forged = token[:-4] + ("0000" if not token.endswith("0000") else "1111")
    status, _, _ = await submit(client, path, card_form(), csrf=forged)
    assert status == 403
    other = await make_link(client, merchant.sk)               # a token of another page
    _, other_page, _ = await open_page(client, other["url"])
    status, _, _ = await submit(client, path, card_form(), csrf=csrf_of(other_page))
    assert status == 403
    assert await Payment.filter(payment_link=link["id"]).count() == 0
    for _ in range(2):                                          # the same page submitted twice
        status, html, _ = await submit(client, path, card_form(), csrf=token)
        assert status == 200 and "Payment successful" in html
    assert await Payment.filter(payment_link=link["id"]).count() == 1
    r = await client.post(path, json={"csrf": token}, allow_redirects=False)
    assert r.status == 415


async def test_a_declined_card_then_an_approved_one(client, merchant):
    link = await make_link(client, merchant.sk)
    path = path_of(link["url"])
    status, html, _ = await submit(client, path, card_form(DECLINED, name="Ali"))
    assert status == 402 and "Payment declined" in html and "The card was declined by the bank." in html
    assert 'name="number"' in html and 'value="Ali"' in html           # try another card; name kept
    _no_card_number(html)
    status, html, _ = await submit(client, path, card_form(APPROVED), csrf=csrf_of(html))
    assert status == 200 and "Payment successful" in html
    statuses = sorted(await Payment.filter(payment_link=link["id"]).values_list("status", flat=True))
    assert statuses == ["failed", "succeeded"]
    status, got = await call(client, "GET", f"/api/payment-links/{link['id']}", merchant.sk)
    assert got["payments_count"] == 1


async def test_bad_card_input_names_the_field(client, merchant):
    link = await make_link(client, merchant.sk)
    path = path_of(link["url"])
    for form, field in [(card_form("4242 4242 4242 4241"), "number"), (card_form(expiry="13/30"), "expiry"),
                        (card_form(expiry="01/20"), "expiry"), (card_form(cvc="12"), "cvc"),
                        (card_form(name=""), "name"), (card_form(email="not-an-email"), "email")]:
        status, body, _ = await submit(client, path, form, fetch=True)
        assert status == 400 and body["error"]["field"] == field, (form, body)
        status, html, _ = await submit(client, path, form)
        assert status == 400 and f'id="{field}"' in html and 'aria-invalid="true"' in html
    assert await Payment.filter(payment_link=link["id"]).count() == 0


async def test_three_d_secure_on_a_link_without_javascript(client, merchant):
    link = await make_link(client, merchant.sk)
    path = path_of(link["url"])
    status, _, headers = await submit(client, path, card_form(THREE_DS))
    assert status == 303 and "/authenticate?token=" in headers["Location"]
    _no_card_number(headers["Location"])
    status, html, _ = await open_page(client, headers["Location"])
    assert status == 200 and "3-D Secure verification" in html and "3155" in html
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    r = await client.post(f"{path}/authenticate", data={"csrf": csrf_of(html), "token": token, "outcome": "fail"},
                          headers=BROWSER_LANGUAGE)
    assert r.status == 402 and "3-D Secure verification failed." in await r.text()
    status, _, headers = await submit(client, path, card_form(THREE_DS))
    _, html, _ = await open_page(client, headers["Location"])
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    r = await client.post(f"{path}/authenticate", data={"csrf": csrf_of(html), "token": token, "outcome": "succeed"},
                          headers=BROWSER_LANGUAGE)
    assert r.status == 200 and "Payment successful" in await r.text()
    r = await client.post(f"{path}/authenticate", data={"csrf": csrf_of(html), "token": token, "outcome": "succeed"})
    assert r.status == 404                                                # a challenge is used once
    assert await Payment.filter(payment_link=link["id"], status="succeeded").count() == 1


async def test_gone_and_unknown_pages(client, merchant, clock):
    cancelled = await make_link(client, merchant.sk)
    await call(client, "PUT", f"/api/payment-links/{cancelled['id']}/cancel", merchant.sk)
    status, html, _ = await open_page(client, cancelled["url"])
    assert status == 410 and "no longer available" in html and "cancelled" in html
    status, html, _ = await submit(client, path_of(cancelled["url"]), card_form(), csrf="x.1.y")
    assert status == 410
    expiring = await make_link(client, merchant.sk, expires_at=int(clock.time()) + 60)
    clock.advance(seconds=61)
    status, html, _ = await open_page(client, expiring["url"])
    assert status == 410 and "expired" in html
    status, intent = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                                {"amount": 5000, "currency": "TRY", "payment_method": "card"})
    await call(client, "POST", f"/v1/payments/{intent['id']}/confirm", merchant.sk,
               {"payment_method_id": "pm_card_visa"})
    status, html, _ = await open_page(client, intent["checkout_url"])
    assert status == 410 and "already been paid" in html
    for path in ("/lnk_doesnotexist00000000", "/pay_doesnotexist00000000", "/inv_doesnotexist00000000",
                 "/lnk_doesnotexist00000000/receipt"):
        status, html, headers = await open_page(client, path)
        assert status == 404 and "Payment not found" in html and headers["X-Frame-Options"] == "DENY", path


async def test_an_invoice_paid_on_its_hosted_page(client, merchant):
    cid = await customer(client, merchant.sk, email="ayse@example.com", saved_card=None)
    status, inv = await call(client, "POST", "/api/invoices", merchant.sk,
                             {"customer_id": cid, "currency": "KWD", "items": [{"name": "Tea", "amount": 1250,
                                                                                "quantity": 2}]})
    assert status == 200 and inv["hosted_invoice_url"].endswith(inv["id"])
    status, html, _ = await open_page(client, inv["hosted_invoice_url"])
    assert status == 200 and inv["number"] in html and "Tea" in html and "2.500" in html
    status, html, _ = await submit(client, path_of(inv["hosted_invoice_url"]), card_form())
    assert status == 200 and "Payment successful" in html
    pay_id = re.search(r'data-testid="payment-id">(pay_\w+)<', html).group(1)
    status, got = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert got["status"] == "paid" and got["payment_id"] == pay_id
    status, p = await call(client, "GET", f"/api/payments/{pay_id}", merchant.sk)
    assert p["customer_id"] == cid and p["amount"] == 2500 and p["currency"] == "KWD"
    assert (await Invoice.get(id=inv["id"])).paid_at is not None
    status, html, _ = await open_page(client, inv["hosted_invoice_url"])
    assert status == 410 and "already been paid" in html


async def test_intents_on_their_checkout_url(client, merchant):
    # A card intent: paid on the page (with fetch: JSON panels), then gone.
    status, intent = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                                {"amount": 7000, "currency": "TRY", "payment_method": "card"})
    path = path_of(intent["checkout_url"])
    status, body, _ = await submit(client, path, card_form(DECLINED), fetch=True,
                                   headers={"Accept-Language": "tr-TR,tr;q=0.9"})
    assert status == 402 and body["declined"] is True and "reddedildi" in body["error"]["message"] and body["csrf"]
    status, body, _ = await submit(client, path, card_form(THREE_DS), fetch=True)
    assert status == 200 and 'data-testid="challenge"' in body["html"]
    token = re.search(r'name="token" value="([^"]+)"', body["html"]).group(1)
    r = await client.post(f"{path}/authenticate", data={"csrf": csrf_of(body["html"]), "token": token,
                                                        "outcome": "succeed"}, headers={"X-Qafila-Fetch": "1"})
    assert r.status == 200 and 'data-testid="success"' in (await r.json())["html"]
    status, got = await call(client, "GET", f"/v1/payments/{intent['id']}", merchant.sk)
    assert got["status"] == "succeeded"
    status, html, _ = await open_page(client, got["receipt_url"], **{"Accept-Language": ""})
    assert status == 200 and intent["id"] in html and "70,00" in html     # no language named: the TR merchant's
    status, html, _ = await open_page(client, path_of(intent["checkout_url"]) + "/receipt")
    assert status == 404 and "Payment not found" in html                  # the id alone opens no receipt
    # Crypto: the deposit address, its QR code (served here) and the rate lock.
    status, crypto = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                                {"amount": 100000, "currency": "TRY", "payment_method": "crypto",
                                 "crypto_asset": "USDT", "crypto_network": "trc20"})
    status, html, _ = await open_page(client, crypto["checkout_url"])
    assert status == 200 and crypto["crypto"]["address"] in html and crypto["crypto"]["amount_crypto"] in html
    assert 'class="countdown"' in html and "15:00" in html
    qr = re.search(r'src="(/pay_\w+/qr.png)"', html).group(1)
    r = await client.get(qr)
    assert r.status == 200 and r.headers["Content-Type"] == "image/png"
    status, html, _ = await submit(client, path_of(crypto["checkout_url"]), {"action": "confirm"})
    assert status == 200 and 'data-testid="processing"' in html
    # Cash on delivery: a confirmation step.
    status, cod = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                             {"amount": 20000, "currency": "TRY", "payment_method": "cod",
                              "cod_address": {"line1": "Bağdat Cd. 1", "city": "İstanbul", "country": "TR"}})
    _, html, _ = await open_page(client, cod["checkout_url"])
    assert "Bağdat Cd. 1" in html and 'value="confirm"' in html
    status, html, _ = await submit(client, path_of(cod["checkout_url"]), {"action": "confirm"},
                                   headers={"Accept-Language": "tr"})
    assert status == 200 and "Siparişiniz onaylandı" in html
    status, got = await call(client, "GET", f"/v1/payments/{cod['id']}", merchant.sk)
    assert got["status"] == "processing" and got["cod_status"] == "assigned"


async def test_the_payment_and_its_link_over_graphql(client, merchant):
    link = await make_link(client, merchant.sk)
    status, html, _ = await submit(client, path_of(link["url"]), card_form(phone="+90 555 000 1122"))
    pay_id = re.search(r'data-testid="payment-id">(pay_\w+)<', html).group(1)
    q = "query($id: ID!) { payment(id: $id) { id status paymentLink receiptUrl receipt { channel sentTo status } } " \
        "paymentLink(id: \"%s\") { paymentsCount amountCollected } }" % link["id"]
    status, out = await gql(client, q, {"id": pay_id}, key=merchant.sk)
    assert status == 200 and "errors" not in out, out
    p = out["data"]["payment"]
    assert p["paymentLink"] == link["id"] and p["status"] == "succeeded" and p["receiptUrl"] == f"https://pay.qafila.test/{pay_id}/receipt/{(await Payment.get(id=pay_id)).receipt_token}"
    assert p["receipt"] == {"channel": "email" if False else p["receipt"]["channel"], "sentTo": "+90 555 000 1122",
                            "status": "pending"}
    assert out["data"]["paymentLink"] == {"paymentsCount": 1, "amountCollected": 15000}
    assert await Receipt.filter(payment_id=pay_id).count() == 1


async def test_the_browser_script_is_served(client):
    r = await client.get("/js/v1/qafila.js")
    body = await r.text()
    assert r.status == 200 and r.headers["Content-Type"].startswith("text/javascript")
    assert "confirmPayment" in body and "http://api.qafila.test" in body and "https://pay.qafila.test" in body
    assert "__QAFILA" not in body


async def test_an_intents_receipt_url_opens_the_html_receipt_in_a_browser(client, merchant):
    status, intent = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                                {"amount": 5000, "currency": "TRY", "payment_method": "card", "locale": "en"})
    status, c = await call(client, "POST", f"/v1/payments/{intent['id']}/confirm", merchant.sk,
                           {"payment_method_id": "pm_card_visa"})
    status, html, _ = await open_page(client, c["receipt_url"], Accept="text/html,application/xhtml+xml")
    assert status == 200 and "Visa ending 4242" in html and "50.00" in html
    status, text, headers = await open_page(client, c["receipt_url"], Accept="text/plain")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")       # an API client gets text
    assert "Paid with: Visa ending 4242" in text and "Amount: 50.00 TRY" in text


async def test_payment_attempts_from_one_address_are_limited(client, merchant):
    link = await make_link(client, merchant.sk)
    path = path_of(link["url"])
    _, html, _ = await open_page(client, path)
    token = csrf_of(html)
    for _ in range(30):
        status, _, _ = await submit(client, path, card_form("4242 4242 4242 4241"), csrf=token)
        assert status == 400
    status, html, headers = await submit(client, path, card_form(), csrf=token)
    assert status == 429 and "Too many payment attempts" in html and int(headers["Retry-After"]) >= 1
    assert await Payment.filter(payment_link=link["id"]).count() == 0


def test_every_label_exists_in_every_locale_and_the_locale_is_picked_in_order():
    from app.checkout import i18n
    keys = set(i18n.EN)
    assert all(set(d) == keys for d in i18n.STRINGS.values())
    pick = i18n.pick_locale
    # Issue 22: the merchant's own choice first, then ?locale=, then Accept-Language, then the
    # merchant's default (its market's language), English on a page without a merchant.
    assert pick(explicit="tr", query="ar", accept_language="en") == "tr"
    assert pick(explicit=None, query="ar", accept_language="en", country="TR") == "ar"
    assert pick(explicit=None, query="xx", accept_language="ar", country="TR") == "ar"
    assert pick(explicit=None, query=None, accept_language="fr;q=1, tr;q=0.4, ar;q=0.8") == "ar"
    assert pick(explicit=None, query=None, accept_language="de") == "en"
    assert pick(explicit=None, query=None, accept_language="de", country="TR") == "tr"
    assert pick(explicit=None, query=None, accept_language=None, country="SA") == "ar"


async def test_an_invoice_paid_twice_at_once_gives_the_second_charge_back(client, merchant):
    """Two page loads of one invoice, both submitted: the second charge is refunded and answers 410."""
    from services.payments import checkout
    from services.payments.cards import card_from_number

    cid = await customer(client, merchant.sk, email="twice@example.com", saved_card=None)
    status, inv = await call(client, "POST", "/api/invoices", merchant.sk,
                             {"customer_id": cid, "currency": "TRY", "items": [{"name": "Rug", "amount": 5000}]})
    stale = await checkout.load(inv["id"])                       # the second page, loaded before the first pays
    status, html, _ = await submit(client, path_of(inv["hosted_invoice_url"]), card_form())
    assert status == 200
    first = re.search(r'data-testid="payment-id">(pay_\w+)<', html).group(1)
    card = card_from_number(APPROVED.replace(" ", ""), 12, 2030, "123")
    try:
        await checkout._charge(stale, card, contact=None, locale="en", idempotency_key=None, client_address=None)
        raise AssertionError("a second charge of a paid invoice must not succeed")
    except checkout.Gone as g:
        assert g.reason == "paid"
    rows = [p for p in await Payment.filter(merchant_id=merchant.id) if (p.metadata or {}).get("invoice_id") == inv["id"]]
    assert sorted((p.id == first, p.status) for p in rows) == [(False, "refunded"), (True, "succeeded")]
    status, got = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert got["status"] == "paid" and got["payment_id"] == first
