"""Issue 43, item 2: a customer's postal address (`address`) on /api/customers, the CRM's
/api/customers and GraphQL (both schemas): round trip, merge on update, null clears, a bad country
or an unknown key a 400 naming it with nothing written; read by ETA's receiver, GİB's buyer,
ZATCA's buyer of a standard invoice and a BNPL intent without a shipping address."""
from __future__ import annotations

import asyncio
import json

import pytest

from models.einvoicing import EinvoiceDocument
from models.intents import PaymentIntent
from models.payments import Customer
from services.einvoicing.zatca import signing as zatca_signing
from tests import gib_fixtures as gib
from tests import test_zatca_api as zatca
from tests.billing_fixtures import call
from tests.conftest import gql
from tests.crm_fixtures import acct, crm, make_account  # noqa: F401
from tests.crm_fixtures import gql as crm_gql
from tests.eta_fixtures import egp_invoice, mark_paid, setup as eta_setup
from tests.gib_fixtures import in_2026  # noqa: F401
from tests.intents_fixtures import create as create_intent
from tests.test_bnpl import bnpl_body
from tests.zatca_fixtures import schema_errors

KEYS = ("line1", "line2", "building_number", "district", "city", "state", "postal_code", "country")
CAIRO = {"line1": "26 Tahrir St", "line2": "Floor 3", "building_number": "26", "district": "Dokki", "city": "Giza",
         "state": "Giza", "postal_code": "12611", "country": "eg"}


def full(**given) -> dict:
    """An address as answered: every key, null when unset."""
    return {k: given.get(k) for k in KEYS}


async def count(client, key) -> int:
    return (await call(client, "GET", "/api/customers", key))[1]["total"]


# ---------------------------------------------------------------- /api/customers

async def test_api_address_round_trips_merges_on_update_and_null_clears(client, merchant):
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {"name": "Delta", "address": CAIRO})
    assert status == 200, c
    assert c["address"] == full(**{**CAIRO, "country": "EG"})           # country upper-cased
    status, got = await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk)
    assert status == 200 and got["address"] == c["address"]
    status, page = await call(client, "GET", "/api/customers", merchant.sk)
    assert [x["address"] for x in page["data"] if x["id"] == c["id"]] == [c["address"]]
    # an update merges: keys given replace, null or "" removes one, the others stay
    status, upd = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk,
                             {"address": {"line1": "3 Nile Corniche", "line2": None, "postal_code": ""}})
    assert status == 200, upd
    assert upd["address"] == full(**{**CAIRO, "country": "EG", "line1": "3 Nile Corniche", "line2": None,
                                     "postal_code": None})
    assert (await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk))[1]["address"] == upd["address"]
    # other fields leave it alone
    status, upd = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk, {"name": "Delta SAE"})
    assert status == 200 and upd["address"]["line1"] == "3 Nile Corniche"
    # null clears
    status, upd = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk, {"address": None})
    assert status == 200 and upd["address"] is None
    assert (await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk))[1]["address"] is None
    # a customer without one answers null
    status, plain = await call(client, "POST", "/api/customers", merchant.sk, {"name": "No Address"})
    assert status == 200 and plain["address"] is None


@pytest.mark.parametrize("address, param", [
    ({**CAIRO, "country": "EGY"}, "address.country"),
    ({"country": "XX"}, "address.country"),
    ({"city": "Giza", "zip": "12611"}, "address.zip"),
    ({"building_number": 26}, "address.building_number"),
    ({"line1": "x" * 201}, "address.line1"),
    ("26 Tahrir St", "address"),
])
async def test_api_bad_address_is_a_400_naming_it_and_writes_nothing(client, merchant, address, param):
    before = await count(client, merchant.sk)
    status, out = await call(client, "POST", "/api/customers", merchant.sk, {"name": "X", "address": address})
    assert status == 400 and out["error"]["param"] == param, out
    assert await count(client, merchant.sk) == before
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {"name": "Y", "address": {"city": "Giza"}})
    assert status == 200
    status, out = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk,
                             {"name": "Z", "address": address})
    assert status == 400 and out["error"]["param"] == param, out
    status, got = await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk)
    assert got["name"] == "Y" and got["address"] == full(city="Giza")


