"""Issue 22, receipts and hosted pages: one receipt_url per payment and intent carrying a random
token of its own (the id alone opens nothing); pages and receipts in the merchant's locale if it
set one, else the buyer's (?locale=, Accept-Language), else the merchant's default; dates as
people read them in the merchant's time zone; the card (or the method) on every receipt."""
from __future__ import annotations

import re
from email import message_from_bytes, policy
from datetime import datetime, timedelta, timezone

from models.events import Event
from models.intents import PaymentIntent
from models.payments import Payment
from services.payments import locales
from tests.checkout_fixtures import call, card_form, make_link, open_page, path_of, submit
from tests.conftest import gql
from tests.payments_fixtures import APPROVED, card

RECEIPT = re.compile(r"https://pay\.qafila\.test/(pay_[0-9A-Za-z]{24})/receipt/([0-9A-Za-z]{32})")
NO_LANGUAGE = {"Accept-Language": ""}          # a client that names no language at all
EN_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December")
TR_MONTHS = ("Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım",
             "Aralık")
AR_MONTHS = ("يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر",
             "ديسمبر")
AR_DIGITS = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")

PAYMENT_Q = "query($id: ID!) { payment(id: $id) { receiptUrl } }"
INTENT_Q = "query($id: ID!) { paymentIntent(id: $id) { receiptUrl locale } }"


async def _country(client, m, country: str) -> None:
    status, body = await call(client, "PUT", "/api/merchant", m.sk, {"country": country})
    assert status == 200, body


async def _paid_intent(client, key, **body) -> dict:
    pm = body.pop("pm", "pm_card_visa")
    body = {"amount": 5000, "currency": "TRY", "payment_method": "card", **body}
    status, intent = await call(client, "POST", "/v1/payments/intent", key, body)
    assert status == 201, intent
    status, paid = await call(client, "POST", f"/v1/payments/{intent['id']}/confirm", key,
                              {"payment_method_id": pm})
    assert status == 200 and paid["status"] == "succeeded", paid
    return paid


def _lang(html: str) -> str:
    return re.search(r'<html lang="(\w+)"', html).group(1)


# ---------------------------------------------------------------- one receipt_url, a token of its own

async def test_each_payment_and_intent_has_one_receipt_url_everywhere(client, merchant):
    # An /api payment and a /v1 intent, each paid.
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 2500, "currency": "KWD", "payment_method": card(APPROVED)})
    assert status == 200 and p["status"] == "succeeded"
    i = await _paid_intent(client, merchant.sk)
    for obj, table in ((p, Payment), (i, PaymentIntent)):
        m = RECEIPT.fullmatch(obj["receipt_url"])
        assert m and m.group(1) == obj["id"], obj["receipt_url"]
        # The token is the one stored with the object, and it is not the id (nor part of it).
        stored = (await table.get(id=obj["id"])).receipt_token
        assert m.group(2) == stored and stored not in obj["id"] and obj["id"][4:] not in stored
    assert RECEIPT.fullmatch(p["receipt_url"]).group(2) != RECEIPT.fullmatch(i["receipt_url"]).group(2)
    # The same URL on a read, in GraphQL and in the webhook payload objects.
    status, got = await call(client, "GET", f"/api/payments/{p['id']}", merchant.sk)
    assert got["receipt_url"] == p["receipt_url"]
    status, got = await call(client, "GET", f"/v1/payments/{i['id']}", merchant.sk)
    assert got["receipt_url"] == i["receipt_url"]
    _, out = await gql(client, PAYMENT_Q, {"id": p["id"]}, key=merchant.sk)
    assert out["data"]["payment"]["receiptUrl"] == p["receipt_url"], out
    _, out = await gql(client, INTENT_Q, {"id": i["id"]}, key=merchant.sk)
    assert out["data"]["paymentIntent"]["receiptUrl"] == i["receipt_url"], out
    for obj in (p, i):
        event = await Event.get(object_id=obj["id"], type="payment.succeeded")
        assert event.data["receipt_url"] == obj["receipt_url"]
    # An unpaid intent has none yet (null at first, as the spec says).
    status, open_ = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                               {"amount": 5000, "currency": "TRY", "payment_method": "card"})
    assert open_["receipt_url"] is None and (await PaymentIntent.get(id=open_["id"])).receipt_token is None
    # The URL opens the receipt; the id alone, another payment's token or a wrong token open nothing.
    for obj in (p, i):
        status, html, _ = await open_page(client, obj["receipt_url"])
        assert status == 200 and obj["id"] in html and 'data-testid="receipt"' in html
    token_p = RECEIPT.fullmatch(p["receipt_url"]).group(2)
    token_i = RECEIPT.fullmatch(i["receipt_url"]).group(2)
    for path in (f"/{p['id']}/receipt", f"/{i['id']}/receipt", f"/{p['id']}/receipt/{token_i}",
                 f"/{i['id']}/receipt/{token_p[:-1]}{'A' if token_p[-1] != 'A' else 'B'}",
                 f"/{i['id']}/receipt/{i['id'][4:]}", f"/{open_['id']}/receipt/{token_i}"):
        status, html, _ = await open_page(client, path)
        assert status == 404 and "Payment not found" in html and obj["id"] not in html, path
    for path in (f"/v1/payments/{i['id']}/receipt", f"/v1/payments/{p['id']}/receipt"):
        r = await client.get(path, headers={"Accept": "text/plain"})
        assert r.status == 404, path


