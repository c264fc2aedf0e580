"""Balance, settlements and payouts, derived from the ledger.

Every ledger transaction that touches the merchant_balance account has one balance line
(models.money.BalanceLine, written by services.ledger with its legs). A line is `pending` until
its settlement date (T+1 business day of the merchant's market, services.settlement), then
`available`; the balance is the sum of the lines no settlement has claimed yet, so it reads the
few days of unsettled lines, never the whole history.

Settling (a scheduler job per merchant, mode and currency) runs at the start of the local day
after lines became available: it gathers every unsettled line available by the day before into
one settlement (`set_`, status `in_transit`), writes the payout to the ledger (merchant_balance
debited, provider_receivable credited; its own line belongs to the settlement, so settled
amounts leave the balance) and the paying-out job marks it `paid` on its `arrival_date`, the
next business day, delivering `payout.paid`. Lines whose sum is zero or negative are not paid
out: they stay available and the next day's settlement takes them. Invariant: for each
merchant, mode and currency, pending + available + all settlements = the merchant_balance
credits of the ledger excluding payouts, and each settlement's amount = the sum of its lines.
"""
from __future__ import annotations

import csv
import io
from datetime import date, datetime, timedelta
from typing import Any

from tortoise.functions import Min
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.core import Merchant
from models.money import BalanceLine, MoneyAccount, Settlement
from services import events, scheduler
from services.money import ledger, markets, settlement
from services.errors import NotFound, ValidationError
from services.ids import new_id
from services.money.currencies import CURRENCIES
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.timestamps import iso
from services.validation import check_enum
from services.infra import clock

STATUSES = ("in_transit", "paid")
PAYOUT = "payout"


def _mode(livemode: bool) -> str:
    return "live" if livemode else "test"


# ---------------------------------------------------------------- balance

# The balance in one statement: the instant splitting available from pending depends on the
# merchant's market (its country), read in the same statement: the instant of every market is
# passed and the merchant's row picks one (any other country, or none, is the default market),
# once per statement (an uncorrelated subquery), not once per line.
# Then the unsettled lines' sums per currency (an index-only scan of their partial index,
# models.money.BalanceLine), and the currencies of its money accounts (settled before: listed at
# 0 once all their lines are paid out), marked by NULL sums.
_OTHER_MARKETS = tuple(m for m in settlement.MARKETS if m != markets.DEFAULT_MARKET)
_AT = {"postgres": "CAST({} AS TIMESTAMPTZ)", "sqlite": "{}"}
_BALANCE = ('WITH "cut" AS (SELECT CASE (SELECT "country" FROM "merchants" WHERE "id" = {{}}) {whens} ELSE {at} END '
            'AS "at") SELECT "currency", SUM(CASE WHEN "created_at" < (SELECT "at" FROM "cut") THEN "net" ELSE 0 END) '
            'AS "available", SUM(CASE WHEN "created_at" >= (SELECT "at" FROM "cut") THEN "net" ELSE 0 END) AS "pending" '
            'FROM "balance_lines" '
            'WHERE "settlement_id" IS NULL AND "merchant_id" = {{}} AND "livemode" = {{}} GROUP BY "currency" '
            'UNION ALL SELECT "currency", NULL, NULL FROM "money_accounts" WHERE "merchant_id" = {{}} AND "livemode" = {{}}')
_BALANCE_SQL = {dialect: _BALANCE.format(whens=" ".join(f"WHEN '{m}' THEN {at}" for m in _OTHER_MARKETS), at=at)
                for dialect, at in _AT.items()}


