#!/usr/bin/env python3
"""What the documented answers oblige and the yardstick's paths leave out, done just as barely
(issue 26). By hand, not in CI.

    DATABASE_URL=... REDIS_URL=... python bench/yardstick_documented.py PORT

It serves ../shared/perf/yardstick.py unchanged (its module, its routes, its gate, headers and access
line) plus one documented twin of each of its paths, measured by bench/pay_profile.py --path:

`POST /pay-documented` takes the same body as `/pay` and does, in two statements:

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

`GET /read-documented`, `GET /list-documented` and `POST /create-documented` are `/read`, `/list`
and `/create` as `GET /v1/payments/:id`, `GET /v1/payments?limit=20` and `POST /v1/payments/intent`
document them (payment-intents-v1.md), each still one statement:

  every one  the caller named by its bearer key: the `Authorization` header read, checked and
             hashed (SHA-256), and the yardstick's gate keyed by that digest (the yardstick's gate
             reads one fixed key whatever is sent: a request with no key is answered);
  the read   the intent scoped to the key's merchant and mode, with every column of the documented
             object, and its receipt (`receipt_url`, documented on confirm) joined; its status as of
             now (an unpaid intent past `expires_at` is not shown unpaid);
  the list   the same for a page of 20 (with `limit` and `starting_after` read and checked), the
             total from the 16 counter slots in the same statement, as `/list`;
  the create the body checked field by field (the documented amount, currency, payment_method and
             metadata limits), the merchant's market (its home currency for the conversion fee, its
             weekend for "next business day"), the fee with its breakdown, and the intent, its
             counter slot and its `payment.created` event carrying the documented object, in one
             statement, as `/create`;
  /create-kept  that create, also writing what the documented reads and webhooks need of it: the
             list's status filter and the expiry an hour on (two more intent indexes), the recent
             events per merchant (an events index) and the webhook's outbox row (an issue-26 measure
             of what the create's write obligations cost; not one of the yardstick's twins);
  the object each answer's intent is the documented payment intent: `client_secret`
             (HMAC-SHA256 of the id), the `fee` object with its breakdown, `amount_received`,
             `merchant_id`, `order_id`, `next_action`, `receipt_url`, ISO 8601 UTC timestamps.

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
from aiohttp import web

import twins

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
CREATE TABLE IF NOT EXISTS perf_documented_intents (id text PRIMARY KEY, merchant_id text NOT NULL,
    livemode boolean NOT NULL, status text NOT NULL, amount bigint NOT NULL, currency text NOT NULL,
    amount_received bigint NOT NULL, payment_method text NOT NULL, fee_amount bigint NOT NULL,
    fee_rate text NOT NULL, fee_processing bigint NOT NULL, fee_conversion bigint NOT NULL,
    fee_network bigint NOT NULL, net_amount bigint NOT NULL, settlement_date date NOT NULL, order_id text,
    metadata jsonb, crypto jsonb, next_action jsonb, succeeded_at timestamptz, created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS perf_documented_intents_page
    ON perf_documented_intents (merchant_id, livemode, created_at DESC, id DESC);
CREATE TABLE IF NOT EXISTS perf_documented_counts (merchant_id text NOT NULL, livemode boolean NOT NULL,
    slot int NOT NULL, n bigint NOT NULL, PRIMARY KEY (merchant_id, livemode, slot));
CREATE TABLE IF NOT EXISTS perf_kept_intents (LIKE perf_documented_intents INCLUDING DEFAULTS);
ALTER TABLE perf_kept_intents ADD PRIMARY KEY (id);
CREATE INDEX IF NOT EXISTS perf_kept_intents_page ON perf_kept_intents (merchant_id, livemode, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS perf_kept_intents_status ON perf_kept_intents (merchant_id, livemode, status, created_at, id);
CREATE INDEX IF NOT EXISTS perf_kept_intents_open ON perf_kept_intents (expires_at, id)
    WHERE status IN ('requires_payment_method', 'requires_confirmation', 'requires_action');
CREATE TABLE IF NOT EXISTS perf_kept_events (id text PRIMARY KEY, merchant_id text NOT NULL, livemode boolean NOT NULL,
    type text NOT NULL, object_id text NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS perf_kept_events_list ON perf_kept_events (merchant_id, livemode, created_at);
CREATE TABLE IF NOT EXISTS perf_kept_waiting (event_id text PRIMARY KEY, merchant_id text NOT NULL,
    livemode boolean NOT NULL, type text NOT NULL, created_at timestamptz NOT NULL);
CREATE INDEX IF NOT EXISTS perf_kept_waiting_order ON perf_kept_waiting (created_at);
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
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (ts.year, ts.month, ts.day, ts.hour, ts.minute, ts.second,
                                                    ts.microsecond // 1000)


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

# ---------------------------------------------------------------- the documented /v1 intent paths

SECRET = b"s" * 32                                     # client_secret's HMAC key
UNPAID = frozenset({"requires_payment_method", "requires_confirmation", "requires_action"})
METHOD_RATES = {"card": ("0.029", 290), "crypto": ("0.01", 100), "cod": ("0.02", 200), "qr": ("0.019", 190),
                "tap_to_pay": ("0.025", 250)}      # (rate as documented, per 10,000)
CURRENCIES = {"TRY": 2, "SAR": 2, "AED": 2, "KWD": 3, "QAR": 2, "EGP": 2, "IQD": 3, "BHD": 3, "OMR": 3, "JOD": 3}
HOME = {"TR": "TRY", "SA": "SAR", "AE": "AED", "KW": "KWD", "QA": "QAR", "EG": "EGP", "IQ": "IQD"}
WEEKEND = {"TR": (5, 6), "SA": (4, 5), "AE": (5, 6), "KW": (4, 5), "QA": (4, 5), "EG": (4, 5), "IQ": (4, 5)}
DOC_COLS = ("id, status, amount, currency, amount_received, payment_method, fee_amount, fee_rate, fee_processing, "
            "fee_conversion, fee_network, net_amount, settlement_date, order_id, metadata, crypto, next_action, "
            "succeeded_at, created_at, expires_at, livemode, merchant_id")
DOC_READ_SQL = (f"SELECT {', '.join('i.' + c.strip() for c in DOC_COLS.split(','))}, r.id AS receipt_id "
                "FROM perf_documented_intents i LEFT JOIN perf_documented_receipts r ON r.payment_id = i.id "
                "WHERE i.id = $1 AND i.merchant_id = $2 AND i.livemode = $3")
_PAGE = """SELECT {cols},
    (SELECT r.id FROM perf_documented_receipts r WHERE r.payment_id = i.id) AS receipt_id,
    (SELECT coalesce(sum(n), 0)::bigint FROM perf_documented_counts WHERE merchant_id = $1 AND livemode = $2) AS total
  FROM perf_documented_intents i WHERE i.merchant_id = $1 AND i.livemode = $2{after}
  ORDER BY i.created_at DESC, i.id DESC LIMIT $3"""
_COLS = ", ".join("i." + c.strip() for c in DOC_COLS.split(","))
DOC_LIST_SQL = _PAGE.format(cols=_COLS, after="")
DOC_LIST_AFTER_SQL = _PAGE.format(cols=_COLS, after="""
  AND (i.created_at, i.id) < (SELECT created_at, id FROM perf_documented_intents
                              WHERE id = $4 AND merchant_id = $1 AND livemode = $2)""")
DOC_CREATE_SQL = """WITH i AS (
    INSERT INTO perf_documented_intents (id, merchant_id, livemode, status, amount, currency, amount_received,
        payment_method, fee_amount, fee_rate, fee_processing, fee_conversion, fee_network, net_amount,
        settlement_date, order_id, metadata, created_at, expires_at)
    VALUES ($1, $2, $3, 'requires_payment_method', $4, $5, 0, $6, $7, $8, $9, $10, 0, $11, $12, $13, $14, $15, $16)
    RETURNING id),
  c AS (INSERT INTO perf_documented_counts VALUES ($2, $3, $17, 1)
        ON CONFLICT (merchant_id, livemode, slot) DO UPDATE SET n = perf_documented_counts.n + 1),
  e AS (INSERT INTO perf_ceiling_events (id, merchant_id, type, payload) SELECT $18, $2, 'payment.created', $19 FROM i)
