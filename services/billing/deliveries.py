"""The invoices a scheduler run sends, sent after the run: a renewal (or a dunning retry) of a
customer without a saved card writes its invoice and a delivery row in one transaction (the
outbox); the invoice deliveries worker then renders the PDF and mails it (or sends the document
message) exactly as `PUT /api/invoices/{id}/send` does, with retries. Advancing a test clock over
hundreds of renewals therefore never waits for hundreds of PDFs, and no invoice is lost: a crash
after the commit leaves the row pending for the next worker.

An invoice paid meanwhile is not sent (`skipped`: a "please pay" message for a paid invoice would
be wrong); a customer who lost the channel's address meanwhile, or a channel failing
MAX_ATTEMPTS times, leaves the invoice open (`failed`, the reason in `last_error`) for the
merchant to send by hand, as a failed send always did."""
from __future__ import annotations

import asyncio
import logging
from collections import Counter
from datetime import datetime, timedelta

from models.billing import Invoice, InvoiceDelivery
from services.billing import invoices
from services.errors import DomainError, InvalidState
from services.ids import new_id
from services.infra import clock, leases
from services.infra.runtime import runtime
from services.principal import Principal

log = logging.getLogger("qafila.billing.deliveries")

RETRY_DELAYS = (30, 120, 600, 3600, 6 * 3600)        # seconds after each failed attempt
MAX_ATTEMPTS = 1 + len(RETRY_DELAYS)
CLAIM_BATCH = 20
LEASE = timedelta(seconds=120)                        # a PDF takes up to a few tenths of a second of CPU


async def enqueue(inv: Invoice, channel: str, *, now: datetime) -> InvoiceDelivery:
    """Queue `inv` for sending over `channel` (in the caller's transaction). Due at once on the
    real clock: a test clock's run writes it in its own past, the worker sends it now."""
    real = clock.wall_now()
    return await InvoiceDelivery.create(id=new_id("ivd"), merchant_id=inv.merchant_id, livemode=inv.livemode,
                                        invoice_id=inv.id, channel=channel, status="pending",
                                        next_attempt_at=real, created_at=now, updated_at=now)


async def claim_due(*, owner: str, limit: int = CLAIM_BATCH, merchant_id: str | None = None) -> list[str]:
    """Lease up to `limit` due deliveries to `owner` (SKIP LOCKED on PostgreSQL: any number of
    workers). `merchant_id` confines the claim to one merchant (tests)."""
    return await leases.claim_due(InvoiceDelivery, status_field="status", owner=owner, now=runtime().clock.now(),
                                  lease=LEASE, limit=limit, merchant_id=merchant_id)


async def _send(d: InvoiceDelivery, *, owner: str) -> str:
    """Send one claimed delivery and record the attempt, if the lease is still `owner`'s; its status."""
    principal = Principal(merchant_id=d.merchant_id, livemode=d.livemode, kind="scheduler")
    error, final, status = None, False, "sent"
    try:
        await invoices.send_invoice(principal=principal, invoice_id=d.invoice_id, data={"channel": d.channel})
    except InvalidState:                       # paid meanwhile: nothing to ask for any more
        status, final = "skipped", True
    except invoices.DeliveryFailed as exc:     # the mail server or the platform: retried
        error = exc.message
    except DomainError as exc:                 # no address for the channel any more: the merchant's move
        error, final = exc.message, True
    except Exception as exc:  # noqa: BLE001 - anything else: retried, then failed
        log.error("invoice delivery %s crashed", d.id, exc_info=exc)
        error = f"{type(exc).__name__}"
    now = runtime().clock.now()
    number = d.attempts + 1
    changes: dict = {"attempts": number, "lease_owner": None, "lease_until": None, "updated_at": now,
                     "last_error": (error or "")[:200] or None}
    if error is None:
        changes.update(status=status, sent_at=now if status == "sent" else None, next_attempt_at=None)
    elif final or number >= MAX_ATTEMPTS:
        changes.update(status="failed", next_attempt_at=None)
    else:
        changes.update(next_attempt_at=now + timedelta(seconds=RETRY_DELAYS[number - 1]))
    await InvoiceDelivery.filter(id=d.id, lease_owner=owner).update(**changes)
    if error is not None:
        log.warning("invoice delivery %s (%s) attempt %d: %s", d.id, d.channel, number, changes["last_error"])
    return changes.get("status", "pending")


async def run_once(*, owner: str, limit: int = CLAIM_BATCH, merchant_id: str | None = None) -> Counter[str]:
    """One worker step: claim what is due and send it (concurrently: the PDFs render off the
    loop); answers how many it claimed ("claimed") and how many ended in each status."""
    ids = await claim_due(owner=owner, limit=limit, merchant_id=merchant_id)
    stats: Counter[str] = Counter(claimed=len(ids))
    if ids:
        held = await InvoiceDelivery.filter(id__in=ids, lease_owner=owner)
        stats.update(await asyncio.gather(*(_send(d, owner=owner) for d in held)))
    return stats


async def pending_count(*, merchant_id: str | None = None) -> int:
    qs = InvoiceDelivery.filter(status="pending")
    return await (qs.filter(merchant_id=merchant_id) if merchant_id else qs).count()