async def test_the_success_page_and_the_message_link_the_same_receipt_url(client, merchant, smtp_sink):
    from services.payments import receipts
    link = await make_link(client, merchant.sk, amount=15000)
    status, html, _ = await submit(client, path_of(link["url"]), card_form(email="buyer@example.com"))
    assert status == 200
    pay_id = re.search(r'data-testid="payment-id">(pay_\w+)<', html).group(1)
    shown = re.search(r'href="([^"]+/receipt/[^"]+)"', html).group(1)
    status, p = await call(client, "GET", f"/api/payments/{pay_id}", merchant.sk)
    assert shown == p["receipt_url"] and RECEIPT.fullmatch(shown)
    assert (await receipts.run_once(owner="t", merchant_id=merchant.id)).sent == 1
    _, raw = smtp_sink.messages[0]
    body = message_from_bytes(raw, policy=policy.default).get_content()
    assert shown in body and f"Receipt: {shown}" in body


# ---------------------------------------------------------------- the language

async def test_an_intent_without_locale_follows_the_buyer(client, make_merchant):
    m = await make_merchant(name="Riyadh Dates")
    await _country(client, m, "SA")
    i = await _paid_intent(client, m.sk, currency="SAR")
    assert i["locale"] is None                                         # not "tr", not "ar": nobody set one
    _, out = await gql(client, INTENT_Q, {"id": i["id"]}, key=m.sk)
    assert out["data"]["paymentIntent"]["locale"] is None
    url = i["receipt_url"]
    _, html, _ = await open_page(client, url, **{"Accept-Language": "en-GB,en;q=0.9,ar;q=0.5"})
    assert _lang(html) == "en" and "Receipt from Riyadh Dates" in html and "50.00 SAR" in html
    _, html, _ = await open_page(client, url, **{"Accept-Language": "ar-SA"})
    assert _lang(html) == "ar" and 'dir="rtl"' in html and "٥٠٫٠٠" in html
    _, html, _ = await open_page(client, url, **{"Accept-Language": "tr;q=0.2, en;q=0.1, ar;q=0"})
    assert _lang(html) == "tr"                                         # by quality; q=0 means "not this"
    _, html, _ = await open_page(client, url + "?locale=tr", **{"Accept-Language": "en"})
    assert _lang(html) == "tr"                                         # ?locale= before Accept-Language
    _, html, _ = await open_page(client, url, **NO_LANGUAGE)
    assert _lang(html) == "ar"                                         # nobody named one: an SA merchant's
    _, html, _ = await open_page(client, url, **{"Accept-Language": "de-DE, fr;q=0.8"})
    assert _lang(html) == "ar"
    # The checkout page of an unpaid one follows the same order.
    status, fresh = await call(client, "POST", "/v1/payments/intent", m.sk,
                               {"amount": 5000, "currency": "SAR", "payment_method": "card"})
    _, html, _ = await open_page(client, fresh["checkout_url"], **{"Accept-Language": "en"})
    assert _lang(html) == "en" and 'href="?locale=ar"' in html        # the buyer may switch