SELECT id FROM i"""
# `/create-kept`: the same create, writing also what the documented reads and webhooks need of it
# (payment-intents-v1.md): the list's status filter (an index with the status), the expiry an hour
# after creation (the open intents by expires_at), the webhook that is never lost (the event's
# outbox row, read in created order) and the recent events listed per merchant. Nothing of ours
# beyond the documents: no per-object events index, no unique local-method reference, no foreign keys.
KEPT_CREATE_SQL = (DOC_CREATE_SQL.replace("perf_documented_intents", "perf_kept_intents")
                   .replace("""  e AS (INSERT INTO perf_ceiling_events (id, merchant_id, type, payload) SELECT $18, $2, 'payment.created', $19 FROM i)""",
                            """  e AS (INSERT INTO perf_kept_events (id, merchant_id, livemode, type, object_id, payload, created_at)
        SELECT $18, $2, $3, 'payment.created', i.id, $19, $15 FROM i),
  w AS (INSERT INTO perf_kept_waiting (event_id, merchant_id, livemode, type, created_at)
        SELECT $18, $2, $3, 'payment.created', $15 FROM i)"""))
assert "perf_kept_waiting" in KEPT_CREATE_SQL
DOC_MERCHANT = "mer_documented000000000001"


class Refused(Exception):
    def __init__(self, status: int, message: str, param: str | None = None):
        super().__init__(message)
        self.status, self.message, self.param = status, message, param


async def keyed_answer(request, handler, status=200):
    """The yardstick's `answer` (the gate, the headers, the access line), with the caller named by
    its bearer key: the header read and checked, the key hashed, the gate keyed by the digest."""
    t0 = time.perf_counter()
    auth = request.headers.get("Authorization", "")
    token = auth[7:] if auth.startswith("Bearer ") else ""
    rid = ys.new_id("req_")
    try:
        if not token.startswith(("sk_test_", "sk_live_")) or len(token) > 100:
            raise Refused(401, "Invalid API key")
        digest = hashlib.sha256(token.encode()).hexdigest()
        entry, n = await request.app["gate"](keys=[f"perf:key:{digest}", f"perf:count:{digest}"])
        if entry is None:
            raise Refused(401, "Invalid API key")
        _, merchant, _, mode = entry.split("|")
        body = await handler(request, merchant, mode == "live")
        headers = {"X-Request-Id": rid, "X-RateLimit-Limit": str(ys.LIMIT),
                   "X-RateLimit-Remaining": str(max(0, ys.LIMIT - n))}
    except Refused as exc:
        status, headers = exc.status, {"X-Request-Id": rid}
        body = {"error": {"message": exc.message, "param": exc.param, "request_id": rid}}
    resp = web.Response(body=orjson.dumps(body), status=status, content_type="application/json", headers=headers)
    request.app["log"].write(f"{datetime.now(timezone.utc).isoformat()} {request.method} {request.path} "
                             f"{status} {(time.perf_counter() - t0) * 1000:.2f}ms {rid}\n")
    return resp


_INNER = hashlib.sha256(bytes(b ^ 0x36 for b in SECRET.ljust(64, b"\0")))    # HMAC's two keyed states, made once
_OUTER = hashlib.sha256(bytes(b ^ 0x5C for b in SECRET.ljust(64, b"\0")))


def _client_secret(intent_id: str) -> str:
    inner = _INNER.copy()
    inner.update(intent_id.encode())
    outer = _OUTER.copy()
    outer.update(inner.digest())
    return f"{intent_id}_secret_{outer.hexdigest()[:24]}"


def _intent_object(r, host: str, now: datetime) -> dict:
    """The documented payment intent from its row (a record or a dict of the same columns)."""
    iid, status = r["id"], r["status"]
    if status in UNPAID and r["expires_at"] <= now:
        status = "canceled"
    obj = {"id": iid, "object": "payment_intent", "status": status, "amount": r["amount"],
           "currency": r["currency"], "amount_received": r["amount_received"], "payment_method": r["payment_method"],
           "checkout_url": f"http://{host}/pay/{iid}", "client_secret": _client_secret(iid),
           "fee": {"amount": r["fee_amount"], "currency": r["currency"], "rate": r["fee_rate"],
                   "breakdown": {"processing": r["fee_processing"], "currency_conversion": r["fee_conversion"],
                                 "network": r["fee_network"]}},
           "net_amount": r["net_amount"], "settlement_date": r["settlement_date"].isoformat(),
           "merchant_id": r["merchant_id"], "order_id": r["order_id"], "metadata": r["metadata"] or {},
           "created_at": _iso(r["created_at"]), "expires_at": _iso(r["expires_at"]), "livemode": r["livemode"],
           "next_action": r["next_action"],
           "succeeded_at": _iso(r["succeeded_at"]) if r["succeeded_at"] is not None else None,
           "receipt_url": f"http://{host}/pay/{iid}/receipt/{r['receipt_id']}" if r["receipt_id"] else None}
    if r["crypto"] is not None:
        obj["crypto"] = r["crypto"]
    return obj


async def _read_documented(request, merchant, livemode):
    iid = request.query.get("id", twins.READ_ID)
    if not iid.startswith("pay_") or len(iid) > 64:
        raise Refused(404, "No such payment", "id")
    row = await request.app["pool"].fetchrow(DOC_READ_SQL, iid, merchant, livemode)
    if row is None:
        raise Refused(404, "No such payment", "id")
    return _intent_object(row, request.host, datetime.now(timezone.utc))


async def _list_documented(request, merchant, livemode):
    q = request.query
    raw = q.get("limit", "20")
    if not raw.isdigit() or not 1 <= int(raw) <= 100:
        raise Refused(400, "limit must be an integer from 1 to 100", "limit")
    limit, after = int(raw), q.get("starting_after")
    if after is not None and (not after.startswith("pay_") or len(after) > 64):
        raise Refused(400, "starting_after must be a payment id", "starting_after")
    pool = request.app["pool"]
    rows = await (pool.fetch(DOC_LIST_SQL, merchant, livemode, limit + 1) if after is None
                  else pool.fetch(DOC_LIST_AFTER_SQL, merchant, livemode, limit + 1, after))
    now, host = datetime.now(timezone.utc), request.host
    data = [_intent_object(r, host, now) for r in rows[:limit]]
    more = len(rows) > limit
    return {"object": "list", "data": data, "has_more": more, "next_cursor": data[-1]["id"] if more else None,
            "total_count": rows[0]["total"] if rows else 0}


def _next_business_day(day, country: str):
    weekend = WEEKEND.get(country, (5, 6))
    day += timedelta(days=1)
    while day.weekday() in weekend:
        day += timedelta(days=1)
    return day


async def _create_documented(request, merchant, livemode, sql=DOC_CREATE_SQL):
    try:
        b = orjson.loads(await request.read())
    except orjson.JSONDecodeError:
        raise Refused(400, "The body is not JSON") from None
    if not isinstance(b, dict):
        raise Refused(400, "The body must be an object")
    currency, amount, method = b.get("currency"), b.get("amount"), b.get("payment_method")
    if currency not in CURRENCIES:
        raise Refused(400, "currency is not supported", "currency")
    if type(amount) is not int or not 0 < amount <= 10 ** (9 + CURRENCIES[currency]):
        raise Refused(400, "amount must be a positive integer in minor units", "amount")
    if method not in METHOD_RATES:
        raise Refused(400, "payment_method is not supported", "payment_method")
    metadata = b.get("metadata")
    if metadata is not None:
        if not isinstance(metadata, dict) or len(metadata) > 50:
            raise Refused(400, "metadata must be an object of at most 50 keys", "metadata")
        for k, v in metadata.items():
            if not 1 <= len(k) <= 40 or not isinstance(v, str) or len(v) > 500:
                raise Refused(400, f"metadata.{k} is not a string of at most 500 characters", f"metadata.{k}")
    order_id = b.get("order_id")
    if order_id is not None and (not isinstance(order_id, str) or len(order_id) > 200):
        raise Refused(400, "order_id must be a string of at most 200 characters", "order_id")
    country = request.app["markets"][merchant]
    rate, per = METHOD_RATES[method]
    processing = amount * per // 10000
    conversion = 0 if HOME.get(country) == currency else amount // 100
    fee = processing + conversion
    now = datetime.now(timezone.utc)
    iid = ys.new_id("pay_")
    row = {"id": iid, "status": "requires_payment_method", "amount": amount, "currency": currency,
           "amount_received": 0, "payment_method": method, "fee_amount": fee, "fee_rate": rate,
           "fee_processing": processing, "fee_conversion": conversion, "fee_network": 0, "net_amount": amount - fee,
           "settlement_date": _next_business_day(now.date(), country), "order_id": order_id, "metadata": metadata,
           "crypto": None, "next_action": None, "succeeded_at": None, "created_at": now,
           "expires_at": now + timedelta(hours=1), "livemode": livemode, "merchant_id": merchant, "receipt_id": None}
    obj = _intent_object(row, request.host, now)
    await request.app["pool"].fetchval(
        sql, iid, merchant, livemode, amount, currency, method, fee, rate, processing, conversion,
        amount - fee, row["settlement_date"], order_id, metadata, now, row["expires_at"], random.randrange(16),
        ys.new_id("evt_"), obj)
    return obj


async def read_documented(request):
    return await keyed_answer(request, _read_documented)


async def list_documented(request):
    return await keyed_answer(request, _list_documented)


async def create_documented(request):
    return await keyed_answer(request, _create_documented, 201)


async def _create_kept(request, merchant, livemode):
    return await _create_documented(request, merchant, livemode, KEPT_CREATE_SQL)


async def create_kept(request):
    return await keyed_answer(request, _create_kept, 201)


async def _start_intents(app):
    """The documented key in the gate, the merchant's market, and 1,000 intents (as `/list` has)."""
    digest = hashlib.sha256(twins.KEY.encode()).hexdigest()
    await app["redis"].set(f"perf:key:{digest}", f"key_d|{DOC_MERCHANT}|secret|test")
    async with app["pool"].acquire() as c:
        await c.execute("INSERT INTO perf_documented_merchants VALUES ($1, 'TR') ON CONFLICT DO NOTHING", DOC_MERCHANT)
        app["markets"] = {r["id"]: r["country"] for r in await c.fetch("SELECT id, country FROM perf_documented_merchants")}
        now = datetime.now(timezone.utc)
        rows = [(f"pay_documented{i:012d}", DOC_MERCHANT, False, "requires_payment_method", 10000 + i, "TRY", 0,
                 "card", 290, "0.029", 290, 0, 0, 9710 + i, now.date() + timedelta(days=1), None, {"bench": "1"},
                 now - timedelta(seconds=i), now + timedelta(hours=1) - timedelta(seconds=i)) for i in range(1, 1001)]
        cols = ("id, merchant_id, livemode, status, amount, currency, amount_received, payment_method, fee_amount, "
                "fee_rate, fee_processing, fee_conversion, fee_network, net_amount, settlement_date, order_id, "
                "metadata, created_at, expires_at")
        await c.executemany(f"INSERT INTO perf_documented_intents ({cols}) VALUES "
                            f"({', '.join(f'${i + 1}' for i in range(19))})", rows)
        await c.execute("INSERT INTO perf_documented_counts VALUES ($1, false, 0, 1000)", DOC_MERCHANT)
        await c.execute("ANALYZE perf_documented_intents")


def main() -> None:
    try:
        import uvloop
        import asyncio
        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    except ImportError:
        pass
    app = web.Application()
    app.on_startup.append(ys.start)
    app.on_startup.append(_start_documented)
    app.on_startup.append(_start_intents)
    app.on_cleanup.append(ys.stop)
    app.router.add_get("/ready", ys.ready)
    app.router.add_get("/read", ys.read)
    app.router.add_get("/list", ys.page)
    app.router.add_post("/create", ys.create)
    app.router.add_post("/pay", ys.pay)
    app.router.add_post("/pay-documented", pay_documented)
    app.router.add_get("/read-documented", read_documented)
    app.router.add_get("/list-documented", list_documented)
    app.router.add_post("/create-documented", create_documented)
    app.router.add_post("/create-kept", create_kept)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), access_log=None, print=None)


if __name__ == "__main__":
    main()
