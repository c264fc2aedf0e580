"""The scheduler's job kinds, registered by each domain when the app starts (the scheduler
imports no domain). The order is the order ties at one instant run in."""
from __future__ import annotations

from services.billing import subscriptions
from services.einvoicing import core as einvoicing_core
from services.einvoicing.gib import documents as gib_documents, payments as gib_payments
from services.einvoicing.eta import authority as eta_authority
from services.einvoicing.zatca import documents as zatca_documents
from services.money import balance, disputes
from services.money.marketplace import payouts as marketplace_payouts, sellers as marketplace_sellers
from services.money.marketplace import splits as marketplace_splits
from services.payments import bills_rtp, intent_expiry, local_methods


def register_job_kinds() -> None:
    balance.register_jobs()          # settlement.settle, settlement.payout
    disputes.register_jobs()         # dispute.open, dispute.decide
    subscriptions.register_jobs()    # subscription.renewal, subscription.dunning_retry
    intent_expiry.register_jobs()    # intent.expire
    local_methods.install()          # fawry.expire, and the local methods' intent flows
    bills_rtp.install()              # SADAD bills and CliQ/Aani requests to pay (local methods' rails)
    zatca_documents.register_jobs()  # zatca.submit, and ZATCA as an e-invoicing authority
    einvoicing_core.register_jobs()  # einvoicing.submit (the other authorities' documents)
    gib_documents.register_jobs()    # gib.report, and GİB as an e-invoicing authority (einvoicing.submit sends)
    gib_payments.register_jobs()     # gib.payment_invoice: the invoices that payments asked for
    eta_authority.register_jobs()    # ETA (Egypt): the authority, its sender, eta.receipt_build and _submit
    marketplace_splits.register_jobs()   # marketplace.split_release: manual splits' auto-release
    marketplace_payouts.register_jobs()  # marketplace.payouts: each seller's payout schedule, day by day
    marketplace_sellers.register_jobs()  # marketplace.past_due: a seller disabled by its past-due details
