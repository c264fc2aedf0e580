"""The documents say exactly what the service accepts (issue 22), and the service refuses what
they refuse: the refusals added so that schemathesis' positive and negative data checks agree,
each a 400 naming its parameter, and the document's own precision (id patterns from the prefixes,
nullable optional fields, at-least-one bodies, per-currency amount limits)."""
from __future__ import annotations

import re

import pytest

from services.money import currencies as money
from tests.crm_fixtures import crm, signup  # noqa: F401
from tests.helpers import bearer
from tests.intents_fixtures import RETURN_URL, confirm, create

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


async def _doc(c) -> dict:
    r = await c.get("/openapi.json")
    assert r.status == 200
    return await r.json()


def _params(doc: dict, path: str, method: str) -> dict:
    return {p["name"]: p for p in doc["paths"][path][method].get("parameters", [])}


def _body(doc: dict, path: str, method: str) -> dict:
    return doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]


# ---------------------------------------------------------------- the service refuses

@pytest.mark.parametrize("path, param", [
    ("/api/analytics?to=", "to"),
    ("/api/payments/list?created_gte=", "created_gte"),
    ("/api/customers?email=", "email"),
    ("/v1/payments?created[lte]=", "created[lte]"),
])
async def test_an_empty_query_value_is_a_400_naming_it(client, merchant, path, param):
    r = await client.get(path, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == param, body
    if path.startswith("/api/"):
        assert body["error"]["message"] == "Invalid request body" and "must not be empty" in body["error"]["detail"]


async def test_an_empty_crm_query_value_is_a_400_naming_it(crm):  # noqa: F811
    a = await signup(crm)
    r = await crm.get("/api/reports/revenue?to=", headers=a.h)
    assert r.status == 400 and (await r.json())["error"]["param"] == "to"


async def test_a_malformed_id_filter_is_a_400_not_an_empty_list(client, crm, merchant):  # noqa: F811
    for path, param in (("/api/disputes?payment_id=null", "payment_id"), ("/api/payments/list?customer=null", "customer")):
        r = await client.get(path, headers=bearer(merchant.sk))
        assert r.status == 400 and (await r.json())["error"]["param"] == param, path
    ok = await client.get("/api/disputes?payment_id=pay_" + "x" * 24, headers=bearer(merchant.sk))
    assert ok.status == 200 and (await ok.json())["data"] == []        # well-formed, unknown: matches nothing
    a = await signup(crm)
    for path, param in (("/api/commissions?user_id=null", "user_id"), ("/api/deals?owner_id=null", "owner_id")):
        r = await crm.get(path, headers=a.h)
        assert r.status == 400 and (await r.json())["error"]["param"] == param, path


async def test_unread_takes_only_its_documented_values(crm):  # noqa: F811
    a = await signup(crm)
    r = await crm.get("/api/messaging/inbox?unread=AAA", headers=a.h)
    assert r.status == 400 and (await r.json())["error"]["param"] == "unread"
    for v in ("1", "true", "0", "false"):
        assert (await crm.get(f"/api/messaging/inbox?unread={v}", headers=a.h)).status == 200


async def test_an_idempotency_key_is_printable_ascii(client, merchant):
    r = await client.post("/api/customers", json={"name": "Ada"},
                          headers={**bearer(merchant.sk), "X-Idempotency-Key": "clé-1".encode().decode("latin-1")})
    body = await r.json()
    assert r.status == 400 and "printable ASCII" in body["error"]["detail"], body
    ok = await client.post("/api/customers", json={"name": "Ada"}, headers={**bearer(merchant.sk), "X-Idempotency-Key": "k-1"})
    assert ok.status == 200


async def test_a_null_optional_field_is_not_an_unknown_field(client, merchant):
    r = await client.post("/api/routing/rules", json={"name": "r1", "strategy": "smart"}, headers=bearer(merchant.sk))
    assert r.status == 200, await r.text()
    rule = await r.json()
    r = await client.put(f"/api/routing/rules/{rule['id']}", json={"name": "r2", "conditions": None},
                         headers=bearer(merchant.sk))
    assert r.status == 200 and (await r.json())["name"] == "r2", await r.text()


async def test_a_non_ascii_3ds_token_or_client_secret_is_not_found_not_a_500(client, merchant):
    i = await create(client, merchant.sk)
    c = await confirm(client, merchant.sk, i["id"], payment_method_id="pm_card_threeDSecureRequired",
                      return_url=RETURN_URL)
    assert c["status"] == "requires_action"
    page = await client.get(f"/v1/payments/{i['id']}/3ds", params={"token": "é" * 32})
    assert page.status == 404
    post = await client.post(f"/v1/payments/{i['id']}/3ds", data={"token": "ü", "outcome": "succeed"},
                             allow_redirects=False)
    assert post.status == 404
    pk = await client.get(f"/v1/payments/{i['id']}", params={"client_secret": "ş" * 10},
                          headers=bearer(merchant.pk))
    assert pk.status == 404


async def test_a_json_number_rate_is_rounded_to_12_decimals(crm):  # noqa: F811
    a = await signup(crm)
    r = await crm.put("/api/reports/rates", json={"base": "USD", "quote": "TRY", "rate": 0.1234567890123456}, headers=a.h)
    assert r.status == 200 and (await r.json())["rate"] == "0.123456789012", await r.text()
    r = await crm.put("/api/reports/rates", json={"base": "USD", "quote": "SAR", "rate": "0.1234567890123456"}, headers=a.h)
    assert r.status == 400 and (await r.json())["error"]["param"] == "rate"     # text is exact: refused


# ---------------------------------------------------------------- the document says so

async def test_path_ids_declare_the_pattern_of_their_prefix(client, crm):  # noqa: F811
    doc, crm_doc = await _doc(client), await _doc(crm)
    for path, method, prefix in (("/api/payments/{id}", "get", "pay"), ("/api/customers/{id}", "put", "cus"),
                                 ("/v1/payments/{id}/confirm", "post", "pay"), ("/api/routing/rules/{id}", "put", "rul"),
                                 ("/api/webhooks/endpoints/{id}/disable", "post", "whk"),
                                 ("/api/payment-links/{id}", "get", "lnk")):
        assert _params(doc, path, method)["id"]["schema"]["pattern"] == f"^{prefix}_[A-Za-z0-9]{{24}}$", path
    assert _params(crm_doc, "/api/customers/{id}", "get")["id"]["schema"]["pattern"] == "^ccu_[A-Za-z0-9]{24}$"
    assert _params(crm_doc, "/api/deals/{id}", "put")["id"]["schema"]["pattern"] == "^deal_[A-Za-z0-9]{24}$"
    # every path id of both documents has a pattern, and the ids the service makes match it
    for d in (doc, crm_doc):
        for path, item in d["paths"].items():
            for method, op in item.items():
                for p in op.get("parameters", []):
                    if p["in"] == "path" and p["name"] == "id":
                        assert re.compile(p["schema"]["pattern"]), (method, path)


async def test_query_values_are_never_empty_and_cursors_are_ids_of_the_list(client):
    doc = await _doc(client)
    listing = _params(doc, "/api/customers", "get")
    assert listing["email"]["schema"]["minLength"] == 1
    assert listing["starting_after"]["schema"]["pattern"] == "^cus_[A-Za-z0-9]{24}$"
    assert _params(doc, "/api/invoices", "get")["customer_id"]["schema"]["pattern"] == "^cus_[A-Za-z0-9]{24}$"
    analytics = doc["paths"]["/api/analytics"]["get"]
    assert analytics["x-qafila-exclusive"] == [["period", "from"], ["period", "to"]]
    assert "Give at most one of" in analytics["description"]


async def test_bodies_say_null_at_least_one_and_amount_limits(client):
    doc = await _doc(client)
    update = _body(doc, "/api/customers/{id}", "put")
    assert update["properties"]["name"]["type"] == ["string", "null"]           # null is "not given"
    # at least one field: on create not null nor blank ("" is "not given"), on update not null ("" is stored)
    given = {"not": {"anyOf": [{"type": "null"}, {"type": "string", "pattern": r"^\s*$"}]}}
    assert {"required": ["name"], "properties": {"name": given}} in _body(doc, "/api/customers", "post")["anyOf"]
    assert {"required": ["name"], "properties": {"name": {"not": {"type": "null"}}}} in update["anyOf"]
    assert doc["paths"]["/api/customers/{id}"]["put"]["requestBody"]["required"] is True
    create_ = _body(doc, "/api/payments/create", "post")
    assert create_["properties"]["amount"]["type"] == "integer"                  # required: not nullable
    # amount and currency both required: one branch per currency (no if/then, which a generator
    # multiplies out against the body's other branches)
    [per_currency] = [rule["anyOf"] for rule in create_["allOf"] if "anyOf" in rule]
    limits = {b["properties"]["currency"]["const"]: b["properties"]["amount"] for b in per_currency}
    for cur in ("KWD", "TRY", "IQD", "SAR", "BHD"):
        assert limits[cur] == {"minimum": money.LIMITS[cur].minimum, "maximum": money.LIMITS[cur].maximum}, cur
    assert set(limits) == set(create_["properties"]["currency"]["enum"])
    # an optional currency: if/then, so a body without one keeps the amount's own bounds
    intent = _body(doc, "/v1/payments/intent", "post")
    assert [rule for rule in intent["allOf"] if "anyOf" in rule] and not [r for r in intent["allOf"] if "if" in r]


async def test_a_fixed_path_asked_with_another_method_is_a_405_not_a_malformed_id(client, merchant):
    r = await client.get("/v1/payments/intent", headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 405 and r.headers["Allow"] == "POST" and body["error"]["code"] == "method_not_allowed", body
    r = await client.get("/v1/payments/nope", headers=bearer(merchant.sk))          # a malformed id stays a 400
    assert r.status == 400 and (await r.json())["error"]["code"] == "invalid_id"


async def test_refusals_that_depend_on_stored_state_have_their_own_codes(client, merchant):
    # a payment method given to an intent whose method takes none: the intent's method decides
    qr = await create(client, merchant.sk, payment_method="crypto", crypto_asset="USDT", crypto_network="trc20")
    body = await confirm(client, merchant.sk, qr["id"], payment_method_id="pm_card_visa", expect=400)
    assert body["error"]["code"] == "payment_method_not_used" and body["error"]["param"] == "payment_method_id"
    # merchant_id in an intent is the caller's own: another is refused with its own code
    body = await create(client, merchant.sk, merchant_id="mer_" + "x" * 24, expect=400)
    assert body["error"]["code"] == "merchant_id_mismatch" and body["error"]["param"] == "merchant_id"
    # a Saudi merchant's tax number is its VAT number, whether the country is given or stored
    r = await client.put("/api/merchant", json={"country": "SA", "tax_number": "123"}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and body["error"]["code"] == "invalid_tax_number" and body["error"]["param"] == "tax_number"
    assert body["error"]["message"] == "Invalid request body"           # /api's documented 400 message
    assert (await client.put("/api/merchant", json={"country": "SA"}, headers=bearer(merchant.sk))).status == 200
    r = await client.put("/api/merchant", json={"tax_number": "123"}, headers=bearer(merchant.sk))
    assert r.status == 400 and (await r.json())["error"]["code"] == "invalid_tax_number"
    ok = await client.put("/api/merchant", json={"tax_number": "300000000000003"}, headers=bearer(merchant.sk))
    assert ok.status == 200 and (await ok.json())["tax_number"] == "300000000000003"


async def test_what_the_intents_method_decides_on_confirm_has_its_own_code(client, merchant):
    card = await create(client, merchant.sk)
    body = await confirm(client, merchant.sk, card["id"], expect=400)        # no card given to a card intent
    assert (body["error"]["code"], body["error"]["param"]) == ("payment_method_required", "payment_method_id")
    assert "card" in body["error"]["message"]
    body = await confirm(client, merchant.sk, card["id"], phone="+966512345678", expect=400)
    assert (body["error"]["code"], body["error"]["param"]) == ("payment_method_not_used", "phone")
    qr = await create(client, merchant.sk, payment_method="qr")
    body = await confirm(client, merchant.sk, qr["id"], payment_method_id="pm_card_visa", installments=3, expect=400)
    assert (body["error"]["code"], body["error"]["param"]) == ("payment_method_not_used", "installments")
    coin = await create(client, merchant.sk, payment_method="crypto", crypto_asset="USDT", crypto_network="trc20")
    body = await confirm(client, merchant.sk, coin["id"], installments=3, expect=400)
    assert (body["error"]["code"], body["error"]["param"]) == ("payment_method_not_used", "installments")


async def test_the_request_itself_decides_these_and_the_document_says_so(client, merchant):
    # fields of another method on create: refused as such, and the document's branch by method says it
    body = await create(client, merchant.sk, expires_in_hours=5, expect=400)
    assert (body["error"]["code"], body["error"]["param"]) == ("payment_method_not_used", "expires_in_hours")
    body = await create(client, merchant.sk, payment_method="qr", installments=3, expect=400)
    assert body["error"]["param"] == "installments" and body["error"]["code"] == "invalid_request"
    r = await client.put("/api/installments/plans", headers=bearer(merchant.sk), json={"plans": [
        {"program": "axess", "options": [{"count": 2, "commission_bps": 0}]},
        {"program": "axess", "options": [{"count": 3, "commission_bps": 0}]}]})
    body = await r.json()
    assert r.status == 400 and (body["error"]["code"], body["error"]["param"]) == ("duplicate_program",
                                                                                   "plans[1].program"), body
    doc = await _doc(client)
    intent = _body(doc, "/v1/payments/intent", "post")
    branches = {}
    for b in intent["anyOf"]:
        pm = b["properties"]["payment_method"]
        branches.setdefault(pm.get("const") or "|".join(pm["enum"]), []).append(b)     # the BNPL methods share one
    [card] = branches["card"]
    assert card["properties"]["phone"] == {"type": "null"} and "KWD" in card["properties"]["currency"]["enum"]
    assert card["properties"]["alias"] == {"type": "null"}
    assert len(branches["cod"]) == 7 and len(branches["crypto"]) == 1       # an asset's networks: x-qafila-pairs
    # The local methods: two branches, those without a field of their own and those with one; each
    # method's currency, limits, own fields and required ones in x-qafila-local.
    [plain] = branches["mada|troy|meeza|knet|benefit|naps|omannet"]
    assert all(plain["properties"][f] == {"type": "null"} for f in ("phone", "expires_in_hours", "alias"))
    [own] = branches["fawry|eg_wallet|stcpay|sadad|cliq|aani"]
    assert not {"phone", "expires_in_hours", "alias"} & set(own.get("required", ()))
    assert {f for f in ("phone", "expires_in_hours", "alias") if own["properties"].get(f) == {"type": "null"}} == set()
    assert own["properties"]["cod_address"] == {"type": "null"} and set(own["properties"]["currency"]["enum"]) == \
        {"EGP", "SAR", "JOD", "AED"}
    op = doc["paths"]["/v1/payments/intent"]["post"]
    local = op["x-qafila-local"]
    assert local["limits"]["knet"] == {"KWD": [100, 3_000_000]}          # a method's own limits, tighter
    assert local["limits"]["troy"] == {"TRY": [money.LIMITS["TRY"].minimum, money.LIMITS["TRY"].maximum]}
    assert local["required"] == {"stcpay": ["phone"]} and local["fields"]["stcpay"] == {"phone": "+966512345678"}
    assert set(local["limits"]) == set(plain["properties"]["payment_method"]["enum"]) | \
        set(own["properties"]["payment_method"]["enum"])
    # What the extension says is what the service does: each method takes its currency at its limits with
    # its own fields' values; not its currency, below its minimum, another's field or no required field: 400.
    for method, served in local["limits"].items():
        mine = local["fields"].get(method, {})
        for cur, (low, high) in served.items():
            await create(client, merchant.sk, payment_method=method, currency=cur, amount=low, **mine, expect=201)
            body = await create(client, merchant.sk, payment_method=method, currency=cur, amount=low - 1,
                                **mine, expect=400)
            assert body["error"]["param"] == "amount", (method, body)
        body = await create(client, merchant.sk, payment_method=method, currency="USD", **mine, expect=400)
        assert body["error"]["param"] == "payment_method", (method, body)
        cur = next(iter(served))
        field, value = next((f, v) for fs in local["fields"].values() for f, v in fs.items() if f not in mine)
        body = await create(client, merchant.sk, payment_method=method, currency=cur, amount=served[cur][0],
                            **mine, **{field: value}, expect=400)
        assert (body["error"]["code"], body["error"]["param"]) == ("payment_method_not_used", field), (method, body)
        for field in local["required"].get(method, ()):
            cur = next(iter(served))
            body = await create(client, merchant.sk, payment_method=method, currency=cur, amount=served[cur][0],
                                expect=400)
            assert body["error"]["param"] == field, (method, body)
    networks = {"USDT": ["trc20", "erc20", "bep20"], "BTC": ["bitcoin"], "ETH": ["ethereum", "erc20"]}
    assert op["x-qafila-pairs"] == [["crypto_asset", "crypto_network", networks]]
    assert ("crypto_network must be one of crypto_asset's: USDT: trc20, erc20, bep20; BTC: bitcoin; "
            "ETH: ethereum, erc20.") in op["description"]
    bad = await create(client, merchant.sk, expect=400, payment_method="crypto", crypto_asset="BTC",
                       crypto_network="trc20")
    assert bad["error"]["param"] == "crypto_network"
    assert op["x-qafila-only"] == [["installments", 1, "payment_method", ["card", "troy"]],
                                   ["invoice", False, "currency", ["TRY"]], ["eta_receipt", False, "currency", ["EGP"]]]
    assert op["x-qafila-unique"] == [["split", "merchant_id"]]
    plans = doc["paths"]["/api/installments/plans"]["put"]
    assert plans["x-qafila-unique"] == [["plans", "program"], ["plans", "options", "count"]]
    types = doc["paths"]["/v1/payment_method_types"]["get"]["x-qafila-amount"]
    assert types["fields"] == ["amount", "currency"] and types["limits"]["KWD"] == [money.LIMITS["KWD"].minimum,
                                                                                     money.LIMITS["KWD"].maximum]
    create_ = _body(doc, "/api/payments/create", "post")            # capture and capture_method agree
    assert {"if": {"properties": {"capture": {"const": False}}, "required": ["capture"]},
            "then": {"properties": {"capture_method": {"enum": ["manual", None]}}}} in create_["allOf"]


async def test_every_request_body_is_one_schemathesis_can_generate(client, crm):  # noqa: F811
    """schemathesis builds its cases from jsonschema_rs' canonical form; a body that form cannot
    model ("raw": too many branches intersected) gets no cases at all, a Schema Error in CI."""
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    raw = jsonschema_rs.canonical.CanonicalKind.RAW
    checked = 0
    for c in (client, crm):
        doc = await _doc(c)
        for path, ops in doc["paths"].items():
            for method, op in ops.items():
                schema = (op.get("requestBody") or {}).get("content", {}).get("application/json", {}).get("schema")
                if schema is not None:
                    checked += 1
                    assert jsonschema_rs.canonicalize(schema).kind is not raw, (method, path)
    assert checked > 40


async def test_a_settlement_csv_is_a_documented_answer(client):
    doc = await _doc(client)
    content = doc["paths"]["/api/settlements/{id}/transactions"]["get"]["responses"]["200"]["content"]
    assert set(content) == {"application/json", "text/csv"} and content["text/csv"]["schema"]["type"] == "string"


async def test_the_address_in_a_body_is_what_the_service_takes(client, crm, merchant):  # noqa: F811
    """`address` on the customers' bodies (/api and the CRM): what the schema refuses, the service
    refuses with a 400 naming the field, and what it takes, the service takes."""
    import jsonschema

    from tests.billing_fixtures import call

    cases = [({"country": "eg", "city": "Giza"}, None), ({"country": " SA "}, None),
             ({"line2": None, "state": ""}, None), (None, None), ({"country": "EGY"}, "address.country"),
             ({"country": "QQ"}, "address.country"), ({"zip": "1"}, "address.zip"),
             ({"building_number": 7}, "address.building_number")]
    for c in (client, crm):
        doc = await _doc(c)
        schema = {**_body(doc, "/api/customers/{id}", "put"), "components": doc["components"]}
        for address, param in cases:
            assert jsonschema.Draft202012Validator(schema).is_valid({"address": address}) is (param is None), address
    status, cus = await call(client, "POST", "/api/customers", merchant.sk, {"name": "A"})
    for address, param in cases:
        status, out = await call(client, "PUT", f"/api/customers/{cus['id']}", merchant.sk, {"address": address})
        assert (status, out.get("error", {}).get("param")) == ((200, None) if param is None else (400, param)), out