async def get_balance(*, principal: Principal) -> dict:
    """`available` and `pending`, one entry per currency with unsettled lines (may be negative)."""
    now = await clock.now_for(principal)
    cutoffs = [lookup.db_value(BalanceLine, "created_at", markets.available_through(m, markets.local_date(m, now)))
               for m in (*_OTHER_MARKETS, markets.DEFAULT_MARKET)]
    live = lookup.db_value(BalanceLine, "livemode", principal.livemode)
    rows = await lookup.query(BalanceLine, _BALANCE_SQL[BalanceLine._meta.db.capabilities.dialect],
                              [principal.merchant_id, *cutoffs, principal.merchant_id, live, principal.merchant_id, live])
    sums: dict[str, tuple[int, int]] = {}
    for r in rows:
        if r["available"] is not None or r["currency"] not in sums:
            sums[r["currency"]] = (int(r["available"] or 0), int(r["pending"] or 0))
    currencies = sorted(sums)
    return {"object": "balance", "livemode": principal.livemode,
            "available": [{"amount": sums[c][0], "currency": c} for c in currencies],
            "pending": [{"amount": sums[c][1], "currency": c} for c in currencies]}


# ---------------------------------------------------------------- settlements: reads

def settlement_object(s: Settlement) -> dict:
    return {"id": s.id, "object": "settlement", "amount": s.amount, "currency": s.currency, "status": s.status,
            "arrival_date": s.arrival_date.isoformat(), "settled_on": s.settled_on.isoformat(),
            "transactions": s.transactions, "gross": s.gross, "fee": s.fee, "livemode": s.livemode,
            "created_at": iso(s.created_at), "paid_at": iso(s.paid_at)}


def line_object(line: BalanceLine) -> dict:
    return {"id": line.id, "object": "settlement_line", "type": line.kind, "payment_id": line.payment_id,
            "refund_id": line.refund_id, "source_id": line.source_id, "gross": line.gross, "fee": line.fee,
            "net": line.net, "currency": line.currency, "created_at": iso(line.created_at)}


def _check_date(value: Any, param: str) -> date:
    try:
        return date.fromisoformat(value) if isinstance(value, str) and len(value) == 10 else _bad(param)
    except ValueError:
        return _bad(param)


def _bad(param: str):
    raise ValidationError(f"{param} must be a date, YYYY-MM-DD", param=param)


async def list_settlements(*, principal: Principal, limit=None, starting_after: str | None = None,
                           status: str | None = None, currency: str | None = None,
                           arrival_date_gte: str | None = None, arrival_date_lte: str | None = None) -> Page:
    """Newest first; filters: status, currency, arrival_date range (inclusive dates)."""
    qs = Settlement.filter(**principal.scope)
    if status:
        qs = qs.filter(status=check_enum(status, "status", STATUSES))
    if currency:
        qs = qs.filter(currency=check_enum(currency.upper() if isinstance(currency, str) else currency,
                                           "currency", CURRENCIES))
    if arrival_date_gte:
        qs = qs.filter(arrival_date__gte=_check_date(arrival_date_gte, "arrival_date_gte"))
    if arrival_date_lte:
        qs = qs.filter(arrival_date__lte=_check_date(arrival_date_lte, "arrival_date_lte"))
    return await paginate(qs, limit=check_limit(limit), starting_after=starting_after)


async def get_settlement(*, principal: Principal, settlement_id: str) -> Settlement:
    s = await lookup.first(Settlement, id=settlement_id, **principal.scope) if isinstance(settlement_id, str) else None
    if s is None:
        raise NotFound()
    return s


async def settlements_by_ids(*, principal: Principal, ids: list[str]) -> dict[str, Settlement]:
    return {s.id: s for s in await Settlement.filter(id__in=ids, **principal.scope)}


def _lines(s: Settlement):
    return BalanceLine.filter(settlement_id=s.id, merchant_id=s.merchant_id, livemode=s.livemode).exclude(kind=PAYOUT)


async def settlement_lines(*, principal: Principal, settlement_id: str, limit=None,
                           starting_after: str | None = None) -> Page:
    """The settlement's lines, newest first (payment, refund, dispute... with gross, fee, net)."""
    s = await get_settlement(principal=principal, settlement_id=settlement_id)
    page = await paginate(_lines(s), limit=check_limit(limit), starting_after=starting_after, count=False)
    page.total = s.transactions
    return page


