"""Installments (taksit): the BIN table, the merchant's plans, the options of a card, paying in
installments on /api and /v1 (REST and GraphQL), the ledger, refunds, routing and webhooks."""
from __future__ import annotations

import pytest

from models.team import Member
from models.events import Event
from models.installments import InstallmentPlanSet
from models.money import BalanceLine
from models.payments import LedgerEntry, Payment
from services.money import ledger
from services.payments import installments
from tests.helpers import bearer
from tests.intents_fixtures import confirm, create
from tests.payments_fixtures import call, no_exploration, pay  # noqa: F401

BONUS, WORLD, MAXIMUM, AXESS = "5549600000000004", "5400610000000001", "4183420000000001", "4355080000000005"
DEBIT, FOREIGN = "9792000000000003", "4242424242424242"
DEFAULT_COUNTS = [1, 2, 3, 6, 9, 12]

OPTIONS_QUERY = """query($bin: String!, $amount: MinorAmount!, $currency: String!) {
  installmentOptions(bin: $bin, amount: $amount, currency: $currency) {
    bank program cardType amount currency
    options { count installmentAmount firstInstallmentAmount totalAmount commission paidBy } } }"""
PLANS_QUERY = "{ installmentPlans { program paidBy options { count commissionBps } } }"
PLANS_REPLACE = """mutation($input: InstallmentPlansReplaceInput!) { installmentPlansReplace(input: $input) {
  plans { program paidBy options { count commissionBps } } userErrors { code message field } } }"""


async def options(client, key, bin_, amount=120000, currency="TRY", expect=200):
    r = await client.get("/v1/installments", params={"bin": bin_, "amount": str(amount), "currency": currency},
                         headers=bearer(key))
    body = await r.json()
    assert r.status == expect, body
    return body


async def gql(client, query, variables=None, key=None):
    r = await client.post("/graphql", json={"query": query, "variables": variables or {}}, headers=bearer(key))
    return await r.json()


def camel(d: dict) -> dict:
    return {"".join(w if i == 0 else w.title() for i, w in enumerate(k.split("_"))): v for k, v in d.items()}


# ---------------------------------------------------------------- arithmetic

@pytest.mark.parametrize("total,count", [(124500, 3), (103750, 3), (100, 1), (1001, 6), (999_999, 12), (7, 2)])
def test_installments_add_up_and_the_first_carries_the_remainder(total, count):
    first, each = installments.split(total, count)
    assert first + each * (count - 1) == total
    assert 0 <= first - each < count


def test_commission_is_rounded_half_up_once_and_the_customer_pays_it():
    plans = [{"program": "bonus", "paid_by": "customer", "options": [{"count": 2, "commission_bps": 250}]}]
    bonus = installments.issuer_of(BONUS)
    for amount, commission in ((1000, 25), (1020, 26), (1018, 25), (100002, 2500)):   # 25.5 -> 26, 25.45 -> 25
        o = installments.options_for(bonus, amount, "TRY", plans).of(2)
        assert o["commission"] == commission and o["total_amount"] == amount + commission
        assert o["first_installment_amount"] + o["installment_amount"] == o["total_amount"]


def test_merchant_paid_commission_leaves_the_total_at_the_amount():
    plans = [{"program": "bonus", "paid_by": "merchant", "options": [{"count": 3, "commission_bps": 375}]}]
    o = installments.options_for(installments.issuer_of(BONUS), 100000, "TRY", plans).of(3)
    assert o == {"count": 3, "installment_amount": 33333, "first_installment_amount": 33334, "total_amount": 100000,
                 "commission": 3750, "paid_by": "merchant"}


def test_a_count_whose_installment_is_under_one_lira_is_not_offered():
    plans = installments.default_plans()
    bonus = installments.issuer_of(BONUS)
    # 5.00 TL: 2 x 2.56, 3 x 1.72 are offered; 6 x 0.89 (5.35 / 6) and more are not.
    assert installments.options_for(bonus, 500, "TRY", plans).counts == [1, 2, 3]
    # 12 installments of exactly 1 TL: 1,130.00 kuruş total -> 94 each is under; 1,200 + 13% -> 113 each is fine.
    assert 12 in installments.options_for(bonus, 1200, "TRY", plans).counts
    assert 12 not in installments.options_for(bonus, 1000, "TRY", plans).counts


