#!/usr/bin/env python3
"""Loads N payments (default 1,000,000) into a throwaway live-mode merchant on PostgreSQL with COPY
(asyncpg copy_records_to_table), not through the API, with what the write path keeps beside them:
attempts, ledger legs, balance lines, daily settlements of everything older than three days
(paid, with their payout legs), and the daily analytics rollups.

    DATABASE_URL=postgres://... python bench/seed_million.py [--payments 1000000] [--days 365]

The data: a Turkish merchant (Istanbul days); 70% TRY, 15% SAR, 10% KWD, 5% IQD; 10% declined,
3% approved at a second provider after an error, 2% authorized and never captured, 5% of the
captured partly refunded one to five days later; latencies spread around each provider's; rows
in time order (as a live table fills), then VACUUM ANALYZE (as autovacuum would). Lines
are settled by UTC day + 1 (close to, not exactly, the business-day calendar: this is load, not
accounting). Prints the merchant id for bench/money_views.py.

`seed_list_rows(dsn, merchant_id, livemode, rows, kind)` (importable; kind "intents" or
"payments") adds N rows of one list to an EXISTING merchant and mode with COPY, older than any
row the merchant has, and adds them to the list's counter (list_counts) in the same
transaction, so the list's total stays exact; bench/run.py uses it to measure the list pages at
1,000,000 rows. From the command line:

    DATABASE_URL=postgres://... python bench/seed_million.py --merchant mer_... [--livemode] \
        --list-rows 1000000 --kind intents
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from collections import defaultdict
from datetime import date, datetime, timedelta, timezone

import asyncpg

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from services.money.analytics import bucket  # noqa: E402
from services.ids import new_id  # noqa: E402

CURRENCIES = (("TRY", 0.70, 1_000, 500_000, ("anatolia", "atlas")),
              ("SAR", 0.15, 100, 100_000, ("gulfnet", "atlas")),
              ("KWD", 0.10, 1_000, 200_000, ("gulfnet", "atlas")),
              ("IQD", 0.05, 250_000, 5_000_000, ("nilepay", "atlas")))
LATENCY = {"anatolia": 180, "gulfnet": 240, "atlas": 320, "nilepay": 420}
LOCAL = timedelta(hours=3)              # Istanbul
CHUNK = 50_000

PAYMENT_COLS = ("id", "merchant_id", "livemode", "status", "amount", "currency", "amount_captured", "amount_refunded",
                "fee", "capture_method", "provider", "routing_decision", "risk_score", "risk_signals", "decline_code",
                "payment_method_type", "card_brand", "card_last4", "metadata", "created_at", "updated_at",
                "captured_at")
ATTEMPT_COLS = ("id", "payment_id", "merchant_id", "livemode", "number", "provider", "outcome", "decline_code",
                "amount", "currency", "latency_ms", "created_at")
LEDGER_COLS = ("merchant_id", "livemode", "txn_id", "kind", "account", "currency", "amount", "payment_id",
               "refund_id", "source_id", "created_at")
LINE_COLS = ("id", "merchant_id", "livemode", "currency", "kind", "payment_id", "refund_id", "source_id", "gross",
             "fee", "net", "created_at", "settlement_id")


INTENT_COLS = ("id", "merchant_id", "livemode", "status", "amount", "currency", "amount_received", "payment_method",
               "metadata", "locale", "fee_amount", "fee_rate", "fee_processing", "fee_conversion", "fee_network",
               "net_amount", "settlement_date", "created_at", "expires_at", "succeeded_at", "canceled_at",
               "cancellation_reason", "version")
LIST_KINDS = ("intents", "payments")


def _dsn(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1)


async def add_to_list_count(conn, merchant_id: str, livemode: bool, kind: str, n: int) -> None:
    """What the rows' own writes do (models.core.ListCount), for rows written by COPY."""
    await conn.execute("INSERT INTO list_counts (merchant_id, livemode, kind, slot, n) VALUES ($1, $2, $3, 0, $4) "
                       "ON CONFLICT (merchant_id, livemode, kind, slot) DO UPDATE SET n = list_counts.n + EXCLUDED.n",
                       merchant_id, livemode, kind, n)


