"""Analytics by payment method (issue 23: "analytics (by method) ... treat the new methods like
cards"): approved `/api` payments and `/v1` intents of a window (services.money.analytics.window:
merchant-local days, one currency), grouped by method -- card, mada, knet, benefit, fawry,
stcpay, crypto, cod, qr, tap_to_pay. A mada card paying SAR counts as `mada` whether the request
said `card` or `mada` (as its fee and routing do); so does a Troy card paying TRY (`troy`) and a
Meeza card paying EGP (`meeza`). Reads the payments of the window (an index
range), as the installment analytics do."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from models import _lookup as lookup
from models.intents import PaymentIntent
from models.payments import Payment
from services.money import markets
from services.payments.methods import SCHEME_CURRENCY
from services.principal import Principal

# (table, the approved statuses, the time of the approval, the method column)
_BY_METHOD = {
    "payments": ("('succeeded', 'authorized', 'captured', 'refunded', 'disputed')", "created_at",
                 "payment_method_type"),
    "payment_intents": ("('succeeded', 'refunded')", "succeeded_at", "payment_method"),
}
_INTENT_APPROVED = ("succeeded", "refunded")


async def analytics_by_method(*, principal: Principal, w: Any) -> dict:
    """`payments` (approved, count) and `volume` (their amounts) per method, largest volume
    first; methods without an approved payment in the window are left out."""
    market = await markets.market_of(principal.merchant_id)
    start, end = markets.day_start(market, w.start), markets.day_start(market, w.end + timedelta(days=1))
    by: dict[str, dict] = {}

    def add(method: str, n: int, volume: int) -> None:
        e = by.setdefault(method, {"method": method, "payments": 0, "volume": 0})
        e["payments"] += n
        e["volume"] += volume

    for model in (Payment, PaymentIntent):
        table = model._meta.db_table
        statuses, at, col = _BY_METHOD[table]
        # Card intents in a scheme's currency are read one by one below (a mada card paying SAR is mada,
        # a Troy card paying TRY troy, a Meeza card paying EGP meeza).
        skip = ' AND NOT ("payment_method" = \'card\' AND "currency" IN (\'SAR\', \'TRY\', \'EGP\'))' \
            if model is PaymentIntent else ""
        rows = await lookup.query(
            model, f'SELECT "{col}" AS "method", COUNT(*) AS "n", SUM("amount") AS "volume" FROM "{table}" '
                   f'WHERE "merchant_id" = {{}} AND "livemode" = {{}} AND "currency" = {{}} AND "status" IN {statuses} '
                   f'AND "{at}" >= {{}} AND "{at}" < {{}}{skip} GROUP BY "{col}"',
            [principal.merchant_id, lookup.db_value(model, "livemode", principal.livemode), w.currency,
             lookup.db_value(model, at, start), lookup.db_value(model, at, end)])
        for r in rows:
            add(r["method"], int(r["n"] or 0), int(r["volume"] or 0))
    scheme = next((b for b, cur in SCHEME_CURRENCY.items() if cur == w.currency), None)
    if scheme is not None:
        cards = await PaymentIntent.filter(
            merchant_id=principal.merchant_id, livemode=principal.livemode, currency=w.currency, payment_method="card",
            status__in=_INTENT_APPROVED, succeeded_at__gte=start, succeeded_at__lt=end,
        ).values_list("amount", "method_details")
        for amount, details in cards:
            brand = ((details or {}).get("card") or {}).get("brand")
            add(scheme if brand == scheme else "card", 1, int(amount))
    data = sorted(by.values(), key=lambda e: (-e["volume"], e["method"]))
    return {"object": "method_analytics", "currency": w.currency, "period": w.label,
            "from": w.start.isoformat(), "to": w.end.isoformat(), "data": data}