def test_bin_table_is_package_data_loaded_once_with_8_digit_prefixes_first():
    assert installments.bin_table() is installments.bin_table()
    assert installments.programs() == ("bonus", "world", "maximum", "axess", "cardfinans")   # QNB (Troy)
    assert installments.issuer_of("418342").as_dict() == {"bank": "İş Bankası", "program": "maximum",
                                                          "card_type": "credit"}
    assert installments.issuer_of("41834299").card_type == "debit"       # the 8-digit row wins
    assert installments.issuer_of("41834211").program == "maximum"
    assert installments.issuer_of(FOREIGN) is None


# ---------------------------------------------------------------- GET /v1/installments

@pytest.mark.parametrize("number,bank,program", [(BONUS, "Garanti BBVA", "bonus"), (WORLD, "Yapı Kredi", "world"),
                                                 (MAXIMUM, "İş Bankası", "maximum"), (AXESS, "Akbank", "axess")])
async def test_each_sandbox_program_card_gets_the_default_table(client, merchant, number, bank, program):
    body = await options(client, merchant.sk, number[:6])
    assert (body["bank"], body["program"], body["card_type"]) == (bank, program, "credit")
    assert [o["count"] for o in body["options"]] == DEFAULT_COUNTS
    assert body["options"][0] == {"count": 1, "installment_amount": 120000, "first_installment_amount": 120000,
                                  "total_amount": 120000, "commission": 0, "paid_by": None}
    three = body["options"][2]
    assert three == {"count": 3, "installment_amount": 41500, "first_installment_amount": 41500,
                     "total_amount": 124500, "commission": 4500, "paid_by": "customer"}
    for o in body["options"]:
        assert o["first_installment_amount"] + o["installment_amount"] * (o["count"] - 1) == o["total_amount"]


@pytest.mark.parametrize("bin_,card_type,bank", [(DEBIT[:6], "debit", "Ziraat Bankası"), (FOREIGN[:6], None, None),
                                                 ("41834299", "debit", "İş Bankası"), ("40000079", None, None)])
async def test_debit_and_foreign_cards_get_count_1_only(client, merchant, bin_, card_type, bank):
    body = await options(client, merchant.pk, bin_)      # a publishable key may ask
    assert (body["card_type"], body["bank"], body["program"]) == (card_type, bank, None)
    assert [o["count"] for o in body["options"]] == [1]


@pytest.mark.parametrize("currency,amount", [("KWD", 12345), ("IQD", 1_200_000), ("SAR", 120000), ("EGP", 120000)])
async def test_other_currencies_including_3_decimal_ones_get_count_1_only(client, merchant, currency, amount):
    body = await options(client, merchant.sk, BONUS[:8], amount=amount, currency=currency)
    assert body["program"] == "bonus" and body["currency"] == currency
    assert body["options"] == [{"count": 1, "installment_amount": amount, "first_installment_amount": amount,
                                "total_amount": amount, "commission": 0, "paid_by": None}]


@pytest.mark.parametrize("query,param", [({"bin": "55496", "amount": "100", "currency": "TRY"}, "bin"),
                                         ({"bin": "5549600", "amount": "100", "currency": "TRY"}, "bin"),
                                         ({"bin": "55496a", "amount": "100", "currency": "TRY"}, "bin"),
                                         ({"bin": BONUS, "amount": "100", "currency": "TRY"}, "bin"),
                                         ({"amount": "100", "currency": "TRY"}, "bin"),
                                         ({"bin": "554960", "amount": "1.5", "currency": "TRY"}, "amount"),
                                         ({"bin": "554960", "currency": "TRY"}, "amount"),
                                         ({"bin": "554960", "amount": "100", "currency": "XYZ"}, "currency"),
                                         ({"bin": "554960", "amount": "100", "currency": "TRY", "x": "1"}, "x")])