def _intent_row(rng: random.Random, merchant_id: str, livemode: bool, created: datetime) -> tuple:
    cur, _, lo, hi, _ = pick_currency(rng)
    amount = rng.randint(lo, hi)
    fee = amount * 29 // 1000
    # Settled states only: an unpaid, processing or failed intent past its expiry would be work for
    # the expiry job of every process serving the database (its batch would be these rows).
    ok = rng.random() < 0.6
    expires = created + timedelta(hours=1)
    return (new_id("pay"), merchant_id, livemode, "succeeded" if ok else "canceled", amount, cur, amount if ok else 0,
            "card", '{"bench": "1"}', "tr", fee, "0.029", fee, 0, 0, amount - fee, (created + timedelta(days=1)).date(),
            created, expires, created if ok else None, None if ok else expires, None if ok else "expired", 1)


def _payment_row(rng: random.Random, merchant_id: str, livemode: bool, created: datetime) -> tuple:
    cur, _, lo, hi, provs = pick_currency(rng)
    amount = rng.randint(lo, hi)
    ok = rng.random() >= 0.1
    return (new_id("pay"), merchant_id, livemode, "succeeded" if ok else "failed", amount, cur, amount if ok else 0, 0,
            amount * 2 // 100 if ok else 0, "automatic", provs[0], "{}", 0, "[]", None if ok else "card_declined",
            "card", "visa", "4242", "{}", created, created, created if ok else None)


async def seed_list_rows(dsn: str, merchant_id: str, livemode: bool, rows: int, kind: str, *, seed: int = 7) -> None:
    """Add `rows` /v1 intents (kind "intents") or /api payments (kind "payments") to an existing
    merchant and mode with COPY, dated before anything the merchant has (one per 30 s going back),
    with the list's counter added to in the same transaction, then ANALYZE the table."""
    if kind not in LIST_KINDS:
        raise ValueError(f"kind must be one of {LIST_KINDS}")
    table, columns, make = {"intents": ("payment_intents", INTENT_COLS, _intent_row),
                            "payments": ("payments", PAYMENT_COLS, _payment_row)}[kind]
    rng = random.Random(seed)
    conn = await asyncpg.connect(_dsn(dsn))
    try:
        oldest = await conn.fetchval(f"SELECT min(created_at) FROM {table} WHERE merchant_id = $1 AND livemode = $2",
                                     merchant_id, livemode)
        end = (oldest or datetime.now(timezone.utc)) - timedelta(seconds=1)
        done = 0
        while done < rows:
            n = min(CHUNK, rows - done)
            records = [make(rng, merchant_id, livemode, end - timedelta(seconds=30 * (done + j) + rng.random()))
                       for j in range(n)]
            records.reverse()                  # oldest first, as a live table fills
            async with conn.transaction():
                await conn.copy_records_to_table(table, records=records, columns=columns)
                await add_to_list_count(conn, merchant_id, livemode, kind, n)
            done += n
        await conn.execute(f"ANALYZE {table}")
    finally:
        await conn.close()


