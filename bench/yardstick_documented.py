#!/usr/bin/env python3
"""The yardstick's `/pay` with what the documented answer of `POST /api/payments/create` obliges and
`/pay` leaves out, done just as barely (issue 26). By hand, not in CI.

    DATABASE_URL=... REDIS_URL=... python bench/yardstick_documented.py PORT

It serves ../shared/perf/yardstick.py unchanged (its module, its routes, its gate, headers and access
line) plus `POST /pay-documented`, which takes the same body as `/pay` and does, in two statements:

  the read   the risk signals the documented `risk_score` is made of (the merchant's last 50
             successful payments in the currency, the card's payments of the last 10 minutes
             platform-wide up to 200 and how many failed, the client address's at this merchant up
             to 100), the customer by e-mail, the merchant's active routing rules (the documented
             `routing_decision` names the rule it followed) and the merchant's country (its day
             for the rollups, its receipt locale);
  then       the card checked (Luhn), fingerprinted (HMAC-SHA256) and branded, the score, a routing
             decision with its reason, alternatives, scores and attempts, the fee;
  the write  the customer when new, the payment (the columns of the documented object), its attempt,
             the saved card (documented renewals charge it), four ledger legs (a capture moves the
             fee out of the merchant's balance: the balance is net of fees) and the balance line,
             the receipt's outbox row (the documented receipt e-mail), the `payment.succeeded`
             event, the list counter slot, and the payment and latency rollups the documented
             analytics read -- one data-modifying statement, as `/pay` writes its rows;
  the answer the documented payment's 21 top-level fields (payment_method.card with expiry and
             fingerprint, routing_decision, risk_score, receipt_url, ...).

Generous to the reference, as a floor should be: no foreign keys, only the indexes the create's own
reads (one per signal, every equality in it) and the documented list need, no idempotency, no provider call, no webhook fan-out or e-mail
worker running beside it. Tables perf_documented_* in the given database.
"""
from __future__ import annotations

import hashlib
import hmac
import importlib.util
import os
import random
import re
import sys
import time
from datetime import datetime, timedelta, timezone

import orjson

HERE = os.path.dirname(os.path.abspath(__file__))