async def test_the_merchants_locale_wins_and_the_language_menu_is_gone(client, merchant):
    i = await _paid_intent(client, merchant.sk, locale="tr")
    assert i["locale"] == "tr"
    _, html, _ = await open_page(client, i["receipt_url"] + "?locale=ar", **{"Accept-Language": "en"})
    assert _lang(html) == "tr" and "makbuzu" in html and "?locale=" not in html
    # A payment link with a locale: its page and its payments' receipts are in it.
    link = await make_link(client, merchant.sk, locale="ar")
    assert link["locale"] == "ar"
    _, html, _ = await open_page(client, link["url"] + "?locale=en", **{"Accept-Language": "en"})
    assert _lang(html) == "ar" and "?locale=" not in html
    status, html, _ = await submit(client, path_of(link["url"]), card_form())
    assert status == 200 and _lang(html) == "ar"
    pay_id = re.search(r'data-testid="payment-id">(pay_\w+)<', html).group(1)
    status, p = await call(client, "GET", f"/api/payments/{pay_id}", merchant.sk)
    _, html, _ = await open_page(client, p["receipt_url"], **{"Accept-Language": "en"})
    assert _lang(html) == "ar" and "إيصال" in html
    # Without one, a link's page is the buyer's; a bad locale is a 400 naming the field.
    plain = await make_link(client, merchant.sk)
    assert plain["locale"] is None
    _, html, _ = await open_page(client, plain["url"], **{"Accept-Language": "ar"})
    assert _lang(html) == "ar"
    status, e = await call(client, "POST", "/api/payment-links", merchant.sk,
                           {"amount": 15000, "currency": "TRY", "locale": "de"})
    assert status == 400 and e["error"]["param"] == "locale"
    _, out = await gql(client, 'mutation { paymentLinkCreate(input: {amount: 15000, currency: "TRY", locale: "tr"}) '
                               '{ paymentLink { locale } userErrors { field } } }', key=merchant.sk)
    assert out["data"]["paymentLinkCreate"] == {"paymentLink": {"locale": "tr"}, "userErrors": []}, out


def test_accept_language_is_parsed_by_quality():
    pick = locales.from_accept_language
    assert pick("tr-TR,tr;q=0.9,en-US;q=0.8,en;q=0.7") == "tr"
    assert pick("en;q=0.5, ar;q=0.8") == "ar"
    assert pick("ar;q=0, en;q=0.1") == "en"
    assert pick("fr, de;q=0.9, *;q=0.1") is None
    assert pick("ar;q=abc, tr;q=0.3") == "tr"                      # a malformed q counts as 0
    assert pick("en;q=2, tr;q=0.4") == "tr"                        # out of range: ignored
    assert pick("EN-gb ; q=0.6 , tr ; q=0.6") == "en"              # a tie: the header's order
    assert pick("") is None and pick(None) is None


# ---------------------------------------------------------------- dates and the method

def test_dates_read_as_people_read_them_in_the_merchants_time_zone():
    when = datetime(2026, 11, 26, 11, 33, tzinfo=timezone.utc)
    assert locales.format_when(when, "tr", "TR") == "26 Kasım 2026 14:33"
    assert locales.format_when(when, "en", "TR") == "26 November 2026, 14:33"
    assert locales.format_when(when, "ar", "TR") == "٢٦ نوفمبر ٢٠٢٦، ١٤:٣٣"
    assert locales.format_when(when, "en", "AE") == "26 November 2026, 15:33"       # Asia/Dubai
    assert locales.format_when(when, "en", "EG") == "26 November 2026, 13:33"       # Africa/Cairo
    assert locales.format_when(when + timedelta(hours=13), "tr", "TR") == "27 Kasım 2026 03:33"


