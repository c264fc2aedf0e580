"""GİB set-up through the real app: VKN/TCKN check digits, the prefix and the address named in a
400 that leaves nothing behind; integrator credentials sealed and never shown; the unit's next
number; the sandbox integrator's taxpayer list; GraphQL twins."""
from __future__ import annotations

import pytest

from models.einvoicing import EinvoiceUnit
from services.einvoicing import core
from services.einvoicing.gib import ids, units
from services.errors import ValidationError
from services.infra.runtime import runtime
from tests.billing_fixtures import call
from tests.conftest import gql
from tests.gib_fixtures import in_2026  # noqa: F401
from tests.gib_fixtures import SETUP, setup


def test_check_digits():
    assert [ids.vkn_valid(v) for v in ("1234567808", "9876543209", "1111111114")] == [True, True, True]
    assert [ids.vkn_valid(v) for v in ("1234567809", "123456780", "12345678O8", "")] == [False] * 4
    assert ids.tckn_valid("10000000146") and not ids.tckn_valid("10000000147") and not ids.tckn_valid("01234567890")
    assert not ids.tckn_valid("11111111111")            # GİB's placeholder does not check ...
    assert ids.check_number("11111111111", "vkn") == "11111111111"     # ... and is accepted as a buyer


async def test_bad_setup_names_the_field_and_leaves_nothing(client, merchant):
    bad_address = {**SETUP["address"]}
    cases = (({"vkn": "1234567809"}, "vkn"), ({"vkn": None, "tckn": "10000000147"}, "tckn"),
             ({"vkn": None}, "vkn"), ({"tckn": "10000000146"}, "tckn"),
             ({"prefix": "qaf"}, "prefix"), ({"prefix": "QAFI"}, "prefix"), ({"prefix": "Q-F"}, "prefix"),
             ({"address": {**bad_address, "postal_code": "347"}}, "address.postal_code"),
             ({"address": {**bad_address, "country": "SA"}}, "address.country"),
             ({"address": {k: v for k, v in bad_address.items() if k != "city"}}, "address.city"),
             ({"address": None}, "address"), ({"title": ""}, "title"), ({"tax_office": None}, "tax_office"),
             ({"kdv_rate": 18}, "kdv_rate"), ({"efatura_profile": "IHRACAT"}, "efatura_profile"),
             ({"website": "not a site"}, "website"),
             ({"integrator": {"url": "ftp://x.example", "username": "u", "password": "p"}}, "integrator.url"),
             ({"integrator": {"url": "https://x.example", "username": "u"}}, "integrator.password"),
             ({"integrator": "live"}, "integrator"), ({"colour": "red"}, "colour"))
    for over, param in cases:
        status, out = await call(client, "POST", "/api/einvoicing/gib/setup", merchant.sk, {**SETUP, **over})
        assert status == 400 and out["error"]["param"] == param, (over, out)
    assert await EinvoiceUnit.filter(merchant_id=merchant.id).count() == 0
    status, unit = await call(client, "GET", "/api/einvoicing/gib", merchant.sk)
    assert status == 200 and unit["status"] == "not_set_up" and unit["id"] is None and unit["next_number"] is None


async def test_setup_shows_the_unit_and_its_next_number(client, merchant):
    unit = await setup(client, merchant.sk)
    assert unit["object"] == "gib_unit" and unit["status"] == "active" and unit["livemode"] is False
    assert (unit["vkn"], unit["tckn"], unit["prefix"], unit["integrator"]) == ("1234567808", None, "QAF", "sandbox")
    assert (unit["kdv_rate"], unit["efatura_profile"]) == (20, "TICARIFATURA")
    assert unit["next_number"] == "QAF2026000000001"        # the test clock is in 2026
    status, again = await call(client, "GET", "/api/einvoicing/gib", merchant.sk)
    assert status == 200 and again == unit
    # a sole trader, TEMELFATURA, 10% for payments: set up again, the same unit
    trader = await setup(client, merchant.sk, vkn=None, tckn="10000000146", efatura_profile="TEMELFATURA",
                         kdv_rate=10)
    assert trader["id"] == unit["id"] and trader["tckn"] == "10000000146" and trader["vkn"] is None
    assert (trader["efatura_profile"], trader["kdv_rate"]) == ("TEMELFATURA", 10)


