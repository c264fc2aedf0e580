"""The keyed payment create writes its idempotency outcome in the payment's own statement
(services.idempotency.outcome_row): the key's row holds the payment's id, or the decline it
answered, exactly as a separate write would have stored it; replays answer the same; and an
operation whose recorded outcome is not the one it ends with still gets the right one stored."""
from __future__ import annotations

import os

import pytest

from models.idempotency import IdempotencyKey
from models.payments import Payment
from services import idempotency
from services.errors import DomainError, PaymentDeclined
from services.principal import Principal
from tests.payments_fixtures import DECLINED, call, card, count_statements, no_exploration  # noqa: F401


def _row_id(merchant, key: str) -> str:
    return idempotency._row_id(Principal(merchant.id, False, "secret"), "payments.create", key)


async def test_a_keyed_create_stores_its_outcome_in_its_own_write_and_replays(client, merchant):
    key = f"wp-{os.urandom(4).hex()}"
    body = {"amount": 2500, "currency": "KWD", "customer": {"email": "wp@example.com"}, "payment_method": card()}
    with count_statements() as statements:
        s1, b1 = await call(client, "POST", "/api/payments/create", merchant.sk, body, {"Idempotency-Key": key})
    assert s1 == 200 and b1["status"] == "succeeded" and b1["amount"] == 2500
    assert not [s for s in statements if s.upper().startswith("UPDATE") and "idempotency_keys" in s]
    row = await IdempotencyKey.get(id=_row_id(merchant, key))
    assert row.outcome == {"result": b1["id"]} and row.operation == "payments.create" and row.key == key
    s2, b2 = await call(client, "POST", "/api/payments/create", merchant.sk, body, {"Idempotency-Key": key})
    assert s2 == 200 and b2 == b1
    s3, b3 = await call(client, "POST", "/api/payments/create", merchant.sk, {**body, "amount": 2501},
                        {"Idempotency-Key": key})
    assert s3 == 409 and b3["error"]["code"] == "idempotency_conflict"
    assert await Payment.filter(merchant_id=merchant.id).count() == 1


async def test_a_keyed_decline_stores_the_decline_in_its_own_write_and_replays_it(client, merchant):
    key = f"wp-{os.urandom(4).hex()}"
    body = {"amount": 1500, "currency": "TRY", "payment_method": card(DECLINED)}
    s1, b1 = await call(client, "POST", "/api/payments/create", merchant.sk, body, {"Idempotency-Key": key})
    assert s1 == 402 and b1["error"]["code"] == "payment_declined"
    outcome = (await IdempotencyKey.get(id=_row_id(merchant, key))).outcome
    assert outcome["error"]["code"] == "payment_declined" and outcome["error"]["status"] == 402
    assert outcome["error"]["extra"]["decline_code"] == b1["error"]["decline_code"]
    s2, b2 = await call(client, "POST", "/api/payments/create", merchant.sk, body, {"Idempotency-Key": key})
    assert s2 == 402 and _sans_request_id(b2) == _sans_request_id(b1)
    assert await Payment.filter(merchant_id=merchant.id, status="failed").count() == 1


def _sans_request_id(body: dict) -> dict:
    return {**body, "error": {k: v for k, v in body["error"].items() if k != "request_id"}}


@pytest.fixture
async def idem_principal(client, clock):
    from models.core import Merchant
    await Merchant.get_or_create(id="mer_idem_wp", defaults={"email": "idem-wp@example.com", "name": "Idem",
                                                             "created_at": clock.now()})
    return Principal(merchant_id="mer_idem_wp", livemode=False, kind="secret", key_id="key_wp")


async def _run(principal, key, execute):
    async def decode(stored):
        return {"replayed": stored}
    return await idempotency.run(principal=principal, operation="test.wp", key=key, params={"a": 1},
                                 execute=execute, encode=lambda r: r["id"], decode=decode)


async def test_the_outcome_the_operation_ends_with_is_stored_even_when_it_recorded_another(client, idem_principal):
    from models import _lookup as lookup
    key = f"wp-{os.urandom(4).hex()}"

    async def records_x_returns_y():
        await lookup.insert_all([idempotency.outcome_row("obj_x")])
        return {"id": "obj_y"}
    assert await _run(idem_principal, key, records_x_returns_y) == {"id": "obj_y"}
    assert await _run(idem_principal, key, records_x_returns_y) == {"replayed": "obj_y"}

    key2 = f"wp-{os.urandom(4).hex()}"

    async def records_ok_then_declines():
        await lookup.insert_all([idempotency.outcome_row("obj_z")])
        raise PaymentDeclined("Card declined", decline_code="do_not_honor")
    for _ in range(2):
        with pytest.raises(DomainError) as e:
            await _run(idem_principal, key2, records_ok_then_declines)
        assert e.value.code == "payment_declined" and e.value.decline_code == "do_not_honor"
    assert idempotency.outcome_row("outside a run") is None
