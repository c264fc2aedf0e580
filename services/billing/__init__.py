"""Billing: subscriptions that renew, invoices with tax and gapless numbers, their PDFs and delivery."""