async def test_a_receipt_shows_the_date_in_the_merchants_zone_and_the_card_or_the_method(client, make_merchant,
                                                                                         clock):
    m = await make_merchant(name="Dubai Perfumes")
    await _country(client, m, "AE")
    i = await _paid_intent(client, m.sk, currency="AED", pm="pm_card_mastercard")
    local = clock.now().astimezone(timezone(timedelta(hours=4)))                 # Asia/Dubai, no DST
    hm = local.strftime("%H:%M")
    expect = {"en": f"{local.day} {EN_MONTHS[local.month - 1]} {local.year}, {hm}",
              "tr": f"{local.day} {TR_MONTHS[local.month - 1]} {local.year} {hm}",
              "ar": f"{local.day} {AR_MONTHS[local.month - 1]} {local.year}، {hm}".translate(AR_DIGITS)}
    for lang, text in expect.items():
        _, html, _ = await open_page(client, i["receipt_url"], **{"Accept-Language": lang})
        shown = re.search(r'<time datetime="([^"]+)">([^<]+)</time>', html)
        assert shown.group(2) == text, (lang, shown.group(2))                # not an ISO timestamp
        assert datetime.fromisoformat(shown.group(1)) == clock.now()         # the machine-readable instant
    _, html, _ = await open_page(client, i["receipt_url"], **{"Accept-Language": "en"})
    assert "Mastercard ending 4444" in html
    _, html, _ = await open_page(client, i["receipt_url"], **{"Accept-Language": "tr"})
    assert "Sonu 4444 olan Mastercard" in html
    r = await client.get(path_of(i["receipt_url"]), headers={"Accept": "text/plain", "Accept-Language": "en"})
    text = await r.text()
    assert f"Date: {expect['en']}" in text and "Paid with: Mastercard ending 4444" in text
    # A cash-on-delivery intent: the method's name (no card).
    status, cod = await call(client, "POST", "/v1/payments/intent", m.sk,
                             {"amount": 20000, "currency": "AED", "payment_method": "cod",
                              "cod_address": {"line1": "Sheikh Zayed Rd 1", "city": "Dubai", "country": "AE"}})
    await call(client, "POST", f"/v1/payments/{cod['id']}/confirm", m.sk, {})
    status, done = await call(client, "POST", f"/v1/test_helpers/payments/{cod['id']}/cod_delivered", m.sk, {})
    assert status == 200 and done["status"] == "succeeded", done
    _, html, _ = await open_page(client, done["receipt_url"], **{"Accept-Language": "en"})
    assert "Cash on delivery" in html and "ending" not in html
    _, html, _ = await open_page(client, done["receipt_url"], **NO_LANGUAGE)
    assert _lang(html) == "ar" and "الدفع عند الاستلام" in html                  # an AE merchant's default


async def test_the_migration_gives_rows_paid_before_it_a_token_of_their_own(client, merchant):
    """migrations/_receipt_tokens.py, as payments 0004 and intents 0003 run it, on either database."""
    from migrations._receipt_tokens import backfill
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 1000, "currency": "TRY", "payment_method": card(APPROVED)})
    paid = await _paid_intent(client, merchant.sk)
    status, unpaid = await call(client, "POST", "/v1/payments/intent", merchant.sk,
                                {"amount": 5000, "currency": "TRY", "payment_method": "card"})
    await Payment.filter(id=p["id"]).update(receipt_token=None)             # as before the migration
    await PaymentIntent.filter(id=paid["id"]).update(receipt_token=None)
    await backfill(Payment._meta.db, "payments", ("succeeded", "captured", "refunded"))
    await backfill(PaymentIntent._meta.db, "payment_intents", ("succeeded", "refunded"))
    tokens = [(await Payment.get(id=p["id"])).receipt_token, (await PaymentIntent.get(id=paid["id"])).receipt_token]
    assert all(re.fullmatch(r"[0-9a-f]{32}", t) for t in tokens) and tokens[0] != tokens[1]
    assert (await PaymentIntent.get(id=unpaid["id"])).receipt_token is None
    status, got = await call(client, "GET", f"/v1/payments/{paid['id']}", merchant.sk)
    assert got["receipt_url"].endswith(f"/receipt/{tokens[1]}")
    status, html, _ = await open_page(client, got["receipt_url"])
    assert status == 200 and paid["id"] in html


async def test_the_access_log_never_holds_a_receipt_token(client, merchant, caplog):
    import logging
    caplog.set_level(logging.INFO)
    i = await _paid_intent(client, merchant.sk)
    token = RECEIPT.fullmatch(i["receipt_url"]).group(2)
    status, _, _ = await open_page(client, i["receipt_url"])
    assert status == 200
    lines = [rec for rec in caplog.records if rec.name == "qafila.access"]
    assert any(x.path == f"/{i['id']}/receipt/{{token}}" and x.status == 200 for x in lines), [x.path for x in lines]
    everything = "\n".join(rec.getMessage() + repr(rec.__dict__) for rec in caplog.records
                           if rec.name != "aiohttp.access")
    assert token not in everything