async def test_concurrent_updates_of_different_keys_keep_both(client, merchant):
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {"name": "D", "address": {"country": "EG"}})
    updates = [{"address": {k: f"{k}-{n}"}} for n, k in enumerate(("line1", "city", "state", "postal_code") * 3)]
    results = await asyncio.gather(*(call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk, u)
                                     for u in updates))
    assert all(status == 200 for status, _ in results), results
    got = (await call(client, "GET", f"/api/customers/{c['id']}", merchant.sk))[1]["address"]
    assert all(got[k] and got[k].startswith(k) for k in ("line1", "city", "state", "postal_code")), got
    assert got["country"] == "EG"


async def test_an_address_emptied_key_by_key_is_no_address(client, merchant):
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {"name": "D", "address": {"city": "Giza"}})
    status, upd = await call(client, "PUT", f"/api/customers/{c['id']}", merchant.sk, {"address": {"city": None}})
    assert status == 200 and upd["address"] is None
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {"name": "E", "address": {}})
    assert status == 200 and c["address"] is None


# ---------------------------------------------------------------- the CRM

async def test_crm_address_round_trips_merges_and_refuses_bad_input(crm, acct):  # noqa: F811
    r = await crm.post("/api/customers", json={"name": "Layla", "address": CAIRO}, headers=acct.h)
    c = await r.json()
    assert r.status == 201, c
    assert c["address"] == full(**{**CAIRO, "country": "EG"})
    r = await crm.get(f"/api/customers/{c['id']}", headers=acct.h)
    assert (await r.json())["address"] == c["address"]
    r = await crm.put(f"/api/customers/{c['id']}", json={"address": {"city": "Cairo", "state": "Cairo"}},
                      headers=acct.h)
    upd = await r.json()
    assert r.status == 200 and upd["address"] == full(**{**CAIRO, "country": "EG", "city": "Cairo", "state": "Cairo"})
    for bad, param in (({"country": "EGY"}, "address.country"), ({"street": "x"}, "address.street")):
        r = await crm.put(f"/api/customers/{c['id']}", json={"name": "Changed", "address": bad}, headers=acct.h)
        err = await r.json()
        assert r.status == 400 and err["error"]["param"] == param, err
        r = await crm.post("/api/customers", json={"name": "New", "address": bad}, headers=acct.h)
        assert r.status == 400 and (await r.json())["error"]["param"] == param
    r = await crm.get(f"/api/customers/{c['id']}", headers=acct.h)
    got = await r.json()
    assert got["name"] == "Layla" and got["address"] == upd["address"]
    r = await crm.get("/api/customers?q=New", headers=acct.h)
    assert (await r.json())["data"] == []
    r = await crm.put(f"/api/customers/{c['id']}", json={"address": None}, headers=acct.h)
    assert r.status == 200 and (await r.json())["address"] is None


# ---------------------------------------------------------------- GraphQL

ADDRESS_FIELDS = "address { line1 line2 buildingNumber district city state postalCode country }"
CUSTOMER_CREATE = f"""mutation($input: CustomerCreateInput!) {{ customerCreate(input: $input) {{
  customer {{ id {ADDRESS_FIELDS} }} userErrors {{ code field message }} }} }}"""
CUSTOMER_UPDATE = f"""mutation($input: CustomerUpdateInput!) {{ customerUpdate(input: $input) {{
  customer {{ id {ADDRESS_FIELDS} }} userErrors {{ code field message }} }} }}"""
CUSTOMER = f"""query($id: ID!) {{ customer(id: $id) {{ id {ADDRESS_FIELDS} }} }}"""
GQL_CAIRO = {"line1": "26 Tahrir St", "buildingNumber": "26", "city": "Giza", "state": "Giza", "postalCode": "12611",
             "country": "eg"}


def gfull(**given) -> dict:
    return {k: given.get(k) for k in ("line1", "line2", "buildingNumber", "district", "city", "state", "postalCode",
                                      "country")}