async def test_a_malformed_query_is_a_400_naming_the_parameter(client, merchant, query, param):
    r = await client.get("/v1/installments", params=query, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == param, body
    assert BONUS not in body["error"]["message"]


async def test_graphql_installment_options_agree_with_rest(client, merchant):
    for bin_, currency in ((BONUS[:6], "TRY"), (DEBIT[:6], "TRY"), (BONUS[:6], "KWD")):
        rest = await options(client, merchant.sk, bin_, amount=98765, currency=currency)
        out = await gql(client, OPTIONS_QUERY, {"bin": bin_, "amount": 98765, "currency": currency}, merchant.sk)
        got = out["data"]["installmentOptions"]
        assert got == {"bank": rest["bank"], "program": rest["program"], "cardType": rest["card_type"],
                       "amount": 98765, "currency": currency, "options": [camel(o) for o in rest["options"]]}
    out = await gql(client, OPTIONS_QUERY, {"bin": "12", "amount": 100, "currency": "TRY"}, merchant.sk)
    assert out["errors"][0]["extensions"]["param"] == "bin"


# ---------------------------------------------------------------- plans

async def test_default_plans_then_replace_changes_the_options(client, merchant, make_merchant):
    status, body = await call(client, "GET", "/api/installments/plans", merchant.sk)
    assert status == 200 and body["object"] == "installment_plans" and body["livemode"] is False
    assert [p["program"] for p in body["data"]] == ["bonus", "world", "maximum", "axess", "cardfinans"]
    assert body["data"][0] == {"program": "bonus", "paid_by": "customer",
                               "options": [{"count": 2, "commission_bps": 250}, {"count": 3, "commission_bps": 375},
                                           {"count": 6, "commission_bps": 700}, {"count": 9, "commission_bps": 1000},
                                           {"count": 12, "commission_bps": 1300}]}
    plans = [{"program": "world", "paid_by": "merchant",
              "options": [{"count": 4, "commission_bps": 500}, {"count": 2, "commission_bps": 0}]}]
    status, body = await call(client, "PUT", "/api/installments/plans", merchant.sk, {"plans": plans})
    assert status == 200 and body["data"] == [{"program": "world", "paid_by": "merchant",
                                               "options": [{"count": 2, "commission_bps": 0},
                                                           {"count": 4, "commission_bps": 500}]}]
    status, again = await call(client, "GET", "/api/installments/plans", merchant.sk)
    assert again["data"] == body["data"]
    world = await options(client, merchant.pk, WORLD[:6], amount=100000)
    assert world["options"][2] == {"count": 4, "installment_amount": 25000, "first_installment_amount": 25000,
                                   "total_amount": 100000, "commission": 5000, "paid_by": "merchant"}
    assert [o["count"] for o in (await options(client, merchant.pk, BONUS[:6]))["options"]] == [1]
    other = await make_merchant("Other")
    assert [o["count"] for o in (await options(client, other.pk, BONUS[:6]))["options"]] == DEFAULT_COUNTS
    # Live plans are their own.
    assert await InstallmentPlanSet.filter(merchant_id=merchant.id).count() == 1


@pytest.mark.parametrize("plans,param", [
    ([{"program": "bonus", "options": [{"count": 1, "commission_bps": 100}]}], "plans[0].options[0].count"),
    ([{"program": "bonus", "options": [{"count": 13, "commission_bps": 100}]}], "plans[0].options[0].count"),
    ([{"program": "bonus", "options": [{"count": "3", "commission_bps": 100}]}], "plans[0].options[0].count"),
    ([{"program": "bonus", "options": [{"count": 3, "commission_bps": 100}, {"count": 3, "commission_bps": 1}]}],
     "plans[0].options[1].count"),
    ([{"program": "bonus", "options": [{"count": 3, "commission_bps": -1}]}], "plans[0].options[0].commission_bps"),
    ([{"program": "bonus", "options": [{"count": 3, "commission_bps": 5001}]}], "plans[0].options[0].commission_bps"),
    ([{"program": "bonus", "options": [{"count": 3, "commission_bps": 1.5}]}], "plans[0].options[0].commission_bps"),
    ([{"program": "bonus", "options": [{"count": 3}]}], "plans[0].options[0].commission_bps"),
    ([{"program": "troy", "options": [{"count": 3, "commission_bps": 1}]}], "plans[0].program"),
    ([{"program": "bonus", "paid_by": "bank", "options": [{"count": 3, "commission_bps": 1}]}], "plans[0].paid_by"),
    ([{"program": "bonus", "options": []}], "plans[0].options"),
    ([{"program": "bonus", "options": [{"count": 3, "commission_bps": 1}]},
      {"program": "bonus", "options": [{"count": 2, "commission_bps": 1}]}], "plans[1].program"),
    ("bonus", "plans"),
])
async def test_bad_plans_are_a_400_naming_the_field_and_change_nothing(client, merchant, plans, param):
    status, body = await call(client, "PUT", "/api/installments/plans", merchant.sk, {"plans": plans})
    assert status == 400 and body["error"]["param"] == param, body
    assert await InstallmentPlanSet.filter(merchant_id=merchant.id).count() == 0
    if isinstance(plans, list) and all(type(o.get("count", 0)) is int and type(o.get("commission_bps", 0)) is int
                                       for p in plans for o in p["options"]):
        gql_plans = [{**camel(p), "options": [camel(o) for o in p["options"]]} for p in plans]
        out = await gql(client, PLANS_REPLACE, {"input": {"plans": gql_plans}}, merchant.sk)
        errors = out["data"]["installmentPlansReplace"]["userErrors"]
        assert errors and errors[0]["code"] == body["error"]["code"]            # the same code as REST
        assert errors[0]["field"] == param.replace("commission_bps", "commissionBps").replace("paid_by", "paidBy")


async def test_graphql_plans_read_and_replace_agree_with_rest(client, merchant):
    out = await gql(client, PLANS_QUERY, key=merchant.sk)
    _, rest = await call(client, "GET", "/api/installments/plans", merchant.sk)
    assert out["data"]["installmentPlans"] == [
        {"program": p["program"], "paidBy": p["paid_by"],
         "options": [{"count": o["count"], "commissionBps": o["commission_bps"]} for o in p["options"]]}
        for p in rest["data"]]
    out = await gql(client, PLANS_REPLACE, {"input": {"plans": [
        {"program": "axess", "paidBy": "merchant", "options": [{"count": 6, "commissionBps": 800}]}]}}, merchant.sk)
    assert out["data"]["installmentPlansReplace"] == {
        "plans": [{"program": "axess", "paidBy": "merchant", "options": [{"count": 6, "commissionBps": 800}]}],
        "userErrors": []}
    _, rest = await call(client, "GET", "/api/installments/plans", merchant.sk)
    assert rest["data"] == [{"program": "axess", "paid_by": "merchant",
                             "options": [{"count": 6, "commission_bps": 800}]}]


# ---------------------------------------------------------------- paying on /api

def _legs(entries):
    return sorted((e.kind, e.account, e.amount) for e in entries)


async def test_payment_in_3_installments_charges_the_total_and_books_the_commission_apart(client, merchant):
    status, body = await pay(client, merchant.sk, 120000, number=BONUS, installments=3)
    assert status == 200 and body["status"] == "succeeded", body
    assert body["installments"] == {"count": 3, "installment_amount": 41500, "first_installment_amount": 41500,
                                    "total_amount": 124500, "commission": 4500, "paid_by": "customer",
                                    "program": "bonus", "bank": "Garanti BBVA"}
    assert body["amount"] == 120000 and body["amount_captured"] == 124500
    p = await Payment.get(id=body["id"])
    fee = p.fee
    assert p.installment_count == 3
    legs = _legs(await LedgerEntry.filter(payment_id=p.id))
    assert legs == sorted([("capture", "provider_receivable", 120000), ("capture", "merchant_balance", -120000),
                           ("capture", "merchant_balance", fee), ("capture", "fee_revenue", -fee),
                           ("commission", "provider_receivable", 4500),
                           ("commission", "installment_commission", -4500)])
    bal = await ledger.merchant_balance(merchant_id=merchant.id, livemode=False)
    assert bal == {"TRY": 120000 - fee}
    # GET shows the same object; the webhook event carries it too.
    status, got = await call(client, "GET", f"/api/payments/{p.id}", merchant.sk)
    assert got["installments"] == body["installments"]
    ev = await Event.filter(object_id=p.id, type="payment.succeeded").first()
    assert ev.data["installments"] == body["installments"]


async def test_merchant_paid_commission_is_its_own_balance_line(client, merchant):
    await call(client, "PUT", "/api/installments/plans", merchant.sk, {"plans": [
        {"program": "maximum", "paid_by": "merchant", "options": [{"count": 6, "commission_bps": 700}]}]})
    status, body = await pay(client, merchant.sk, 100000, number=MAXIMUM, installments=6)
    assert status == 200 and body["installments"]["total_amount"] == 100000, body
    assert body["installments"]["commission"] == 7000 and body["installments"]["installment_amount"] == 16666
    assert body["installments"]["first_installment_amount"] == 16670
    fee = (await Payment.get(id=body["id"])).fee
    lines = {line.kind: line for line in await BalanceLine.filter(payment_id=body["id"])}
    assert (lines["capture"].gross, lines["capture"].fee, lines["capture"].net) == (100000, fee, 100000 - fee)
    assert (lines["commission"].gross, lines["commission"].net) == (-7000, -7000)
    assert await ledger.merchant_balance(merchant_id=merchant.id, livemode=False) == {"TRY": 100000 - fee - 7000}


@pytest.mark.parametrize("number,amount,currency,count,valid", [
    (BONUS, 120000, "TRY", 4, "1, 2, 3, 6, 9, 12"),
    (FOREIGN, 120000, "TRY", 3, "1"), (DEBIT, 120000, "TRY", 2, "1"),
    (BONUS, 12000, "KWD", 3, "1"), (BONUS, 500, "TRY", 6, "1, 2, 3")])
async def test_a_count_not_offered_is_a_400_listing_the_valid_counts(client, merchant, number, amount, currency,
                                                                    count, valid):
    status, body = await pay(client, merchant.sk, amount, currency=currency, number=number, installments=count)
    assert status == 400 and body["error"]["param"] == "installments", body
    assert body["error"]["code"] == "invalid_installments"
    assert body["error"]["detail"] == f"installments must be one of {valid}"
    assert number not in body["error"]["message"]
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


@pytest.mark.parametrize("value", [0, 13, "3", 2.5, True])
async def test_a_malformed_count_is_a_400(client, merchant, value):
    status, body = await pay(client, merchant.sk, 120000, number=BONUS, installments=value)
    assert status == 400 and body["error"]["param"] == "installments"


async def test_count_1_is_a_payment_in_one_go(client, merchant):
    status, body = await pay(client, merchant.sk, 120000, number=FOREIGN, installments=1)
    assert status == 200 and body["installments"] is None and body["amount_captured"] == 120000


async def test_installments_are_captured_at_once(client, merchant):
    status, body = await pay(client, merchant.sk, 120000, number=BONUS, installments=3, capture=False)
    assert status == 400 and body["error"]["param"] == "capture"


async def test_refund_is_full_total_or_refused(client, merchant):
    _, body = await pay(client, merchant.sk, 120000, number=BONUS, installments=3)
    pid = body["id"]
    status, out = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk, {"amount": 60000})
    assert status == 400 and out["error"]["code"] == "installment_partial_refund" and out["error"]["param"] == "amount"
    assert "refunded in full" in out["error"]["detail"] and "124500" in out["error"]["detail"]
    assert (await Payment.get(id=pid)).amount_refunded == 0
    status, out = await call(client, "POST", f"/api/payments/{pid}/refund", merchant.sk, {})
    assert status == 200 and out["amount"] == 124500 and out["amount_refunded"] == 124500
    fee = (await Payment.get(id=pid)).fee
    by_account: dict[str, int] = {}
    for e in await LedgerEntry.filter(payment_id=pid):
        by_account[e.account] = by_account.get(e.account, 0) + e.amount
    assert by_account == {"provider_receivable": 0, "installment_commission": 0, "merchant_balance": fee,
                          "fee_revenue": -fee}
    ev = await Event.filter(object_id=pid, type="payment.refunded").first()
    assert ev.data["installments"]["count"] == 3


