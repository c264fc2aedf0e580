"""Helpers for the payments tests: cards, requests, a SQL statement counter."""
from __future__ import annotations

import logging
from contextlib import contextmanager

import pytest

from services.payments import routing
from tests.helpers import bearer

APPROVED = "4242424242424242"
DECLINED = "4000000000000002"
INSUFFICIENT = "4000000000009995"
PROCESSING_ERROR = "4000000000000119"
THREE_DS = "4000002500003155"
CURRENCIES = ("TRY", "SAR", "AED", "KWD", "QAR", "EGP", "IQD")


def card(number: str = APPROVED, exp_month: int = 12, exp_year: int = 2030, cvc: str = "123", **extra) -> dict:
    return {"type": "card", "card": {"number": number, "exp_month": exp_month, "exp_year": exp_year, "cvc": cvc},
            **extra}


@pytest.fixture(autouse=True)
def no_exploration(monkeypatch):
    """Exploration is random by design; tests that are not about it route deterministically,
    starting from no observations."""
    monkeypatch.setattr(routing.SETTINGS, "exploration_rate", 0.0)
    routing.STATS.reset()


async def call(client, method: str, path: str, key: str, body: dict | None = None, headers: dict | None = None):
    resp = await client.request(method, path, json=body, headers={**bearer(key), **(headers or {})})
    return resp.status, await resp.json()


async def pay(client, key: str, amount: int = 10000, currency: str = "TRY", number: str = APPROVED, **body):
    return await call(client, "POST", "/api/payments/create", key,
                      {"amount": amount, "currency": currency, "payment_method": card(number), **body})


class StatementCounter(logging.Handler):
    VERBS = ("SELECT", "INSERT", "UPDATE", "DELETE")

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.statements: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        msg = str(record.msg if not record.args else record.args[0]).lstrip()
        if msg.upper().startswith(self.VERBS):
            self.statements.append(msg)


@contextmanager
def count_statements():
    logger = logging.getLogger("tortoise.db_client")
    handler, level = StatementCounter(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield handler.statements
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
