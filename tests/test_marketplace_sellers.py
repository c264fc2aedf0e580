"""Sub-merchants (issue 47): the nine registry IBANs pass and broken ones are 400 naming
`payout.iban` with the reason; the per-type identity fields hold; requirements, status and the
72-hour hold after an IBAN change; the marketplace settings."""
from __future__ import annotations

from datetime import timedelta

import pytest
from schwifty import IBAN

from models.events import Event
from models.marketplace import SubMerchant
from tests.marketplace_fixtures import IBANS, make_seller, seller_body
from tests.payments_fixtures import call


@pytest.mark.parametrize("country", sorted(IBANS))
async def test_each_registry_iban_passes_stored_spaceless_in_the_countrys_currency(client, merchant, country):
    spaced = " ".join(IBANS[country][i:i + 4] for i in range(0, len(IBANS[country]), 4)).lower()
    body = seller_body(country, payout=False, payout_schedule={"interval": "weekly", "weekly_anchor": "sunday"})
    body["payout"] = {"iban": spaced, "holder_name": "NAKHEEL  trading co"}
    status, s = await call(client, "POST", "/api/sub-merchants", merchant.sk, body)
    assert status == 201, s
    assert s["id"].startswith("smr_") and s["object"] == "sub_merchant"
    assert s["payout"]["iban"] == IBANS[country] and s["payout"]["purpose"] == "SUPP"
    assert s["currency"] == {"SA": "SAR", "AE": "AED", "KW": "KWD", "BH": "BHD", "QA": "QAR", "OM": "OMR",
                             "JO": "JOD", "EG": "EGP", "TR": "TRY"}[country]
    assert (s["status"], s["payouts_enabled"], s["requirements"]["currently_due"]) == ("active", True, [])
    assert s["payout_schedule"] == {"interval": "weekly", "weekly_anchor": "sunday", "monthly_anchor": 1,
                                    "minimum": 0, "reserve": 0}
    got = await call(client, "GET", f"/api/sub-merchants/{s['id']}", merchant.sk)
    assert got == (200, s)


@pytest.mark.parametrize("iban, reason", [
    ("SA0380000000608010167518", "check digits"),          # one digit changed: mod 97 fails
    ("SA038000000060801016751", "length"),                 # one short
    ("AE070331234567890123456", "country"),                # valid, but of another country
])
async def test_a_broken_iban_is_a_400_naming_payout_iban_with_its_reason_and_nothing_is_written(
        client, merchant, iban, reason):
    body = seller_body("SA", payout=False)
    body["payout"] = {"iban": iban, "holder_name": body["legal_name"]}
    status, err = await call(client, "POST", "/api/sub-merchants", merchant.sk, body)
    assert status == 400, err
    assert (err["error"]["code"], err["error"]["param"]) == ("invalid_iban", "payout.iban")
    assert reason in err["error"]["detail"]
    assert await SubMerchant.filter(merchant_id=merchant.id).count() == 0


async def test_the_holder_name_is_the_legal_names_words(client, merchant):
    body = seller_body("SA", payout=False)
    body["payout"] = {"iban": IBANS["SA"], "holder_name": "Nakheel Trading"}
    status, err = await call(client, "POST", "/api/sub-merchants", merchant.sk, body)
    assert status == 400 and (err["error"]["code"], err["error"]["param"]) == ("holder_name_mismatch",
                                                                               "payout.holder_name")
    body["payout"] = {"iban": IBANS["SA"]}
    status, err = await call(client, "POST", "/api/sub-merchants", merchant.sk, body)
    assert status == 400 and err["error"]["param"] == "payout.holder_name"


@pytest.mark.parametrize("country, kind, change, param", [
    ("SA", "company", {"tax_id": None}, "tax_id"),
    ("TR", "company", {"tax_id": {"type": "tr_vkn", "value": "1234567890"}}, "tax_id.tax_office"),
    ("TR", "company", {"tax_id": {"type": "tr_tckn", "value": "10000000146"}}, "tax_id.type"),
    ("TR", "individual", {"tax_id": None}, "tax_id"),
    ("EG", "sole_proprietor", {"tax_id": {"type": "sa_vat", "value": "300000000000003"}}, "tax_id.type"),
    ("AE", "company", {"registration_number": None}, "registration_number"),
    ("AE", "individual", {"tax_id": {"type": "sa_vat", "value": "300000000000003"}}, "tax_id"),
    ("KW", "company", {"default_fee": {"percent": "100.5"}}, "default_fee.percent"),
    ("KW", "company", {"auto_release_days": 91}, "auto_release_days"),
    ("KW", "company", {"country": "US"}, "country"),
    ("KW", "company", {"payout_schedule": {"interval": "hourly"}}, "payout_schedule.interval"),
    ("KW", "company", {"payout": {"iban": IBANS["KW"], "holder_name": "Nakheel Trading Co.", "purpose": "sup"}},
     "payout.purpose"),
])
async def test_identity_fields_per_type_and_country(client, merchant, country, kind, change, param):
    body = {**seller_body(country, kind=kind), **change}
    body = {k: v for k, v in body.items() if v is not None}
    status, err = await call(client, "POST", "/api/sub-merchants", merchant.sk, body)
    assert status == 400 and err["error"]["param"] == param, err


async def test_a_sole_proprietor_of_turkey_may_give_a_tckn_and_an_individual_elsewhere_nothing(client, merchant):
    await make_seller(client, merchant.sk, "TR", kind="sole_proprietor",
                      tax_id={"type": "tr_tckn", "value": "10000000146"})
    s = await make_seller(client, merchant.sk, "AE", kind="individual", name="Layla Haddad")
    assert s["tax_id"] is None and s["registration_number"] is None