async def test_idempotency_key_replays_and_guards_the_count(client, merchant):
    headers = {"Idempotency-Key": "taksit-1"}
    body = {"amount": 120000, "currency": "TRY", "installments": 3,
            "payment_method": {"card": {"number": BONUS, "exp_month": 12, "exp_year": 2030}}}
    s1, first = await call(client, "POST", "/api/payments/create", merchant.sk, body, headers)
    s2, again = await call(client, "POST", "/api/payments/create", merchant.sk, body, headers)
    assert s1 == s2 == 200 and again["id"] == first["id"] and again["installments"] == first["installments"]
    s3, other = await call(client, "POST", "/api/payments/create", merchant.sk, {**body, "installments": 6}, headers)
    assert s3 == 409 and other["error"]["code"] == "idempotency_conflict"
    assert await Payment.filter(merchant_id=merchant.id).count() == 1


async def test_a_routing_rule_can_match_installments(client, merchant):
    status, rule = await call(client, "POST", "/api/routing/rules", merchant.sk, {
        "name": "taksit to atlas", "strategy": "fixed", "provider": "atlas", "priority": 1,
        "conditions": [{"field": "installments", "operator": "gt", "value": "1"}]})
    assert status == 200, rule
    _, plain = await pay(client, merchant.sk, 120000, number=BONUS)
    _, split = await pay(client, merchant.sk, 120000, number=BONUS, installments=6)
    assert split["provider"] == "atlas" and split["routing_decision"].get("rule_id") == rule["id"], split
    assert plain["routing_decision"].get("rule_id") != rule["id"]
    status, bad = await call(client, "POST", "/api/routing/rules", merchant.sk, {
        "name": "x", "conditions": [{"field": "installments", "operator": "gt", "value": "many"}]})
    assert status == 400 and bad["error"]["param"] == "conditions[0].value"


