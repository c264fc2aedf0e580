"""POST /v1/payments/intent: fields, validation, limits per currency, fees, settlement dates."""
from __future__ import annotations

from datetime import date, datetime, timezone
from decimal import Decimal

import pytest

from models.intents import PaymentIntent
from services.money import settlement
from services.payments import pricing
from tests.intents_fixtures import create, err, get, set_country
from tests.helpers import bearer

# (currency, exponent, minimum, maximum) in minor units
LIMITS = [("TRY", 2, 100, 50_000_000), ("SAR", 2, 10, 5_000_000), ("AED", 2, 10, 5_000_000),
          ("QAR", 2, 10, 5_000_000), ("KWD", 3, 100, 4_000_000), ("EGP", 2, 500, 60_000_000),
          ("IQD", 3, 250_000, 16_000_000_000)]


async def test_create_returns_every_documented_field(client, merchant, clock):
    body = await create(client, merchant.sk, amount=10000, currency="TRY", payment_method="card",
                        order_id="ord-1", metadata={"cart": "42"}, description="Two books",
                        statement_descriptor="QAFILA BOOKS", customer_id="cus_123", locale="en")
    assert body["id"].startswith("pay_") and body["object"] == "payment_intent"
    assert body["status"] == "requires_payment_method"
    assert body["amount"] == 10000 and body["currency"] == "TRY" and body["amount_received"] == 0
    assert body["payment_method"] == "card" and body["merchant_id"] == merchant.id
    assert body["order_id"] == "ord-1" and body["metadata"] == {"cart": "42"}
    assert body["checkout_url"] == f"https://pay.qafila.test/{body['id']}"
    assert body["client_secret"].startswith(f"{body['id']}_secret_")
    # card in TRY for a TR merchant: 2.9% + 0.25 TRY = 290 + 25
    assert body["fee"] == {"amount": 315, "currency": "TRY", "rate": "0.029",
                           "breakdown": {"processing": 315, "currency_conversion": 0, "network": 0}}
    assert body["net_amount"] == 10000 - 315
    now = clock.now()
    assert body["created_at"] == now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert body["expires_at"] == now.replace(hour=now.hour + 1).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    assert body["livemode"] is False and body["next_action"] is None
    assert body["settlement_date"] == settlement.settlement_date("TR", now).isoformat()
    assert "crypto" not in body
    assert await get(client, merchant.sk, body["id"]) == body


@pytest.mark.parametrize("currency,exp,minimum,maximum", LIMITS)
async def test_amount_limits_per_currency(client, merchant, currency, exp, minimum, maximum):
    assert pricing.INTENT_LIMITS[currency].minimum == minimum
    assert pricing.INTENT_LIMITS[currency].maximum == maximum
    home = {"TRY": "TR", "SAR": "SA", "AED": "AE", "QAR": "QA", "KWD": "KW", "EGP": "EG", "IQD": "IQ"}[currency]
    await set_country(merchant.id, home)
    ok = await create(client, merchant.sk, amount=minimum, currency=currency)
    assert ok["amount"] == minimum
    top = await create(client, merchant.sk, amount=maximum, currency=currency)
    assert top["amount"] == maximum
    for bad in (minimum - 1, maximum + 1):
        e = await create(client, merchant.sk, amount=bad, currency=currency, expect=400)
        assert err(e) == ("invalid_amount", "amount")
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 2


async def test_documented_minimums_in_major_units():
    assert pricing.plain(pricing.INTENT_LIMITS["TRY"].minimum, "TRY") == "1.00"
    assert pricing.plain(pricing.INTENT_LIMITS["SAR"].minimum, "SAR") == "0.10"
    assert pricing.plain(pricing.INTENT_LIMITS["TRY"].maximum, "TRY") == "500000.00"