async def test_requirements_restricted_then_past_due_disables_and_an_iban_change_holds_payouts(
        client, merchant, clock):
    s = await make_seller(client, merchant.sk, "KW", payout=False)
    assert s["status"] == "restricted" and not s["payouts_enabled"]
    assert s["requirements"] == {"currently_due": ["payout.iban", "payout.holder_name"], "past_due": [],
                                 "disabled_reason": None}
    clock.advance(days=30)
    s = (await call(client, "GET", f"/api/sub-merchants/{s['id']}", merchant.sk))[1]
    assert s["status"] == "disabled" and s["requirements"]["disabled_reason"] == "requirements.past_due"
    assert s["requirements"]["past_due"] == ["payout.iban", "payout.holder_name"]
    status, s = await call(client, "PUT", f"/api/sub-merchants/{s['id']}", merchant.sk,
                           {"payout": {"iban": IBANS["KW"], "holder_name": "Nakheel Trading Co."}})
    assert status == 200 and s["status"] == "active" and s["payouts_enabled"], s
    # a new IBAN holds payouts for 72 h
    other = str(IBAN.generate("KW", bank_code="CBKU", account_code="0000000000001234560102").compact)
    status, s = await call(client, "PUT", f"/api/sub-merchants/{s['id']}", merchant.sk, {"payout": {"iban": other}})
    assert status == 200, s
    assert s["payouts_enabled"] is False and s["payout"]["hold_until"] is not None and s["status"] == "active"
    clock.advance(hours=72)
    s = (await call(client, "GET", f"/api/sub-merchants/{s['id']}", merchant.sk))[1]
    assert s["payouts_enabled"] is True and s["payout"]["hold_until"] is None
    # type is fixed once set; a bad update writes nothing
    status, err = await call(client, "PUT", f"/api/sub-merchants/{s['id']}", merchant.sk, {"type": "individual"})
    assert status == 400 and err["error"]["param"] == "type"
    status, err = await call(client, "PUT", f"/api/sub-merchants/{s['id']}", merchant.sk,
                             {"legal_name": "Other Name", "email": "new@example.com"})
    assert status == 400 and err["error"]["code"] == "holder_name_mismatch"
    assert (await SubMerchant.get(id=s["id"])).email == "seller@example.com"
    assert await Event.filter(merchant_id=merchant.id, type="sub_merchant.updated").count() == 3


async def test_others_sub_merchants_are_404_and_the_list_is_scoped(client, merchant, make_merchant):
    s = await make_seller(client, merchant.sk)
    other = await make_merchant()
    status, err = await call(client, "GET", f"/api/sub-merchants/{s['id']}", other.sk)
    assert status == 404
    status, err = await call(client, "PUT", f"/api/sub-merchants/{s['id']}", other.sk, {"email": "x@example.com"})
    assert status == 404
    assert (await call(client, "GET", "/api/sub-merchants", other.sk))[1]["data"] == []
    page = (await call(client, "GET", "/api/sub-merchants", merchant.sk))[1]
    assert [x["id"] for x in page["data"]] == [s["id"]]


async def test_marketplace_settings(client, merchant):
    status, m = await call(client, "GET", "/api/marketplace", merchant.sk)
    assert status == 200 and (m["dispute_policy"], m["payout_account"], m["commission_invoices"]) == \
        ("platform", None, True)
    status, m = await call(client, "PUT", "/api/marketplace", merchant.sk,
                           {"dispute_policy": "ratio", "payout_account": {"iban": IBANS["SA"].lower(),
                                                                          "name": "Souq Platform"}})
    assert status == 200, m
    assert m["dispute_policy"] == "ratio" and m["payout_account"] == {"iban": IBANS["SA"], "name": "Souq Platform",
                                                                      "bic": None}
    status, err = await call(client, "PUT", "/api/marketplace", merchant.sk, {"dispute_policy": "buyer"})
    assert status == 400 and err["error"]["param"] == "dispute_policy"
    status, err = await call(client, "PUT", "/api/marketplace", merchant.sk,
                             {"payout_account": {"iban": "SA00", "name": "x"}})
    assert status == 400 and err["error"]["param"] == "payout_account.iban"
    assert (await call(client, "GET", "/api/marketplace", merchant.sk))[1]["dispute_policy"] == "ratio"


async def test_an_empty_settings_update_changes_nothing(client, merchant):
    status, m = await call(client, "PUT", "/api/marketplace", merchant.sk)
    assert status == 200 and m["dispute_policy"] == "platform" and m["updated_at"] is None


async def test_a_seller_whose_details_fall_past_due_is_announced_disabled(client, merchant, clock):
    from tests.money_fixtures import run_until

    s = await make_seller(client, merchant.sk, "KW", payout=False, payout_schedule={"interval": "manual"})
    ran = await run_until(clock, merchant.id, clock.now() + timedelta(days=31))
    assert [r.kind for r in ran if r.kind == "marketplace.past_due"] == ["marketplace.past_due"]
    events = await Event.filter(merchant_id=merchant.id, type="sub_merchant.updated").order_by("created_at")
    assert len(events) == 2 and events[1].data["status"] == "disabled" and events[1].data["id"] == s["id"]
    ok = await make_seller(client, merchant.sk, "KW", payout_schedule={"interval": "manual"})
    ran = await run_until(clock, merchant.id, clock.now() + timedelta(days=31))
    assert not [r for r in ran if r.kind == "marketplace.past_due" and r.id == ok["id"]]     # nothing was due