PAYMENT_CREATE = """mutation($input: PaymentCreateInput!) { paymentCreate(input: $input) {
  payment { id amountCaptured installments { count installmentAmount firstInstallmentAmount totalAmount commission
            paidBy program bank } }
  userErrors { code field message } } }"""


async def test_graphql_payment_create_with_installments(client, merchant):
    card = {"card": {"number": AXESS, "expMonth": 12, "expYear": 2030}}
    out = await gql(client, PAYMENT_CREATE, {"input": {"amount": 120000, "currency": "TRY", "paymentMethod": card,
                                                       "installments": 9}}, merchant.sk)
    p = out["data"]["paymentCreate"]["payment"]
    assert p["installments"] == {"count": 9, "installmentAmount": 14666, "firstInstallmentAmount": 14672,
                                 "totalAmount": 132000, "commission": 12000, "paidBy": "customer",
                                 "program": "axess", "bank": "Akbank"}
    assert p["amountCaptured"] == 132000
    out = await gql(client, PAYMENT_CREATE, {"input": {"amount": 120000, "currency": "TRY", "paymentMethod": card,
                                                       "installments": 5}}, merchant.sk)
    err = out["data"]["paymentCreate"]["userErrors"][0]
    assert err["field"] == "installments" and err["code"] == "invalid_installments"


