"""Payments: cards, customers, routing, risk, providers, /api payments, /v1 intents, links, checkout, receipts."""
