"""The payments list as a CSV file (RFC 4180: CRLF line ends, fields quoted when they need it,
UTF-8), with the list's own filters: what the dashboard's "Export CSV" downloads. Amounts are
integers in minor units, times ISO 8601 in UTC. At most MAX_ROWS rows: a larger export is
refused (`export_too_large`) rather than cut short."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

from models.payments import Customer
from services.errors import ValidationError
from services.infra import clock
from services.money import markets
from services.payments import payment_search, payments
from services.pagination import MAX_PAGE
from services.principal import Principal
from services.timestamps import iso

MAX_ROWS = 10_000
HEADER = ("id", "created_at", "status", "amount", "amount_refunded", "currency", "payment_method", "card_brand",
          "card_last4", "customer_email", "customer_phone")


@dataclass
class Export:
    filename: str
    csv: str
    row_count: int


async def export(*, principal: Principal, status: Any = None, currency: Any = None, provider: Any = None,
                 customer: Any = None, created_gte: Any = None, created_lte: Any = None,
                 search: payment_search.Search | None = None) -> Export:
    rows = []
    after = None
    while True:
        page = await payments.list_payments(principal=principal, limit=MAX_PAGE, starting_after=after, status=status,
                                            currency=currency, provider=provider, customer=customer,
                                            created_gte=created_gte, created_lte=created_lte, search=search)
        rows += page.items
        if len(rows) > MAX_ROWS:
            raise ValidationError(f"more than {MAX_ROWS:,} payments match: narrow the filters (a date range, a "
                                  "status) and export in parts", param=None, code="export_too_large")
        if not page.has_more:
            break
        after = page.next_cursor
    ids = sorted({r.customer_id for r in rows if r.customer_id})
    people: dict[str, tuple[str | None, str | None]] = {}
    for i in range(0, len(ids), 500):
        for c in await Customer.filter(id__in=ids[i:i + 500], **principal.scope).only("id", "email", "phone"):
            people[c.id] = (c.email, c.phone)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(HEADER)
    for r in rows:
        email, phone = people.get(r.customer_id, (None, None)) if r.customer_id else (None, None)
        w.writerow((r.id, iso(r.created_at), r.status, r.amount, r.amount_refunded, r.currency,
                    r.payment_method_type, r.card_brand or "", r.card_last4 or "", r.email or email or "",
                    phone or ""))
    market = await markets.cached_market_of(principal.merchant_id)
    today = markets.local_date(market, await clock.now_for(principal))
    mode = "" if principal.livemode else "-test"
    return Export(filename=f"payments{mode}-{today.isoformat()}.csv", csv=out.getvalue(), row_count=len(rows))