# ---------------------------------------------------------------- paying on /v1

async def test_intent_asks_for_installments_at_create_and_pays_them_at_confirm(client, merchant):
    intent = await create(client, merchant.sk, amount=120000, installments=3)
    assert intent["installments"] == {"count": 3, "installment_amount": None, "first_installment_amount": None,
                                      "total_amount": None, "commission": None, "paid_by": None, "program": None,
                                      "bank": None}
    done = await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_tr_world")
    assert done["status"] == "succeeded" and done["amount_received"] == 124500
    assert done["installments"] == {"count": 3, "installment_amount": 41500, "first_installment_amount": 41500,
                                    "total_amount": 124500, "commission": 4500, "paid_by": "customer",
                                    "program": "world", "bank": "Yapı Kredi"}
    legs = _legs(await LedgerEntry.filter(source_id=intent["id"], kind="commission"))
    assert legs == [("commission", "installment_commission", -4500), ("commission", "provider_receivable", 4500)]
    ev = await Event.filter(object_id=intent["id"], type="payment.succeeded").first()
    assert ev.data["installments"] == done["installments"]


async def test_intent_count_on_confirm_with_a_tokenized_card_and_the_publishable_key(client, merchant):
    intent = await create(client, merchant.sk, amount=50000)
    r = await client.post("/v1/payment_methods", headers=bearer(merchant.pk),
                          json={"type": "card", "card": {"number": MAXIMUM, "exp_month": 12, "exp_year": 2030}})
    pm = await r.json()
    bad = await confirm(client, merchant.pk, intent["id"], expect=400, payment_method_id=pm["id"],
                        client_secret=intent["client_secret"], installments=4)
    assert bad["error"]["param"] == "installments" and bad["error"]["message"] == "installments must be one of 1, 2, 3, 6, 9, 12"
    done = await confirm(client, merchant.pk, intent["id"], payment_method_id=pm["id"],
                         client_secret=intent["client_secret"], installments=12)
    assert done["installments"]["count"] == 12 and done["installments"]["total_amount"] == 56500


