"""Installments, the last gaps: refunds of /v1 intents paid in installments (full only; the buyer
gets total_amount back, the commission is reversed) and the receipts of installment payments."""
from __future__ import annotations

from email import message_from_bytes, policy

import pytest

from models.intents import PaymentIntent
from models.payments import LedgerEntry
from models.receipts import Receipt
from services.money import ledger
from services.payments import pricing, receipts
from tests.billing_fixtures import customer
from tests.checkout_fixtures import open_page, path_of
from tests.intents_fixtures import confirm, create
from tests.payments_fixtures import call, card, no_exploration, pay  # noqa: F401


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


# ---------------------------------------------------------------- receipts

BONUS = "5549600000000004"
# 1,245.00 TRY in 3 at the default 375 bps, the customer paying: 1,291.69 = 430.57 + 2 x 430.56.
LINES = {"tr": "3 taksit x 430,56 TL (ilk taksit 430,57 TL)",
         "en": "3 installments x 430.56 TRY (first installment 430.57 TRY)",
         "ar": "3 أقساط × 430.56 ل.ت (القسط الأول 430.57 ل.ت)"}


async def _mail(smtp_sink, merchant_id: str) -> str:
    stats = await receipts.run_once(owner="test-worker", merchant_id=merchant_id)
    assert (stats.claimed, stats.sent) == (1, 1)
    rcpt, raw = smtp_sink.messages[-1]
    return message_from_bytes(raw, policy=policy.default).get_content()


@pytest.mark.parametrize("locale", ["tr", "en", "ar"])
async def test_intent_receipt_message_and_page_say_the_installments_and_the_total(client, merchant, smtp_sink,
                                                                                 locale):
    cid = await customer(client, merchant.sk, email="ayse@example.com", saved_card=None)
    intent = await create(client, merchant.sk, amount=124500, installments=3, customer_id=cid, locale=locale)
    done = await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_tr_bonus")
    assert done["amount_received"] == 129169 and done["installments"]["installment_amount"] == 43056
    text = await _mail(smtp_sink, merchant.id)
    charged = pricing.format_localized(129169, "TRY", locale)
    assert f"{charged} ({LINES[locale]})" in text, text
    # The HTML receipt: the amount charged (total_amount), as a payment's, and the installments.
    status, html, _ = await open_page(client, done["receipt_url"])
    assert status == 200 and charged in html and LINES[locale] in html, html
    assert pricing.format_localized(124500, "TRY", locale) not in html
    # The text/plain receipt (an API client's Accept) says them too, on a line of its own.
    r = await client.get(path_of(done["receipt_url"]), headers={"Accept": "text/plain"})
    plain = await r.text()
    assert r.status == 200 and r.content_type == "text/plain", plain
    assert charged in plain and any(line.endswith(LINES[locale]) for line in plain.splitlines()), plain


async def test_payment_receipt_message_says_the_installments(client, merchant, smtp_sink):
    status, p = await call(client, "POST", "/api/payments/create", merchant.sk,
                           {"amount": 124500, "currency": "TRY", "installments": 3,
                            "payment_method": card(BONUS),
                            "customer": {"email": "ayse@example.com", "name": "Ayşe"}})
    assert status == 200 and p["amount_captured"] == 129169, p
    locale = (await Receipt.get(payment_id=p["id"])).locale
    text = await _mail(smtp_sink, merchant.id)
    assert f"{pricing.format_localized(129169, 'TRY', locale)} ({LINES[locale]})" in text, text


async def test_a_receipt_in_one_go_names_no_installments(client, merchant, smtp_sink):
    cid = await customer(client, merchant.sk, email="ayse@example.com", saved_card=None)
    intent = await create(client, merchant.sk, amount=124500, installments=1, customer_id=cid, locale="en")
    await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_tr_bonus")
    text = await _mail(smtp_sink, merchant.id)
    assert "payment of 1,245.00" in text and "installment" not in text, text