def pick_currency(rng: random.Random):
    x = rng.random()
    for row in CURRENCIES:
        if x < row[1]:
            return row
        x -= row[1]
    return CURRENCIES[0]


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--payments", type=int, default=1_000_000)
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--merchant", help="with --list-rows: an existing merchant id")
    ap.add_argument("--livemode", action="store_true", help="with --list-rows: live mode rows (default test)")
    ap.add_argument("--list-rows", type=int, help="add this many list rows to --merchant (see seed_list_rows)")
    ap.add_argument("--kind", choices=LIST_KINDS, default="intents")
    args = ap.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("DATABASE_URL=postgres://... is required (run `qafila migrate` on it first)")
    if args.list_rows:
        if not args.merchant:
            sys.exit("--list-rows needs --merchant")
        t0 = time.perf_counter()
        await seed_list_rows(url, args.merchant, args.livemode, args.list_rows, args.kind, seed=args.seed)
        print(f"seeded {args.list_rows:,} {args.kind} for {args.merchant} in {time.perf_counter() - t0:.0f} s",
              file=sys.stderr)
        return
    rng = random.Random(args.seed)
    now = datetime.now(timezone.utc).replace(microsecond=0)
    start = now - timedelta(days=args.days)
    settle_before = now - timedelta(days=3)
    conn = await asyncpg.connect(_dsn(url))
    merchant_id = new_id("mer")
    await conn.execute("INSERT INTO merchants (id, email, name, country, created_at, require_two_factor) "
                       "VALUES ($1, $2, $3, 'TR', $4, false)",
                       merchant_id, f"bench-money-{merchant_id}@example.com", f"Bench {args.payments:,}", start)
    rollups: dict[tuple, list[int]] = defaultdict(lambda: [0] * 7)
    latencies: dict[tuple, int] = defaultdict(int)
    settlements: dict[tuple, list[int]] = defaultdict(lambda: [0, 0, 0, 0])     # amount, gross, fee, count
    t0 = time.perf_counter()
    done = 0
    while done < args.payments:
        n = min(CHUNK, args.payments - done)
        pays, atts, legs, lines = [], [], [], []
        for j in range(n):
            cur, _, lo, hi, provs = pick_currency(rng)
            amount = rng.randint(lo, hi)
            # in time order, as a live table fills (its recent rows together at the end)
            created = start + timedelta(seconds=int((done + j + rng.random()) * args.days * 86400 / args.payments))
            day = (created + LOCAL).date()
            pid = new_id("pay")
            x = rng.random()
            tries = []
            if x < 0.10:
                status, prov, decline = "failed", provs[0], "card_declined"
                tries.append((prov, "declined", "card_declined"))
            elif x < 0.13:
                status, prov, decline = "succeeded", "atlas", None
                tries += [(provs[0], "error", "processing_error"), ("atlas", "approved", None)]
            elif x < 0.15:
                status, prov, decline = "authorized", provs[0], None
                tries.append((prov, "approved", None))
            else:
                prov = provs[0] if rng.random() < 0.8 else "atlas"
                status, decline = "succeeded", None
                tries.append((prov, "approved", None))
            approved = status != "failed"
            captured = amount if status == "succeeded" else 0
            fee = amount * 2 // 100 if captured else 0
            refunded, refund_at = 0, None
            if captured and rng.random() < 0.05:
                refund_at = created + timedelta(days=rng.randint(1, 5), seconds=rng.randint(0, 3600))
                if refund_at < now:
                    refunded = rng.randint(1, amount)
                    status = "refunded"
                else:
                    refund_at = None
            pays.append((pid, merchant_id, True, status, amount, cur, captured, refunded, fee,
                         "automatic" if status != "authorized" else "manual", prov, "{}", 0, "[]", decline, "card",
                         "visa", "4242", "{}", created, created, created if captured else None))
            r = rollups[(day, cur, prov)]
            r[0] += 1
            r[1] += approved
            r[2] += amount if approved else 0
            r[3] += captured
            for k, (tp, outcome, code) in enumerate(tries, 1):
                lat = max(1, int(LATENCY[tp] * rng.uniform(0.6, 1.8)) * (3 if outcome == "error" else 1))
                atts.append((new_id("att"), pid, merchant_id, True, k, tp, outcome, code, amount, cur, lat, created))
                t = rollups[(day, cur, tp)]
                t[5] += 1
                t[6] += outcome == "approved"
                latencies[(day, cur, tp, bucket(lat))] += 1
            if captured:
                txn = new_id("ltx")
                head = (merchant_id, True, txn, "capture")
                legs += [(*head, "provider_receivable", cur, amount, pid, None, None, created),
                         (*head, "merchant_balance", cur, -amount, pid, None, None, created),
                         (*head, "merchant_balance", cur, fee, pid, None, None, created),
                         (*head, "fee_revenue", cur, -fee, pid, None, None, created)]
                lines.append([txn, merchant_id, True, cur, "capture", pid, None, None, amount, fee, amount - fee,
                              created, None])
            if refunded:
                txn, rid = new_id("ltx"), new_id("ref")
                legs += [(merchant_id, True, txn, "refund", "merchant_balance", cur, refunded, pid, rid, None,
                          refund_at),
                         (merchant_id, True, txn, "refund", "provider_receivable", cur, -refunded, pid, rid, None,
                          refund_at)]
                lines.append([txn, merchant_id, True, cur, "refund", pid, rid, None, -refunded, 0, -refunded,
                              refund_at, None])
                rollups[((refund_at + LOCAL).date(), cur, prov)][4] += refunded
        for line in lines:
            if line[11] < settle_before:
                sday = line[11].date() + timedelta(days=1)
                sid = f"set_bench{line[3]}{sday:%Y%m%d}{merchant_id[-6:]}"
                line[12] = sid
                s = settlements[(line[3], sday, sid)]
                s[0] += line[10]
                s[1] += line[8]
                s[2] += line[9]
                s[3] += 1
        await conn.copy_records_to_table("payments", records=pays, columns=PAYMENT_COLS)
        await add_to_list_count(conn, merchant_id, True, "payments", len(pays))
        await conn.copy_records_to_table("payment_attempts", records=atts, columns=ATTEMPT_COLS)
        await conn.copy_records_to_table("ledger_entries", records=legs, columns=LEDGER_COLS)
        await conn.copy_records_to_table("balance_lines", records=[tuple(x) for x in lines], columns=LINE_COLS)
        done += n
        print(f"  {done:,} payments ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    sets, legs, lines = [], [], []
    for (cur, sday, sid), (amount, gross, fee, count) in settlements.items():
        payout_at = datetime.combine(sday, datetime.min.time(), tzinfo=timezone.utc) - LOCAL
        sets.append((sid, merchant_id, True, cur, amount, gross, fee, count, "paid", sday - timedelta(days=1), sday,
                     payout_at, payout_at, payout_at))
        txn = new_id("ltx")
        legs += [(merchant_id, True, txn, "payout", "merchant_balance", cur, amount, None, None, sid, payout_at),
                 (merchant_id, True, txn, "payout", "provider_receivable", cur, -amount, None, None, sid, payout_at)]
        lines.append((txn, merchant_id, True, cur, "payout", None, None, sid, -amount, 0, -amount, payout_at, sid))
    await conn.copy_records_to_table("settlements", records=sets, columns=(
        "id", "merchant_id", "livemode", "currency", "amount", "gross", "fee", "transactions", "status", "settled_on",
        "arrival_date", "payout_at", "created_at", "paid_at"))
    await conn.copy_records_to_table("ledger_entries", records=legs, columns=LEDGER_COLS)
    await conn.copy_records_to_table("balance_lines", records=lines, columns=LINE_COLS)
    await conn.copy_records_to_table("payment_rollups", columns=(
        "merchant_id", "livemode", "day", "currency", "provider", "payments", "approved", "volume", "captured",
        "refunded", "tries", "tries_approved"),
        records=[(merchant_id, True, d, c, p, *v) for (d, c, p), v in rollups.items()])
    await conn.copy_records_to_table("latency_rollups", columns=(
        "merchant_id", "livemode", "day", "currency", "provider", "bucket", "count"),
        records=[(merchant_id, True, d, c, p, b, n) for (d, c, p, b), n in latencies.items()])
    for table in ("payments", "payment_attempts", "ledger_entries", "balance_lines", "settlements", "payment_rollups",
                  "latency_rollups", "list_counts"):
        await conn.execute(f"VACUUM ANALYZE {table}")        # what autovacuum does to a live table
    await conn.close()
    print(f"seeded {args.payments:,} payments, {len(sets):,} settlements, {len(rollups):,} rollup rows, "
          f"{len(latencies):,} latency rows in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    print(merchant_id)


if __name__ == "__main__":
    asyncio.run(main())
