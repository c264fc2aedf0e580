"""ETA as the e-invoicing core sees it: the authority (invoices leaving draft, refunds, documents
by id), the sender of its e-invoices, and the e-receipt jobs -- registered when the app starts
(app/jobs.py)."""
from __future__ import annotations

from services.einvoicing import core
from services.einvoicing.eta import documents, receipts


async def _refund(**kw) -> dict | None:
    """A refund: a return receipt's request when the payment has an e-receipt, and a credit note
    when the payment paid a valid e-invoice (the note entry the refund's answer shows)."""
    await receipts.queue_return(merchant_id=kw["merchant_id"], livemode=kw["livemode"], payment_id=kw["payment_id"],
                                currency=kw["currency"], amount=kw["amount"])
    return await documents.credit_for_refund(**kw)


async def _finalise(inv, require_cleared: bool) -> None:
    await documents.finalise(inv, require_cleared)


async def _cancel(principal, inv, data):
    return await documents.cancel(principal=principal, invoice_id=inv.id, data=data)


AUTHORITY = core.Authority(documents.AUTHORITY, finalise=_finalise, refund=_refund, document=documents.document_file,
                           prefixes=(documents.PREFIX + "_",), cancel=_cancel)


def register_jobs() -> None:
    core.register(AUTHORITY)
    core.register_sender(documents.AUTHORITY, documents.SENDER)
    receipts.register_jobs()         # eta.receipt_build, eta.receipt_submit