async def test_minimum_message(client, merchant):
    e = await create(client, merchant.sk, amount=9, currency="SAR", expect=400)
    assert e["error"]["message"] == "amount must be at least 0.10 SAR (10 in minor units)"
    assert e["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize("amount", ["100", None, True, -5, 0])
async def test_amount_type_errors_are_invalid_amount(client, merchant, amount):
    body = {"currency": "TRY", "payment_method": "card"}
    if amount is not None:
        body["amount"] = amount
    r = await client.post("/v1/payments/intent", json=body, headers=bearer(merchant.sk))
    assert r.status == 400
    assert err(await r.json()) == ("invalid_amount", "amount")


@pytest.mark.parametrize("currency", ["EUR", "try", None, 5])
async def test_invalid_currency(client, merchant, currency):
    body = {"amount": 1000, "payment_method": "card"}
    if currency is not None:
        body["currency"] = currency
    r = await client.post("/v1/payments/intent", json=body, headers=bearer(merchant.sk))
    data = await r.json()
    assert r.status == 400 and err(data) == ("invalid_currency", "currency")
    assert data["error"]["message"] == "currency must be one of TRY, SAR, AED, KWD, QAR, EGP, IQD, BHD, OMR, JOD, USD"


@pytest.mark.parametrize("body,param", [
    ({"payment_method": "paypal"}, "payment_method"),
    ({"payment_method": None}, "payment_method"),
    ({"payment_method": "crypto"}, "crypto_asset"),
    ({"payment_method": "crypto", "crypto_asset": "USDT"}, "crypto_network"),
    ({"payment_method": "crypto", "crypto_asset": "DOGE", "crypto_network": "trc20"}, "crypto_asset"),
    ({"payment_method": "crypto", "crypto_asset": "USDT", "crypto_network": "solana"}, "crypto_network"),
    ({"payment_method": "crypto", "crypto_asset": "BTC", "crypto_network": "erc20"}, "crypto_network"),
    ({"payment_method": "crypto", "crypto_asset": "USDT", "crypto_network": "bitcoin"}, "crypto_network"),
    ({"payment_method": "crypto", "crypto_asset": "ETH", "crypto_network": "trc20"}, "crypto_network"),
    ({"crypto_asset": "USDT"}, "crypto_asset"),
    ({"statement_descriptor": "X" * 23}, "statement_descriptor"),
    ({"metadata": {"n": 5}}, "metadata.n"),
    ({"metadata": ["a"]}, "metadata"),
    ({"metadata": {"a": None}}, "metadata.a"),
    ({"payment_method": "cod"}, "cod_address"),
    ({"payment_method": "cod", "cod_address": {"city": "Istanbul", "country": "TR"}}, "cod_address.line1"),
    ({"payment_method": "cod", "cod_address": {"line1": "A", "city": "B", "country": "XX"}}, "cod_address.country"),
    ({"cod_address": {"line1": "A", "city": "B", "country": "TR"}}, "cod_address"),
    ({"split": {"merchant_id": "x"}}, "split"),
    ({"split": [{"amount": 100, "currency": "TRY"}]}, "split[0].merchant_id"),
    ({"split": [{"merchant_id": "mer_nope", "amount": 100, "currency": "TRY"}]}, "split[0].merchant_id"),
    ({"split": [{"merchant_id": "mer_x", "amount": 0, "currency": "TRY"}]}, "split[0].amount"),
    ({"locale": "fr"}, "locale"),
    ({"merchant_id": "mer_other"}, "merchant_id"),
    ({"ammount": 5}, "ammount"),
])
async def test_validation_names_the_field(client, merchant, body, param):
    e = await create(client, merchant.sk, expect=400, **body)
    assert e["error"]["param"] == param
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0


async def test_statement_descriptor_22_is_accepted(client, merchant):
    assert (await create(client, merchant.sk, statement_descriptor="X" * 22))["statement_descriptor"] == "X" * 22


async def test_split_currency_must_match(client, merchant, make_merchant):
    other = await make_merchant()
    e = await create(client, merchant.sk, expect=400,
                     split=[{"merchant_id": other.id, "amount": 100, "currency": "SAR"}])
    assert err(e) == ("invalid_currency", "split[0].currency")
    e = await create(client, merchant.sk, expect=400,
                     split=[{"merchant_id": merchant.id, "amount": 100, "currency": "TRY"}])
    assert err(e) == ("invalid_request", "split[0].merchant_id")


async def test_cod_currency_follows_the_delivery_market(client, merchant):
    e = await create(client, merchant.sk, expect=400, payment_method="cod", currency="TRY",
                     cod_address={"line1": "King Fahd Rd 1", "city": "Riyadh", "country": "SA"})
    assert err(e) == ("invalid_currency", "currency")


@pytest.mark.parametrize("method,rate,fixed", [("card", "0.029", 25), ("qr", "0.015", 0), ("tap_to_pay", "0.0249", 10)])
async def test_fee_schedule_per_method(client, merchant, method, rate, fixed):
    body = await create(client, merchant.sk, amount=123457, payment_method=method)
    exact = Decimal(123457) * Decimal(rate) + fixed
    assert body["fee"]["rate"] == rate
    assert body["fee"]["amount"] == int(exact.quantize(Decimal(1), rounding="ROUND_HALF_UP"))
    assert body["net_amount"] == 123457 - body["fee"]["amount"]


async def test_currency_conversion_fee_for_a_foreign_currency(client, merchant):
    # A TR merchant taking SAR: 2.9% + 0.25 SAR processing, plus 1.5% conversion.
    body = await create(client, merchant.sk, amount=10000, currency="SAR")
    assert body["fee"] == {"amount": 290 + 25 + 150, "currency": "SAR", "rate": "0.044",
                           "breakdown": {"processing": 315, "currency_conversion": 150, "network": 0}}


async def test_fee_rounded_once_half_up():
    # 0.029 * 50 = 1.45 and 1.5% * 50 = 0.75: rounded once, 1.45 + 25 + 0.75 = 27.2 -> 27
    fee = pricing.compute_fee(amount=50, currency="SAR", method="card", home_currency="TRY")
    assert fee.amount == 27 and fee.currency_conversion == 1 and fee.processing == 26
    # half-up at .5: 0.015 * 100 = 1.5 -> 2 (qr, no fixed part)
    assert pricing.compute_fee(amount=100, currency="TRY", method="qr").amount == 2


@pytest.mark.parametrize("currency", ["TRY", "SAR", "AED", "KWD", "QAR", "EGP", "IQD"])
def test_a_new_fee_schedule_applies_to_the_next_fee_at_once(currency):
    """Fees are kept per arguments; configure() drops what was computed under the old tables."""
    from decimal import Decimal
    before = pricing.compute_fee(amount=10000, currency=currency, method="qr")
    old = pricing.FEE_SCHEDULE["qr"]
    try:
        pricing.configure(fee_schedule={"qr": pricing.FeeRule(Decimal("0.03"))})
        after = pricing.compute_fee(amount=10000, currency=currency, method="qr")
        assert (before.amount, after.amount) == (150, 300)
    finally:
        pricing.configure(fee_schedule={"qr": old})
    assert pricing.compute_fee(amount=10000, currency=currency, method="qr") == before


async def test_fee_never_exceeds_amount():
    fee = pricing.compute_fee(amount=10, currency="SAR", method="cod", home_currency="SAR")
    assert fee.amount == 10


@pytest.mark.parametrize("amount,currency,locale,text", [
    (123450, "TRY", "en", "1,234.50 TRY"), (123450, "TRY", "tr", "1.234,50 ₺"),
    (123450, "SAR", "ar", "١٬٢٣٤٫٥٠ ر.س"), (1234567, "KWD", "en", "1,234.567 KWD"),
    (1234567, "KWD", "ar", "١٬٢٣٤٫٥٦٧ د.ك"), (250000, "IQD", "tr", "250,000 IQD"),
    (5, "AED", "en", "0.05 AED"), (100, "EGP", "tr", "1,00 EGP"), (100000, "QAR", "en", "1,000.00 QAR"),
])
def test_amount_formatting_per_currency_and_locale(amount, currency, locale, text):
    assert pricing.format_localized(amount, currency, locale) == text


# ---------------------------------------------------------------- settlement dates

# (market, payment day, first day it may settle): across the weekend
WEEKEND = [("SA", date(2026, 1, 8), date(2026, 1, 11)), ("KW", date(2026, 1, 8), date(2026, 1, 11)),
           ("QA", date(2026, 1, 8), date(2026, 1, 11)), ("IQ", date(2026, 1, 8), date(2026, 1, 11)),
           ("EG", date(2026, 1, 8), date(2026, 1, 11)), ("AE", date(2026, 1, 9), date(2026, 1, 12)),
           ("TR", date(2026, 1, 9), date(2026, 1, 12))]
# across a public holiday
HOLIDAY = [("SA", date(2026, 3, 18), date(2026, 3, 25)),   # Eid al-Fitr holiday, then Fri-Sat
           ("KW", date(2026, 2, 24), date(2026, 3, 1)),    # National and Liberation Day, Fri-Sat
           ("QA", date(2026, 2, 9), date(2026, 2, 11)),    # National Sports Day
           ("IQ", date(2026, 3, 15), date(2026, 3, 17)),
           ("EG", date(2026, 4, 12), date(2026, 4, 14)),   # Spring Festival
           ("AE", date(2026, 3, 18), date(2026, 3, 23)),   # Eid al-Fitr, then Sat-Sun
           ("TR", date(2026, 3, 19), date(2026, 3, 23))]   # Eid al-Fitr, then Sat-Sun


@pytest.mark.parametrize("market,paid,expected", WEEKEND + HOLIDAY)
async def test_settlement_date_per_market(client, merchant, clock, market, paid, expected):
    clock.set(datetime(paid.year, paid.month, paid.day, 9, 0, tzinfo=timezone.utc))
    await set_country(merchant.id, market)
    currency = pricing.MARKET_CURRENCY[market]
    body = await create(client, merchant.sk, amount=pricing.INTENT_LIMITS[currency].minimum * 10, currency=currency)
    assert body["settlement_date"] == expected.isoformat()


def test_settlement_uses_the_market_local_date():
    # 22:30 UTC on Wednesday is already Thursday in Riyadh (UTC+3): T+1 is Friday, weekend -> Sunday.
    assert settlement.settlement_date("SA", datetime(2026, 1, 7, 22, 30, tzinfo=timezone.utc)) == date(2026, 1, 11)
    assert settlement.settlement_date("SA", datetime(2026, 1, 7, 20, 30, tzinfo=timezone.utc)) == date(2026, 1, 8)