async def test_graphql_address_agrees_with_rest(client, merchant):
    _, data = await gql(client, CUSTOMER_CREATE, {"input": {"name": "Nile Co", "address": GQL_CAIRO}}, key=merchant.sk)
    out = data["data"]["customerCreate"]
    assert out["userErrors"] == [] and out["customer"]["address"] == gfull(**{**GQL_CAIRO, "country": "EG"})
    cid = out["customer"]["id"]
    status, rest = await call(client, "GET", f"/api/customers/{cid}", merchant.sk)
    assert rest["address"] == full(line1="26 Tahrir St", building_number="26", city="Giza", state="Giza",
                                   postal_code="12611", country="EG")
    # merge: the fields given, null removes one
    _, data = await gql(client, CUSTOMER_UPDATE, {"input": {"id": cid, "address": {"line2": "Floor 3",
                                                                                  "postalCode": None}}},
                        key=merchant.sk)
    out = data["data"]["customerUpdate"]
    assert out["userErrors"] == [] and out["customer"]["address"] == gfull(
        **{**GQL_CAIRO, "country": "EG", "line2": "Floor 3", "postalCode": None})
    # a bad country: a userError naming it, nothing written
    _, data = await gql(client, CUSTOMER_UPDATE, {"input": {"id": cid, "name": "Renamed",
                                                            "address": {"country": "EGY"}}}, key=merchant.sk)
    out = data["data"]["customerUpdate"]
    assert out["customer"] is None and out["userErrors"][0]["field"] == "address.country", out
    _, data = await gql(client, CUSTOMER_CREATE, {"input": {"name": "X", "address": {"country": "EGY"}}},
                        key=merchant.sk)
    assert data["data"]["customerCreate"]["userErrors"][0]["field"] == "address.country"
    _, data = await gql(client, CUSTOMER, {"id": cid}, key=merchant.sk)
    assert data["data"]["customer"]["address"]["country"] == "EG"
    assert (await Customer.get(id=cid)).name == "Nile Co"
    # null clears
    _, data = await gql(client, CUSTOMER_UPDATE, {"input": {"id": cid, "address": None}}, key=merchant.sk)
    assert data["data"]["customerUpdate"]["customer"]["address"] is None
    assert (await call(client, "GET", f"/api/customers/{cid}", merchant.sk))[1]["address"] is None


CRM_CREATE = f"""mutation($input: CrmCustomerCreateInput!) {{ crmCustomerCreate(input: $input) {{
  customer {{ id {ADDRESS_FIELDS} }} userErrors {{ code field message }} }} }}"""
CRM_UPDATE = f"""mutation($input: CrmCustomerUpdateInput!) {{ crmCustomerUpdate(input: $input) {{
  customer {{ id {ADDRESS_FIELDS} }} userErrors {{ code field message }} }} }}"""


async def test_crm_graphql_address_twins(crm, acct):  # noqa: F811
    _, b = await crm_gql(crm, CRM_CREATE, {"input": {"name": "Layla", "address": GQL_CAIRO}}, token=acct.access)
    out = b["data"]["crmCustomerCreate"]
    assert out["userErrors"] == [] and out["customer"]["address"] == gfull(**{**GQL_CAIRO, "country": "EG"})
    cid = out["customer"]["id"]
    _, b = await crm_gql(crm, CRM_UPDATE, {"input": {"id": cid, "address": {"city": "Cairo"}}}, token=acct.access)
    assert b["data"]["crmCustomerUpdate"]["customer"]["address"] == gfull(**{**GQL_CAIRO, "country": "EG",
                                                                             "city": "Cairo"})
    _, b = await crm_gql(crm, CRM_UPDATE, {"input": {"id": cid, "address": {"country": "EGY"}}}, token=acct.access)
    assert b["data"]["crmCustomerUpdate"]["userErrors"][0]["field"] == "address.country"
    r = await crm.get(f"/api/customers/{cid}", headers=acct.h)
    assert (await r.json())["address"]["city"] == "Cairo"
    _, b = await crm_gql(crm, CRM_UPDATE, {"input": {"id": cid, "address": None}}, token=acct.access)
    assert b["data"]["crmCustomerUpdate"]["customer"]["address"] is None


# ---------------------------------------------------------------- ETA's receiver

async def _rin_customer(client, key, address: dict | None) -> str:
    body = {"name": "Delta Buyers LLC", "tax_id": {"type": "eg_rin", "value": "200300400"}}
    if address is not None:
        body["address"] = address
    status, c = await call(client, "POST", "/api/customers", key, body)
    assert status == 200, c
    return c["id"]