async def first_lines_of(*, principal: Principal, settlement_ids: list[str], limit: int) -> dict[str, Page]:
    """The first page (newest first) of the lines of several settlements in one query (for a
    DataLoader: a list of settlements with their lines costs one statement, not one each)."""
    ids = list(dict.fromkeys(settlement_ids))
    if not ids:
        return {}
    marks = ", ".join("{}" for _ in ids)
    rows = await lookup.query(
        BalanceLine,
        'SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "settlement_id" ORDER BY "created_at" DESC, '
        f'"id" DESC) AS "n" FROM "balance_lines" WHERE "settlement_id" IN ({marks}) AND "merchant_id" = {{}} '
        'AND "livemode" = {} AND "kind" <> {}) AS "ranked" WHERE "n" <= {} ORDER BY "settlement_id", "n"',
        [*ids, principal.merchant_id, lookup.db_value(BalanceLine, "livemode", principal.livemode), PAYOUT,
         limit + 1])
    out: dict[str, list] = {sid: [] for sid in ids}
    for row in rows:
        row.pop("n", None)
        out[row["settlement_id"]].append(BalanceLine._init_from_db(**row))
    counts = dict(await Settlement.filter(id__in=ids, **principal.scope).values_list("id", "transactions"))
    return {sid: Page(items=lines[:limit], has_more=len(lines) > limit, total=counts.get(sid, 0),
                      next_cursor=lines[limit - 1].id if len(lines) > limit else None)
            for sid, lines in out.items()}


CSV_COLUMNS = ("line_id", "type", "payment_id", "refund_id", "source_id", "created_at", "currency", "gross", "fee",
               "net")


async def settlement_csv(*, principal: Principal, settlement_id: str, limit: Any = None,
                         starting_after: Any = None) -> str:
    """Every line of the settlement, oldest first, as CSV (amounts in minor units), for reconciliation.
    Paging parameters given with it are checked as for the JSON list (a negative limit, a cursor of
    another list: 400), though the CSV holds every line."""
    if limit is not None or starting_after is not None:
        await settlement_lines(principal=principal, settlement_id=settlement_id, limit=limit,
                               starting_after=starting_after)
    s = await get_settlement(principal=principal, settlement_id=settlement_id)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for line in await _lines(s).order_by("created_at", "id"):
        w.writerow((line.id, line.kind, line.payment_id or "", line.refund_id or "", line.source_id or "",
                    iso(line.created_at), line.currency, line.gross, line.fee, line.net))
    return out.getvalue()


# ---------------------------------------------------------------- settling and paying out (scheduler jobs)

def _item(merchant_id: str, livemode: bool, currency: str) -> str:
    return f"{merchant_id}:{_mode(livemode)}:{currency}"