async def test_intent_installments_refused_for_other_currencies_methods_and_cards(client, merchant):
    bad = await create(client, merchant.sk, expect=400, amount=12000, currency="KWD", installments=3)
    assert bad["error"]["param"] == "installments" and bad["error"]["message"] == "installments must be one of 1"
    bad = await create(client, merchant.sk, expect=400, payment_method="cod", installments=3,
                       cod_address={"line1": "x", "city": "Istanbul", "country": "TR"})
    assert bad["error"]["param"] == "installments"
    intent = await create(client, merchant.sk, amount=120000, installments=2)
    bad = await confirm(client, merchant.sk, intent["id"], expect=400, payment_method_id="pm_card_tr_debit")
    assert bad["error"]["param"] == "installments" and bad["error"]["message"] == "installments must be one of 1"
    done = await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_tr_debit", installments=1,
                         return_url="https://shop.example/back")       # a Troy card: always 3-D Secure
    assert done["status"] == "requires_action" and done["installments"] is None


INTENT_CONFIRM = """mutation($input: PaymentIntentConfirmInput!) { paymentIntentConfirm(input: $input) {
  paymentIntent { status amountReceived installments { count totalAmount program } } userErrors { field code } } }"""


async def test_graphql_intent_confirm_with_installments(client, merchant):
    intent = await create(client, merchant.sk, amount=120000)
    out = await gql(client, INTENT_CONFIRM, {"input": {"id": intent["id"], "paymentMethodId": "pm_card_tr_bonus",
                                                       "installments": 2}}, merchant.sk)
    assert out["data"]["paymentIntentConfirm"] == {
        "paymentIntent": {"status": "succeeded", "amountReceived": 123000,
                          "installments": {"count": 2, "totalAmount": 123000, "program": "bonus"}},
        "userErrors": []}


ANALYTICS = """query { installmentAnalytics(period: "7d", currency: "TRY") { currency period
  data { count payments volume charged } } }"""


async def test_analytics_group_payments_and_intents_by_count(client, merchant):
    await pay(client, merchant.sk, 120000, number=BONUS, installments=3)
    await pay(client, merchant.sk, 120000, number=WORLD, installments=3)
    await pay(client, merchant.sk, 50000, number=FOREIGN)
    await pay(client, merchant.sk, 50000, number="4000000000000002")        # declined: not counted
    await pay(client, merchant.sk, 5000, currency="SAR", number=FOREIGN)    # another currency
    intent = await create(client, merchant.sk, amount=100000, installments=6)
    await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_tr_axess")
    status, body = await call(client, "GET", "/api/analytics/installments?period=7d&currency=TRY", merchant.sk)
    assert status == 200, body
    assert body["data"] == [{"count": 1, "payments": 1, "volume": 50000, "charged": 50000},
                            {"count": 3, "payments": 2, "volume": 240000, "charged": 249000},
                            {"count": 6, "payments": 1, "volume": 100000, "charged": 107000}]
    out = await gql(client, ANALYTICS, key=merchant.sk)
    assert out["data"]["installmentAnalytics"] == {"currency": "TRY", "period": "7d", "data": body["data"]}
    status, bad = await call(client, "GET", "/api/analytics/installments?period=8d", merchant.sk)
    assert status == 400 and bad["error"]["param"] == "period"


async def test_concurrent_plan_replacements_never_fail_and_one_set_wins(client, merchant):
    import asyncio
    bodies = [{"plans": [{"program": "bonus", "paid_by": "merchant", "options": [{"count": n, "commission_bps": n}]}]}
              for n in range(2, 9)]
    answers = await asyncio.gather(*(call(client, "PUT", "/api/installments/plans", merchant.sk, b) for b in bodies))
    assert [s for s, _ in answers] == [200] * len(bodies)
    assert await InstallmentPlanSet.filter(merchant_id=merchant.id).count() == 1
    _, now = await call(client, "GET", "/api/installments/plans", merchant.sk)
    assert now["data"] in [b["plans"] for b in bodies]


async def test_live_and_test_plans_are_apart(client, merchant):
    from services.identity import auth
    session = await auth.open_session(await Member.get(merchant_id=merchant.id))
    status, live = await call(client, "POST", "/api/api-keys", session.token, {"name": "live", "mode": "live"})
    assert status == 200, live
    await call(client, "PUT", "/api/installments/plans", merchant.sk, {"plans": []})
    _, test_plans = await call(client, "GET", "/api/installments/plans", merchant.sk)
    _, live_plans = await call(client, "GET", "/api/installments/plans", live["key"])
    assert test_plans == {"object": "installment_plans", "livemode": False, "data": []}
    assert live_plans["livemode"] is True and len(live_plans["data"]) == 5
    assert [o["count"] for o in (await options(client, merchant.sk, BONUS[:6]))["options"]] == [1]