async def test_eta_receiver_address_is_the_customers_address(client, merchant):
    await eta_setup(client, merchant.sk)
    cid = await _rin_customer(client, merchant.sk, CAIRO)
    inv = await mark_paid(client, merchant.sk, (await egp_invoice(client, merchant.sk, cid))["id"])
    assert inv["eta"]["status"] == "valid", inv["eta"]
    doc = await EinvoiceDocument.get(invoice_id=inv["id"], authority="eta", kind="invoice")
    receiver = json.loads(doc.body)["receiver"]
    assert receiver == {"address": {"country": "EG", "governate": "Giza", "regionCity": "Giza",
                                    "street": "26 Tahrir St", "buildingNumber": "26", "postalCode": "12611",
                                    "additionalInformation": "Floor 3"},
                        "type": "B", "id": "200300400", "name": "Delta Buyers LLC"}


async def test_eta_needs_the_receivers_address_and_names_what_is_missing(client, merchant):
    await eta_setup(client, merchant.sk)
    cid = await _rin_customer(client, merchant.sk, {"city": "Giza", "line1": "26 Tahrir St", "country": "EG"})
    inv = await egp_invoice(client, merchant.sk, cid)
    status, out = await call(client, "PUT", f"/api/invoices/{inv['id']}/mark-paid", merchant.sk)
    assert status == 400 and out["error"]["param"] == "customer_id", out
    assert "address.state" in out["error"]["detail"] and "address.building_number" in out["error"]["detail"]
    assert "address.city" not in out["error"]["detail"]
    status, got = await call(client, "GET", f"/api/invoices/{inv['id']}", merchant.sk)
    assert got["status"] == "draft" and got["eta"] is None
    # completed, it goes
    status, _ = await call(client, "PUT", f"/api/customers/{cid}", merchant.sk,
                           {"address": {"state": "Giza", "building_number": "26"}})
    paid = await mark_paid(client, merchant.sk, inv["id"])
    assert paid["eta"]["status"] == "valid"
    receiver = json.loads((await EinvoiceDocument.get(invoice_id=inv["id"], authority="eta")).body)["receiver"]
    assert receiver["address"] == {"country": "EG", "governate": "Giza", "regionCity": "Giza",
                                   "street": "26 Tahrir St", "buildingNumber": "26"}


# ---------------------------------------------------------------- GİB's buyer

async def test_gib_buyer_postal_address_is_the_customers_address(client, merchant):
    await gib.setup(client, merchant.sk)
    cid = await gib.buyer(client, merchant.sk, tax_id=gib.vkn(gib.REGISTERED), name="Deneme Sanayi Ltd. Şti.")
    status, _ = await call(client, "PUT", f"/api/customers/{cid}", merchant.sk, {"address": {
        "line1": "Bağdat Caddesi", "line2": "No 5 D 3", "building_number": "5", "district": "Kadıköy",
        "city": "İstanbul", "state": "İstanbul", "postal_code": "34710", "country": "tr"}})
    assert status == 200
    inv = await gib.mark_paid(client, merchant.sk, (await gib.try_invoice(client, merchant.sk, cid))["id"])
    assert inv["gib"]["status"] == "sent"
    xml = await gib.xml_of(client, merchant.sk, inv["id"])
    assert gib.gib_errors(xml) == []
    a = "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress/"
    assert gib.x(xml, a + "cbc:StreetName") == "Bağdat Caddesi, No 5 D 3"
    assert gib.x(xml, a + "cbc:BuildingNumber") == "5"
    assert gib.x(xml, a + "cbc:CitySubdivisionName") == "Kadıköy"
    assert gib.x(xml, a + "cbc:CityName") == "İstanbul"
    assert gib.x(xml, a + "cbc:PostalZone") == "34710"
    assert gib.x(xml, a + "cbc:Region") == "İstanbul"
    assert gib.x(xml, a + "cac:Country/cbc:Name") == "Türkiye"


async def test_gib_buyer_abroad_names_its_country(client, merchant):
    await gib.setup(client, merchant.sk)
    cid = await gib.buyer(client, merchant.sk, name="Hans Müller")
    await call(client, "PUT", f"/api/customers/{cid}", merchant.sk,
               {"address": {"line1": "Hauptstraße 1", "city": "Berlin", "postal_code": "10115", "country": "DE"}})
    inv = await gib.mark_paid(client, merchant.sk, (await gib.try_invoice(client, merchant.sk, cid))["id"])
    xml = await gib.xml_of(client, merchant.sk, inv["id"])
    assert gib.gib_errors(xml) == []
    a = "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress/"
    assert gib.x(xml, a + "cbc:CityName") == "Berlin" and gib.x(xml, a + "cac:Country/cbc:Name") == "Germany"