async def _due_settle(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    # A line is due at the earliest at the start of the local day after its T+1 date: more
    # than a day after its creation, so the lines of the last day are not even looked at.
    groups = await (scope.apply(BalanceLine.filter(settlement_id__isnull=True, created_at__lt=until - timedelta(days=1)))
                    .annotate(first=Min("created_at")).group_by("merchant_id", "currency")
                    .values("merchant_id", "currency", "first"))
    if not groups:
        return []
    merchant_ids = list({g["merchant_id"] for g in groups})
    countries = dict(await Merchant.filter(id__in=merchant_ids).values_list("id", "country"))
    accounts = {a.id: a for a in await MoneyAccount.filter(merchant_id__in=merchant_ids, livemode=scope.livemode)}
    due: list[tuple[datetime, str]] = []
    for g in groups:
        market = markets.market(countries.get(g["merchant_id"]))
        first = g["first"]
        if isinstance(first, str):                    # an aggregate SQLite hands back as text
            first = datetime.fromisoformat(first)
        available_on = settlement.settlement_date(market, first)
        when = markets.day_start(market, available_on + timedelta(days=1))
        item = _item(g["merchant_id"], scope.livemode, g["currency"])
        account = accounts.get(item)
        if account and account.settle_after and account.settle_after > when:
            when = account.settle_after
        if when <= until:
            due.append((when, item))
    due.sort()
    return due[:limit]


async def settle(item: str, due: datetime) -> str | None:
    """Gather the lines available by the local day before `due` into one settlement (a job run)."""
    merchant_id, mode, currency = item.split(":")
    livemode = mode == "live"
    market = await markets.market_of(merchant_id)
    day = markets.local_date(market, due) - timedelta(days=1)
    cutoff = markets.available_through(market, day)
    await lookup.execute(MoneyAccount, 'INSERT INTO "money_accounts" ("id", "merchant_id", "livemode", "currency") '
                                       'VALUES ({}, {}, {}, {}) ON CONFLICT ("id") DO NOTHING',
                         [item, merchant_id, lookup.db_value(MoneyAccount, "livemode", livemode), currency])
    async with in_transaction():
        # The account row is the claim: another process settling it now holds it (SKIP LOCKED).
        account = await MoneyAccount.filter(id=item).select_for_update(skip_locked=True).first()
        if account is None or (account.settle_after is not None and account.settle_after > due):
            return None
        unsettled = BalanceLine.filter(settlement_id__isnull=True, merchant_id=merchant_id, livemode=livemode,
                                       currency=currency, created_at__lt=cutoff)
        nets = await unsettled.values_list("net", flat=True)
        if not nets:
            return None
        total = sum(nets)
        if total <= 0:
            account.settle_after = markets.day_start(market, day + timedelta(days=2))
            await account.save(update_fields=["settle_after"])
            return f"{len(nets)} lines sum to {total} {currency}: nothing to pay out, carried to the next day"
        sid = new_id("set")
        await unsettled.update(settlement_id=sid)
        # What the update claimed is the settlement, whatever committed meanwhile.
        claimed = await BalanceLine.filter(settlement_id=sid).values_list("net", "fee", "gross")
        amount = sum(n for n, _, _ in claimed)
        arrival = settlement.next_business_day(market, day)
        s = Settlement(id=sid, merchant_id=merchant_id, livemode=livemode, currency=currency, amount=amount,
                       gross=sum(g for _, _, g in claimed), fee=sum(f for _, f, _ in claimed),
                       transactions=len(claimed), status="in_transit", settled_on=day, arrival_date=arrival,
                       payout_at=markets.day_start(market, arrival), created_at=due)
        payout = ledger.rows(merchant_id=merchant_id, livemode=livemode, currency=currency, kind=PAYOUT,
                             legs=[ledger.Leg(ledger.MERCHANT_BALANCE, amount),
                                   ledger.Leg(ledger.PROVIDER_RECEIVABLE, -amount)], source_id=sid)
        for row in payout:
            if isinstance(row, BalanceLine):
                row.settlement_id = sid
        await lookup.insert_all([s, *payout])
        if account.settle_after is not None:
            account.settle_after = None
            await account.save(update_fields=["settle_after"])
    return f"settlement {sid}: {len(claimed)} lines, {amount} {currency}, arriving {arrival.isoformat()}"


async def _due_payouts(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await (scope.apply(Settlement.filter(status="in_transit", payout_at__lte=until))
                  .order_by("payout_at").limit(limit).values_list("payout_at", "id"))
    return [(when, sid) for when, sid in rows]


async def pay_out(settlement_id: str, due: datetime) -> str | None:
    """A settlement reaches the merchant's bank on its arrival date: `paid`, `payout.paid` (a job run)."""
    async with in_transaction():
        s = await Settlement.filter(id=settlement_id).select_for_update(skip_locked=True).first()
        if s is None or s.status != "in_transit" or s.payout_at > due:
            return None
        s.status, s.paid_at = "paid", due
        await s.save(update_fields=["status", "paid_at"])
        await events.emit(merchant_id=s.merchant_id, livemode=s.livemode, type="payout.paid",
                          obj=settlement_object(s))
    return f"settlement {s.id} paid: {s.amount} {s.currency}"


def register_jobs() -> None:
    """This domain's job kinds, registered with the scheduler when the app starts (app/jobs.py)."""
    scheduler.register(scheduler.JobKind("settlement.settle", _due_settle, settle))
    scheduler.register(scheduler.JobKind("settlement.payout", _due_payouts, pay_out))
