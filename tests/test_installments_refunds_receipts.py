"""Installments, the last gaps: refunds of /v1 intents paid in installments (full only; the buyer
gets total_amount back, the commission is reversed) and the receipts of installment payments."""
from __future__ import annotations

import pytest

from models.intents import PaymentIntent
from models.payments import LedgerEntry
from services.money import ledger
from tests.intents_fixtures import confirm, create
from tests.payments_fixtures import call, no_exploration, pay  # noqa: F401


async def _by_account(source_id: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in await LedgerEntry.filter(source_id=source_id):
        out[e.account] = out.get(e.account, 0) + e.amount
    return out


@pytest.mark.parametrize("paid_by,total,commission", [("customer", 124500, 4500), ("merchant", 120000, 4500)])
async def test_intent_in_installments_refunds_in_full_only(client, merchant, paid_by, total, commission):
    await call(client, "PUT", "/api/installments/plans", merchant.sk, {"plans": [
        {"program": "bonus", "paid_by": paid_by, "options": [{"count": 3, "commission_bps": 375}]}]})
    before = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    intent = await create(client, merchant.sk, amount=120000, installments=3)
    done = await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_tr_bonus")
    assert done["status"] == "succeeded" and done["amount_received"] == total, done
    assert done["installments"]["commission"] == commission and done["installments"]["paid_by"] == paid_by
    fee = (await PaymentIntent.get(id=intent["id"])).fee_amount

    status, out = await call(client, "POST", f"/v1/payments/{intent['id']}/refund", merchant.sk, {"amount": 60000})
    assert status == 400, out
    assert out["error"]["code"] == "installment_partial_refund" and out["error"]["param"] == "amount"
    assert "refunded in full" in out["error"]["message"] and str(total) in out["error"]["message"]
    row = await PaymentIntent.get(id=intent["id"])
    assert (row.status, row.amount_refunded) == ("succeeded", 0)
    # The full total named as the amount is a full refund too; here the amount is left out.
    status, out = await call(client, "POST", f"/v1/payments/{intent['id']}/refund", merchant.sk, {})
    assert status == 200 and out["status"] == "refunded" and out["amount_refunded"] == total, out
    assert out["refund"]["amount"] == total and out["refund"]["status"] == "succeeded"
    status, got = await call(client, "GET", f"/v1/payments/{intent['id']}", merchant.sk)
    assert got["status"] == "refunded" and got["amount_refunded"] == total == got["amount_received"]
    # The buyer has total_amount back, the bank's commission is reversed; only Qafila's fee stays spent.
    accounts = await _by_account(intent["id"])
    assert accounts.get("provider_receivable", 0) == 0 and accounts.get("installment_commission", 0) == 0, accounts
    after = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    assert after.get("TRY", 0) == before.get("TRY", 0) - fee, (before, after, fee)
    status, again = await call(client, "POST", f"/v1/payments/{intent['id']}/refund", merchant.sk, {})
    assert status in (400, 409) and (await PaymentIntent.get(id=intent["id"])).amount_refunded == total


async def test_intent_in_installments_refund_naming_the_total_is_full(client, merchant):
    intent = await create(client, merchant.sk, amount=120000, installments=3)
    await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_tr_bonus")
    status, out = await call(client, "POST", f"/v1/payments/{intent['id']}/refund", merchant.sk, {"amount": 124500})
    assert status == 200 and out["amount_refunded"] == 124500, out
    assert (await PaymentIntent.get(id=intent["id"])).status == "refunded"