# ---------------------------------------------------------------- ZATCA's buyer of a standard invoice

RIYADH = {"line1": "Prince Sultan St", "line2": "Unit 4", "building_number": "2322", "district": "Al-Murabba",
          "city": "Riyadh", "state": "Riyadh Province", "postal_code": "23333", "country": "SA"}


async def test_zatca_standard_invoice_buyer_postal_address(client, merchant):
    await zatca.onboard(client, merchant.sk)
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {
        "name": "Riyadh Trading", "tax_id": {"type": "sa_vat", "value": "311111111111113"}, "address": RIYADH})
    assert status == 200, c
    inv = await zatca.finalise(client, merchant.sk, (await zatca.sar_invoice(client, merchant.sk, c["id"]))["id"])
    assert inv["zatca"]["type"] == "standard" and inv["zatca"]["status"] == "cleared", inv["zatca"]
    xml = await zatca.xml_of(client, merchant.sk, inv["id"])
    assert schema_errors(xml) == [] and zatca_signing.check(xml) == []
    a = "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress/"
    assert zatca.x(xml, a + "cbc:StreetName") == "Prince Sultan St"
    assert zatca.x(xml, a + "cbc:AdditionalStreetName") == "Unit 4"
    assert zatca.x(xml, a + "cbc:BuildingNumber") == "2322"
    assert zatca.x(xml, a + "cbc:CitySubdivisionName") == "Al-Murabba"
    assert zatca.x(xml, a + "cbc:CityName") == "Riyadh"
    assert zatca.x(xml, a + "cbc:PostalZone") == "23333"
    assert zatca.x(xml, a + "cbc:CountrySubentity") == "Riyadh Province"
    assert zatca.x(xml, a + "cac:Country/cbc:IdentificationCode") == "SA"


async def test_zatca_simplified_invoice_buyer_has_no_address(client, merchant):
    await zatca.onboard(client, merchant.sk)
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {"name": "Walk-in", "address": RIYADH})
    inv = await zatca.finalise(client, merchant.sk, (await zatca.sar_invoice(client, merchant.sk, c["id"]))["id"])
    assert inv["zatca"]["type"] == "simplified"
    xml = await zatca.xml_of(client, merchant.sk, inv["id"])
    assert schema_errors(xml) == []
    assert b"Prince Sultan St" not in xml


# ---------------------------------------------------------------- BNPL: the customer's address ships

def _without_shipping(**extra) -> dict:
    body = bnpl_body(**extra)
    body.pop("shipping_address")
    return body


async def test_bnpl_shipping_falls_back_to_the_customers_address(client, merchant):
    status, c = await call(client, "POST", "/api/customers", merchant.sk, {"name": "Sara", "address": RIYADH})
    i = await create_intent(client, merchant.sk, **_without_shipping(customer_id=c["id"]))
    d = (await PaymentIntent.get(id=i["id"])).method_details
    assert d["shipping_address"] == {"line1": "Prince Sultan St", "city": "Riyadh", "country": "SA",
                                     "postal_code": "23333"}
    # one given wins
    i = await create_intent(client, merchant.sk, **bnpl_body(customer_id=c["id"]))
    d = (await PaymentIntent.get(id=i["id"])).method_details
    assert d["shipping_address"]["line1"] == "King Fahd Rd 12"


async def test_bnpl_without_shipping_nor_a_customer_address_is_a_400(client, merchant):
    status, bare = await call(client, "POST", "/api/customers", merchant.sk, {"name": "No Address"})
    status, partial = await call(client, "POST", "/api/customers", merchant.sk,
                                 {"name": "Part", "address": {"line1": "x", "city": "Riyadh", "country": "SA"}})
    for cid, param in ((None, "shipping_address"), (bare["id"], "shipping_address"),
                       ("cus_unknown", "shipping_address"), (partial["id"], "shipping_address.postal_code")):
        body = _without_shipping(**({"customer_id": cid} if cid else {}))
        e = await create_intent(client, merchant.sk, expect=400, **body)
        assert e["error"]["param"] == param, (cid, e)
    assert await PaymentIntent.filter(merchant_id=merchant.id).count() == 0