async def test_integrator_credentials_are_sealed_and_never_shown(client, merchant):
    creds = {"url": "https://api.integrator.example/efatura", "username": "qafila", "password": "s3cr3t-Pa55"}
    unit = await setup(client, merchant.sk, integrator=creds)
    assert unit["integrator"] == {"url": creds["url"], "username": "qafila"}
    assert "s3cr3t-Pa55" not in str(unit)
    row = await EinvoiceUnit.get(id=unit["id"])
    assert "s3cr3t-Pa55" not in str(row.settings) and "s3cr3t-Pa55" not in row.secrets_enc
    plain = core.unseal(runtime().config.secret_key, row.secrets_enc, context=row.id)
    assert b"s3cr3t-Pa55" in plain
    status, shown = await call(client, "GET", "/api/einvoicing/gib", merchant.sk)
    assert status == 200 and "s3cr3t-Pa55" not in str(shown)


def test_live_mode_needs_an_integrator_of_its_own():
    with pytest.raises(ValidationError) as err:
        units.parse_setup(SETUP, livemode=True)
    assert err.value.param == "integrator" and "live mode" in err.value.message
    settings, secrets = units.parse_setup({**SETUP, "integrator": {"url": "https://i.example", "username": "u",
                                                                   "password": "p"}}, livemode=True)
    assert settings["integrator"] == {"kind": "integrator", "url": "https://i.example", "username": "u"}
    assert secrets == {"password": "p"}
    with pytest.raises(ValidationError) as err:         # live: https only
        units.parse_setup({**SETUP, "integrator": {"url": "http://i.example", "username": "u", "password": "p"}},
                          livemode=True)
    assert err.value.param == "integrator.url"


async def test_taxpayer_list_of_the_sandbox(client, merchant, make_merchant):
    status, out = await call(client, "GET", "/api/einvoicing/gib/taxpayers/9876543209", merchant.sk)
    assert status == 200, out
    assert out == {"object": "gib_taxpayer", "vkn": "9876543209", "registered": True,
                   "title": "Deneme Sanayi Ltd. Şti.", "alias": "urn:mail:defaultpk@9876543209.sandbox.qafila.dev",
                   "type": "efatura"}
    status, out = await call(client, "GET", "/api/einvoicing/gib/taxpayers/1111111114", merchant.sk)
    assert status == 200 and out["registered"] is False and out["alias"] is None
    status, out = await call(client, "GET", "/api/einvoicing/gib/taxpayers/11111111111", merchant.sk)
    assert status == 200 and out["registered"] is False
    status, out = await call(client, "GET", "/api/einvoicing/gib/taxpayers/1234567809", merchant.sk)
    assert status == 400 and out["error"]["param"] == "vkn"


GQL_SETUP = {"vkn": SETUP["vkn"], "title": SETUP["title"], "taxOffice": SETUP["tax_office"], "prefix": "QA1",
             "address": {"street": "Moda Caddesi", "buildingNumber": "12", "district": "Kadıköy", "city": "İstanbul",
                         "postalCode": "34710"}}


async def test_graphql_twins(client, merchant):
    q = """mutation($input: GibSetupInput!) { gibSetup(input: $input) { unit { id status vkn prefix nextNumber
             integrator } userErrors { field message } } }"""
    status, out = await gql(client, q, {"input": GQL_SETUP}, merchant.sk)
    assert status == 200 and out["data"]["gibSetup"]["userErrors"] == [], out
    unit = out["data"]["gibSetup"]["unit"]
    assert (unit["status"], unit["prefix"], unit["nextNumber"], unit["integrator"]) == \
        ("active", "QA1", "QA12026000000001", "sandbox")
    status, out = await gql(client, """mutation($input: GibSetupInput!) { gibSetup(input: $input) {
             unit { id } userErrors { field message } } }""", {"input": {**GQL_SETUP, "vkn": "1234567809"}}, merchant.sk)
    assert out["data"]["gibSetup"]["unit"] is None and out["data"]["gibSetup"]["userErrors"][0]["field"] == "vkn"
    status, out = await gql(client, """{ gibUnit { status prefix vkn } gibTaxpayer(vkn: "1234567808") {
             registered alias } }""", key=merchant.sk)
    assert out["data"]["gibUnit"] == {"status": "active", "prefix": "QA1", "vkn": "1234567808"}, out
    assert out["data"]["gibTaxpayer"]["registered"] is True