def _load_yardstick():
    for path in (os.environ.get("QAFILA_YARDSTICK", ""), "/work/shared/perf/yardstick.py",
                 os.path.join(HERE, "..", "..", "shared", "perf", "yardstick.py")):
        if path and os.path.exists(path):
            spec = importlib.util.spec_from_file_location("yardstick", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    raise SystemExit("yardstick.py not found (QAFILA_YARDSTICK)")


ys = _load_yardstick()
FINGERPRINT_KEY = b"d" * 32

SCHEMA = """
CREATE TABLE IF NOT EXISTS perf_documented_merchants (id text PRIMARY KEY, country text NOT NULL);
CREATE TABLE IF NOT EXISTS perf_documented_customers (id text PRIMARY KEY, merchant_id text NOT NULL,
    livemode boolean NOT NULL, email text, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS perf_documented_customers_email ON perf_documented_customers (merchant_id, livemode, email);
CREATE TABLE IF NOT EXISTS perf_documented_rules (id text PRIMARY KEY, merchant_id text NOT NULL,
    livemode boolean NOT NULL, status text NOT NULL, priority int NOT NULL, conditions jsonb NOT NULL,
    provider text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS perf_documented_rules_active ON perf_documented_rules (merchant_id, livemode, status);
CREATE TABLE IF NOT EXISTS perf_documented_payments (id text PRIMARY KEY, merchant_id text NOT NULL,
    livemode boolean NOT NULL, customer_id text, amount bigint NOT NULL, amount_captured bigint NOT NULL,
    amount_refunded bigint NOT NULL, currency text NOT NULL, status text NOT NULL, capture_method text NOT NULL,
    provider text, provider_reference text, card_brand text, card_last4 text, card_exp_month int,
    card_exp_year int, card_fingerprint text, card_country text, email text, client_address text,
    description text, metadata jsonb NOT NULL, risk_score int NOT NULL, risk_signals jsonb NOT NULL,
    routing_decision jsonb, fee bigint NOT NULL, receipt_token text NOT NULL,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, captured_at timestamptz);
CREATE INDEX IF NOT EXISTS perf_documented_payments_page
    ON perf_documented_payments (merchant_id, livemode, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS perf_documented_payments_history
    ON perf_documented_payments (merchant_id, livemode, currency, created_at);
CREATE INDEX IF NOT EXISTS perf_documented_payments_card
    ON perf_documented_payments (card_fingerprint, livemode, created_at);
CREATE INDEX IF NOT EXISTS perf_documented_payments_address
    ON perf_documented_payments (merchant_id, livemode, client_address, created_at);
CREATE TABLE IF NOT EXISTS perf_documented_attempts (id text PRIMARY KEY, payment_id text NOT NULL,
    merchant_id text NOT NULL, number int NOT NULL, provider text NOT NULL, outcome text NOT NULL,
    latency_ms int NOT NULL, created_at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS perf_documented_attempts_payment ON perf_documented_attempts (payment_id);
CREATE TABLE IF NOT EXISTS perf_documented_cards (id text PRIMARY KEY, merchant_id text NOT NULL,
    customer_id text NOT NULL, payment_id text NOT NULL, brand text NOT NULL, last4 text NOT NULL,
    exp_month int NOT NULL, exp_year int NOT NULL, fingerprint text NOT NULL, created_at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS perf_documented_cards_customer ON perf_documented_cards (customer_id);
CREATE TABLE IF NOT EXISTS perf_documented_ledger (id text PRIMARY KEY, transaction_id text NOT NULL,
    payment_id text NOT NULL, merchant_id text NOT NULL, account text NOT NULL, amount bigint NOT NULL,
    currency text NOT NULL, created_at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS perf_documented_ledger_payment ON perf_documented_ledger (payment_id);
CREATE TABLE IF NOT EXISTS perf_documented_balance (id text PRIMARY KEY, merchant_id text NOT NULL,
    livemode boolean NOT NULL, payment_id text NOT NULL, currency text NOT NULL, net bigint NOT NULL,
    settlement_id text, created_at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS perf_documented_balance_open ON perf_documented_balance (merchant_id, livemode)
    WHERE settlement_id IS NULL;
CREATE TABLE IF NOT EXISTS perf_documented_receipts (id text PRIMARY KEY, payment_id text NOT NULL UNIQUE,
    merchant_id text NOT NULL, sent_to text NOT NULL, locale text NOT NULL, status text NOT NULL,
    created_at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS perf_documented_receipts_pending ON perf_documented_receipts (status, created_at);
CREATE TABLE IF NOT EXISTS perf_documented_rollups (merchant_id text NOT NULL, livemode boolean NOT NULL,
    currency text NOT NULL, day date NOT NULL, provider text NOT NULL, slot int NOT NULL, payments bigint NOT NULL,
    approved bigint NOT NULL, volume bigint NOT NULL, captured bigint NOT NULL,
    PRIMARY KEY (merchant_id, livemode, currency, day, provider, slot));
CREATE TABLE IF NOT EXISTS perf_documented_latency (merchant_id text NOT NULL, livemode boolean NOT NULL,
    day date NOT NULL, provider text NOT NULL, bucket int NOT NULL, n bigint NOT NULL,
    PRIMARY KEY (merchant_id, livemode, day, provider, bucket));
"""

READ_SQL = """SELECT h.n AS history_n, h.total AS history_total, c.n AS card_n, c.failed AS card_failed,
    a.n AS address_n, (SELECT country FROM perf_documented_merchants WHERE id = $1) AS country,
    (SELECT id FROM perf_documented_customers WHERE merchant_id = $1 AND livemode = false AND email = $5
     ORDER BY created_at LIMIT 1) AS customer_id,
    (SELECT jsonb_agg(jsonb_build_object('id', id, 'conditions', conditions, 'provider', provider)
            ORDER BY priority) FROM perf_documented_rules
     WHERE merchant_id = $1 AND livemode = false AND status = 'active') AS rules
  FROM (SELECT count(*) AS n, sum(amount) AS total FROM (SELECT amount FROM perf_documented_payments
          WHERE merchant_id = $1 AND livemode = false AND currency = $2
          AND status IN ('succeeded', 'captured', 'refunded', 'authorized')
          ORDER BY created_at DESC LIMIT 50) x) h,
       (SELECT count(*) AS n, count(*) FILTER (WHERE status = 'failed') AS failed FROM (
          SELECT status FROM perf_documented_payments WHERE card_fingerprint = $3 AND livemode = false
          AND created_at >= $6 ORDER BY created_at DESC LIMIT 200) y) c,
       (SELECT count(*) AS n FROM (SELECT 1 FROM perf_documented_payments WHERE merchant_id = $1
          AND client_address = $4 AND livemode = false AND created_at >= $6
          ORDER BY created_at DESC LIMIT 100) z) a"""

WRITE_SQL = """WITH cu AS (INSERT INTO perf_documented_customers (id, merchant_id, livemode, email)
        SELECT $2, $1, false, $3 WHERE $4::boolean RETURNING id),
  p AS (INSERT INTO perf_documented_payments (id, merchant_id, livemode, customer_id, amount, amount_captured,
        amount_refunded, currency, status, capture_method, provider, provider_reference, card_brand, card_last4,
        card_exp_month, card_exp_year, card_fingerprint, card_country, email, client_address, description,
        metadata, risk_score, risk_signals, routing_decision, fee, receipt_token, created_at, updated_at,
        captured_at)
        VALUES ($5, $1, false, $2, $6, $6, 0, $7, 'succeeded', 'automatic', $8, $9, $10, $11, $12, $13, $14,
                NULL, $3, $15, NULL, $16, $17, $18, $19, $20, $21, $22, $22, $22) RETURNING id),
  at AS (INSERT INTO perf_documented_attempts VALUES ($23, $5, $1, 1, $8, 'approved', $24, $22)),
  sc AS (INSERT INTO perf_documented_cards VALUES ($25, $1, $2, $5, $10, $11, $12, $13, $14, $22)),
  le AS (INSERT INTO perf_documented_ledger VALUES
        ($26, $30, $5, $1, 'customer', -$6::bigint, $7, $22), ($27, $30, $5, $1, 'merchant_pending', $6, $7, $22),
        ($28, $30, $5, $1, 'merchant_pending', -$20::bigint, $7, $22), ($29, $30, $5, $1, 'fee_revenue', $20, $7, $22)),
  bl AS (INSERT INTO perf_documented_balance VALUES ($31, $1, false, $5, $7, $6 - $20::bigint, NULL, $22)),
  rc AS (INSERT INTO perf_documented_receipts VALUES ($32, $5, $1, $3, $33, 'pending', $22)),
  ev AS (INSERT INTO perf_ceiling_events (id, merchant_id, type, payload) VALUES ($34, $1, 'payment.succeeded', $35)),
  n AS (INSERT INTO perf_ceiling_counts VALUES ($1, false, $36, 1)
        ON CONFLICT (merchant_id, livemode, slot) DO UPDATE SET n = perf_ceiling_counts.n + 1),
  ro AS (INSERT INTO perf_documented_rollups VALUES ($1, false, $7, $37, $8, $36, 1, 1, $6, $6)
        ON CONFLICT (merchant_id, livemode, currency, day, provider, slot) DO UPDATE SET
        payments = perf_documented_rollups.payments + 1, approved = perf_documented_rollups.approved + 1,
        volume = perf_documented_rollups.volume + EXCLUDED.volume,
        captured = perf_documented_rollups.captured + EXCLUDED.captured),
  la AS (INSERT INTO perf_documented_latency VALUES ($1, false, $37, $8, $38, 1)
        ON CONFLICT (merchant_id, livemode, day, provider, bucket) DO UPDATE SET n = perf_documented_latency.n + 1)
SELECT id FROM p"""

PROVIDERS = (("anatolia", 204, 180, 0.93), ("atlas", 290, 320, 0.88))
DISPOSABLE = frozenset({"mailinator.com", "yopmail.com", "tempmail.com"})


def _luhn(number: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(number)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _tier(n: int, tiers) -> int:
    pts = 0
    for at_least, points in tiers:
        if n >= at_least:
            pts = points
    return pts


def _iso(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"


async def _pay_documented(request, merchant):
    started = time.perf_counter()
    b = orjson.loads(await request.read())
    card = b["payment_method"]["card"]
    number, email = str(card["number"]), str(b["customer"]["email"])
    amount, currency = int(b["amount"]), str(b["currency"])
    if not (12 <= len(number) <= 19 and number.isdigit() and _luhn(number)):
        raise ValueError("card number")
    fingerprint = hmac.new(FINGERPRINT_KEY, number.encode(), hashlib.sha256).hexdigest()[:32]
    brand = "visa" if number[0] == "4" else "mastercard"
    address = request.remote or "127.0.0.1"
    now = datetime.now(timezone.utc)
    pool = request.app["pool"]
    r = await pool.fetchrow(READ_SQL, merchant, currency, fingerprint, address, email, now - timedelta(minutes=10))
    signals = []
    if r["history_n"] >= 5:
        ratio = amount / (r["history_total"] / r["history_n"])
        if ratio > 3:
            signals.append({"signal": "amount_vs_history", "points": 35 if ratio > 10 else 15,
                            "detail": f"{ratio:.1f}x the average of the last {r['history_n']} payments"})
    for signal, n, tiers, what in (("card_velocity", r["card_n"], ((10, 10), (50, 20)), "payments with this card"),
                                   ("card_declines", r["card_failed"], ((2, 25), (4, 45), (8, 60)), "declined payments"),
                                   ("client_address_velocity", r["address_n"], ((20, 10), (100, 20)),
                                    "payments from this address")):
        pts = _tier(n, tiers)
        if pts:
            signals.append({"signal": signal, "points": pts, "detail": f"{n} {what} in 10 minutes"})
    if email.rpartition("@")[2].lower() in DISPOSABLE:
        signals.append({"signal": "email", "points": 20, "detail": "disposable e-mail domain"})
    score = min(100, sum(s["points"] for s in signals))
    rule = (r["rules"] or [None])[0]
    scores = sorted(({"provider": name, "score": round(rate - fee / 10000, 4), "approval_rate": rate,
                      "fee": amount * fee // 10000, "latency_ms": lat} for name, fee, lat, rate in PROVIDERS),
                    key=lambda s: -s["score"])
    best = scores[0]
    fee = best["fee"]
    decision = {"strategy": "smart", "reason": f"smart: {best['provider']} score {best['score']} beat "
                f"{scores[1]['provider']} score {scores[1]['score']} [default]",
                "alternatives_considered": [s["provider"] for s in scores[1:]],
                "latency_ms": int((time.perf_counter() - started) * 1000), "rule_id": rule and rule["id"],
                "attempts": [{"provider": best["provider"], "outcome": "approved", "decline_code": None,
                              "latency_ms": best["latency_ms"]}], "scores": scores}
    new_customer = r["customer_id"] is None
    customer_id = ys.new_id("cus_") if new_customer else r["customer_id"]
    pid, token, slot = ys.new_id("pay_"), ys.new_id("rt_"), random.randrange(16)
    created = _iso(now)
    answer = {"id": pid, "object": "payment", "status": "succeeded", "amount": amount, "currency": currency,
              "provider": best["provider"], "routing_decision": decision, "risk_score": score, "created_at": created,
              "amount_captured": amount, "amount_refunded": 0, "capture_method": "automatic",
              "customer_id": customer_id, "decline_code": None,
              "payment_method": {"type": "card", "card": {"brand": brand, "last4": number[-4:],
                                                          "exp_month": int(card["exp_month"]),
                                                          "exp_year": int(card["exp_year"]),
                                                          "fingerprint": fingerprint, "country": None}},
              "metadata": b.get("metadata") or {}, "livemode": False, "payment_link": None,
              "receipt_url": f"http://{request.host}/pay/{pid}/receipt/{token}", "dispute": None,
              "installments": None}
    day = now.date()
    await pool.execute(
        WRITE_SQL, merchant, customer_id, email, new_customer, pid, amount, currency, best["provider"],
        ys.new_id("ref_"), brand, number[-4:], int(card["exp_month"]), int(card["exp_year"]), fingerprint, address,
        answer["metadata"], score, signals, decision, fee, token, now, ys.new_id("att_"), best["latency_ms"],
        ys.new_id("card_"), ys.new_id("le_"), ys.new_id("le_"), ys.new_id("le_"), ys.new_id("le_"),
        ys.new_id("ltx_"), ys.new_id("bl_"), ys.new_id("rcp_"), "tr" if (r["country"] or "TR") == "TR" else "en",
        ys.new_id("evt_"), answer, slot, day, best["latency_ms"] // 50)
    return answer


async def pay_documented(request):
    return await ys.answer(request, _pay_documented, 201)


async def _start_documented(app):
    async with app["pool"].acquire() as c:       # every run starts empty, as the yardstick's tables do
        tables = re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA)
        await c.execute(f"DROP TABLE IF EXISTS {', '.join(tables)}")
        await c.execute(SCHEMA)
        await c.execute("INSERT INTO perf_documented_merchants VALUES ($1, 'TR') ON CONFLICT DO NOTHING", ys.MERCHANT)


def main() -> None:
    from aiohttp import web
    try:
        import uvloop
        import asyncio
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    app = web.Application()
    app.on_startup.append(ys.start)
    app.on_startup.append(_start_documented)
    app.on_cleanup.append(ys.stop)
    app.router.add_get("/ready", ys.ready)
    app.router.add_get("/read", ys.read)
    app.router.add_get("/list", ys.page)
    app.router.add_post("/create", ys.create)
    app.router.add_post("/pay", ys.pay)
    app.router.add_post("/pay-documented", pay_documented)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=None)


if __name__ == "__main__":
    main()
