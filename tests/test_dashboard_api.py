"""What the dashboard adds to the API, on REST and GraphQL alike: the payments list's search and
filters, the CSV export, files on a dispute's evidence, the member's language and digits, the
merchant switcher, the merchant's time zone and local today, the CSRF cookie of a cookie
session, and the CRM on the main /graphql for a member's session."""
from __future__ import annotations

import base64
import csv
import hashlib
import io

from models.team import Member
from services.identity import auth
from services.payments import payment_export
from tests.conftest import gql
from tests.money_fixtures import DISPUTE_CARD, at, get, pay_ok, run_until
from tests.payments_fixtures import call, pay
from tests.team_fixtures import add_member, cookie_header, set_cookie, sign_in, uniq

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 40
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 40

PAYMENTS = """query($q: String, $m: String, $g: Int, $l: Int, $c: String) {
  payments(first: 50, query: $q, method: $m, amountGte: $g, amountLte: $l, currency: $c) {
    totalCount edges { node { id amount } } } }"""


async def _seed(client, merchant):
    """Four payments: two by a customer with an e-mail and phone, one by another e-mail, one KWD."""
    made = []
    for amount, currency, body in (
            (1500, "SAR", {"customer": {"email": "Layla.Haddad@Example.com", "phone": "+966 50 123 4567",
                                        "name": "Layla"}}),
            (2500, "SAR", {"customer": {"email": "omar@example.com"}}),
            (9875, "KWD", {}),
    ):
        status, p = await pay(client, merchant.sk, amount=amount, currency=currency, **body)
        assert status == 200, p
        made.append(p)
    status, p = await pay(client, merchant.sk, amount=4000, currency="SAR", customer={"id": made[0]["customer_id"]})
    assert status == 200, p
    made.append(p)
    return made


async def _rest_ids(client, key, query: str):
    status, body = await call(client, "GET", "/api/payments/list?limit=100&" + query, key)
    assert status == 200, body
    return sorted(x["id"] for x in body["data"])


async def _gql_ids(client, key, **v):
    status, body = await gql(client, PAYMENTS, v, key=key)
    assert status == 200 and "errors" not in body, body
    return sorted(e["node"]["id"] for e in body["data"]["payments"]["edges"])


async def test_search_finds_by_id_email_phone_and_last4_on_rest_and_graphql(client, merchant):
    a, b, k, a2 = await _seed(client, merchant)
    cases = [
        (a["id"], [a["id"]]),
        ("layla.haddad@EXAMPLE.com", sorted([a["id"], a2["id"]])),       # the customer's e-mail, any case
        ("OMAR@example.com", [b["id"]]),
        ("+966 50 123 4567", sorted([a["id"], a2["id"]])),                # the customer's phone, as stored
        ("+966501234567", sorted([a["id"], a2["id"]])),                   # or without its spaces
        ("nobody@example.com", []),
        ("pay_doesnotexist", []),
        ("not a thing", []),
    ]
    for q, expected in cases:
        from urllib.parse import quote
        assert await _rest_ids(client, merchant.sk, f"q={quote(q)}") == expected, q
        assert await _gql_ids(client, merchant.sk, q=q) == expected, q
    # last4: every card here is 4242
    assert len(await _rest_ids(client, merchant.sk, "q=4242")) == 4
    assert await _rest_ids(client, merchant.sk, "q=0000") == []


async def test_method_and_amount_filters_and_their_400s(client, merchant):
    a, b, k, a2 = await _seed(client, merchant)
    assert await _rest_ids(client, merchant.sk, "amount_gte=2000&amount_lte=4000") == sorted([b["id"], a2["id"]])
    assert await _gql_ids(client, merchant.sk, g=2000, l=4000) == sorted([b["id"], a2["id"]])
    assert await _rest_ids(client, merchant.sk, "currency=KWD&amount_gte=9875") == [k["id"]]
    assert await _rest_ids(client, merchant.sk, "payment_method=card") == sorted(x["id"] for x in (a, b, k, a2))
    assert await _rest_ids(client, merchant.sk, "payment_method=knet") == []
    assert await _rest_ids(client, merchant.sk, "amount_gte=10&amount_lte=5") == []     # an empty range: no match
    assert await _rest_ids(client, merchant.sk, "q=layla.haddad@example.com&amount_gte=2000") == [a2["id"]]
    for query, param in (("amount_gte=-1", "amount_gte"), ("amount_lte=1.5", "amount_lte"),
                         ("payment_method=cash", "payment_method"),
                         ("q=" + "x" * 300, "q")):
        status, body = await call(client, "GET", "/api/payments/list?" + query, merchant.sk)
        assert status == 400 and body["error"]["param"] == param, (query, body)
    status, body = await gql(client, PAYMENTS, {"m": "cash"}, key=merchant.sk)
    assert body["data"] is None and body["errors"][0]["extensions"]["param"] == "method", body


EXPORT = """query($q: String, $c: String) { paymentsExport(query: $q, currency: $c) {
  filename csv rowCount userErrors { code field message } } }"""


async def test_export_is_rfc4180_csv_of_the_filtered_rows_in_minor_units(client, merchant, monkeypatch):
    a, b, k, a2 = await _seed(client, merchant)
    status, body = await gql(client, EXPORT, {"c": "KWD"}, key=merchant.sk)
    out = body["data"]["paymentsExport"]
    assert out["userErrors"] == [] and out["rowCount"] == 1
    assert out["filename"].startswith("payments-test-") and out["filename"].endswith(".csv")
    assert out["csv"].startswith("id,created_at,status,amount,amount_refunded,currency,payment_method,card_brand,"
                                 "card_last4,customer_email,customer_phone\r\n")
    rows = list(csv.DictReader(io.StringIO(out["csv"])))
    assert rows[0]["id"] == k["id"] and rows[0]["amount"] == "9875" and rows[0]["currency"] == "KWD"
    status, body = await gql(client, EXPORT, {"q": "layla.haddad@example.com"}, key=merchant.sk)
    rows = list(csv.DictReader(io.StringIO(body["data"]["paymentsExport"]["csv"])))
    assert sorted(r["id"] for r in rows) == sorted([a2["id"], a["id"]])
    assert {r["customer_phone"] for r in rows} == {"+966 50 123 4567"}
    assert {r["customer_email"].lower() for r in rows} == {"layla.haddad@example.com"}
    assert {(r["amount"], r["card_last4"]) for r in rows} == {("1500", "4242"), ("4000", "4242")}
    monkeypatch.setattr(payment_export, "MAX_ROWS", 3)
    status, body = await gql(client, EXPORT, {}, key=merchant.sk)
    out = body["data"]["paymentsExport"]
    assert out["csv"] is None and out["userErrors"][0]["code"] == "export_too_large"


async def _dispute(client, merchant, clock):
    clock.set(at(2026, 2, 4, 9, 0))
    await pay_ok(client, merchant.sk, amount=10000, number=DISPUTE_CARD)
    await run_until(clock, merchant.id, at(2026, 2, 5, 9, 0))
    return (await get(client, "/api/disputes", merchant.sk))["data"][0]


def _file(name, ctype, content):
    return {"filename": name, "content_type": ctype, "content_base64": base64.b64encode(content).decode()}


async def test_evidence_files_are_checked_by_content_size_count_and_state(client, merchant, clock):
    d = await _dispute(client, merchant, clock)
    path = f"/api/disputes/{d['id']}/evidence/files"
    status, body = await call(client, "POST", path, merchant.sk, _file("receipt.pdf", "application/pdf", PDF))
    assert status == 201, body
    f = body["evidence"]["files"][0]
    assert f["filename"] == "receipt.pdf" and f["size"] == len(PDF) and f["sha256"] == hashlib.sha256(PDF).hexdigest()
    bad = [
        (_file("a.png", "image/jpeg", PNG), "content_type"),                      # a PNG said to be a JPEG
        (_file("a.txt", "text/plain", b"hello"), "content_type"),
        (_file("a.pdf", "application/pdf", b"hello"), "content_base64"),          # not a PDF/PNG/JPEG at all
        (_file("big.pdf", "application/pdf", PDF + b"0" * (700 * 1024)), "content_base64"),
        ({**_file("a.pdf", "application/pdf", PDF), "content_base64": "%%%"}, "content_base64"),
        (_file("../x.pdf", "application/pdf", PDF), "filename"),
        ({"filename": "a.pdf", "content_type": "application/pdf"}, "content_base64"),
    ]
    for payload, param in bad:
        status, body = await call(client, "POST", path, merchant.sk, payload)
        assert status == 400 and body["error"]["param"] == param, (payload.get("filename"), body)
    for name, ctype, content in (("a.png", "image/png", PNG), ("b.jpg", "image/jpeg", JPEG),
                                 ("c.pdf", "application/pdf", PDF), ("d.pdf", "application/pdf", PDF)):
        status, body = await call(client, "POST", path, merchant.sk, _file(name, ctype, content))
        assert status == 201, body
    status, body = await call(client, "POST", path, merchant.sk, _file("f.pdf", "application/pdf", PDF))
    assert status == 400 and body["error"]["code"] == "too_many_files"
    assert len((await get(client, f"/api/disputes/{d['id']}", merchant.sk))["evidence"]["files"]) == 5
    # submitting the text keeps the files; afterwards the dispute takes none: 409
    status, body = await call(client, "POST", f"/api/disputes/{d['id']}/evidence", merchant.sk,
                              {"uncategorized_text": "Signed delivery receipt attached"})
    assert status == 200 and len(body["evidence"]["files"]) == 5 and body["status"] == "under_review"
    status, body = await call(client, "POST", path, merchant.sk, _file("late.pdf", "application/pdf", PDF))
    assert status == 409 and body["error"]["code"] == "dispute_not_open"
    # GraphQL: the same files, typed
    status, body = await gql(client, """query($id: ID!) { dispute(id: $id) {
        evidenceFiles { id filename contentType size sha256 } } }""", {"id": d["id"]}, key=merchant.sk)
    files = body["data"]["dispute"]["evidenceFiles"]
    assert [x["filename"] for x in files] == ["receipt.pdf", "a.png", "b.jpg", "c.pdf", "d.pdf"]


async def test_graphql_evidence_file_add_and_its_user_errors(client, merchant, clock):
    d = await _dispute(client, merchant, clock)
    m = """mutation($i: DisputeEvidenceFileAddInput!) { disputeEvidenceFileAdd(input: $i) {
        dispute { evidenceFiles { filename contentType } } userErrors { code field } } }"""
    ok = {"disputeId": d["id"], "filename": "scan.jpg", "contentType": "image/jpeg",
          "contentBase64": base64.b64encode(JPEG).decode()}
    status, body = await gql(client, m, {"i": ok}, key=merchant.sk)
    assert body["data"]["disputeEvidenceFileAdd"]["dispute"]["evidenceFiles"] == [
        {"filename": "scan.jpg", "contentType": "image/jpeg"}]
    status, body = await gql(client, m, {"i": {**ok, "contentType": "image/png"}}, key=merchant.sk)
    assert body["data"]["disputeEvidenceFileAdd"]["userErrors"] == [{"code": "invalid_request", "field": "contentType"}]


async def test_a_view_only_member_cannot_attach_evidence(client, merchant, mailer, clock):
    d = await _dispute(client, merchant, clock)
    owner = (await auth.open_session(await Member.get(merchant_id=merchant.id, email=merchant.email))).token
    _, viewer = await add_member(client, mailer, owner, ["view_only"])
    status, body = await call(client, "POST", f"/api/disputes/{d['id']}/evidence/files", viewer,
                              _file("a.pdf", "application/pdf", PDF))
    assert status == 403 and body["error"]["code"] == "permission_denied"


VIEWER = """{ viewer { country market timeZone today member { email language digits
  memberships { merchantId merchantName roles } } } }"""


async def test_viewer_today_follows_the_market_zone_and_the_test_clock(client, merchant, clock):
    status, _ = await call(client, "PUT", "/api/merchant", merchant.sk, {"country": "KW"})
    assert status == 200
    clock.set(at(2026, 3, 10, 21, 30))                 # 00:30 on the 11th in Kuwait (UTC+3)
    owner = (await auth.open_session(await Member.get(merchant_id=merchant.id, email=merchant.email))).token
    status, body = await gql(client, VIEWER, key=owner)
    v = body["data"]["viewer"]
    assert (v["country"], v["market"], v["timeZone"], v["today"]) == ("KW", "KW", "Asia/Kuwait", "2026-03-11")
    status, _ = await call(client, "PUT", "/api/merchant", merchant.sk, {"country": "TR"})
    status, body = await gql(client, VIEWER, key=owner)
    assert (body["data"]["viewer"]["timeZone"], body["data"]["viewer"]["today"]) == ("Europe/Istanbul", "2026-03-11")
    clock.set(at(2026, 3, 10, 20, 30))                 # 23:30 in Istanbul
    status, body = await gql(client, VIEWER, key=owner)
    assert body["data"]["viewer"]["today"] == "2026-03-10"


async def test_preferences_are_saved_and_checked(client, merchant):
    owner = (await auth.open_session(await Member.get(merchant_id=merchant.id, email=merchant.email))).token
    m = """mutation($i: MemberPreferencesUpdateInput!) { memberPreferencesUpdate(input: $i) {
        member { language digits } userErrors { code field } } }"""
    status, body = await gql(client, m, {"i": {"language": "ar", "digits": "latn"}}, key=owner)
    assert body["data"]["memberPreferencesUpdate"] == {"member": {"language": "ar", "digits": "latn"}, "userErrors": []}
    status, body = await gql(client, m, {"i": {"language": "fr"}}, key=owner)
    assert body["data"]["memberPreferencesUpdate"]["userErrors"] == [{"code": "invalid_request", "field": "language"}]
    status, body = await gql(client, m, {"i": {"digits": None}}, key=owner)
    assert body["data"]["memberPreferencesUpdate"]["member"] == {"language": "ar", "digits": None}
    status, body = await gql(client, VIEWER, key=owner)
    assert body["data"]["viewer"]["member"]["language"] == "ar"
    status, body = await gql(client, m, {"i": {"language": "en"}}, key=merchant.sk)        # an API key: no member
    assert body["data"] is None and body["errors"][0]["extensions"]["code"] == "member_required", body


async def test_merchant_switcher_opens_a_cookie_session_on_the_other_merchant(client, merchant, make_merchant, mailer):
    other = await make_merchant()
    owner_other = (await auth.open_session(await Member.get(merchant_id=other.id, email=other.email))).token
    status, inv = await call(client, "POST", "/api/team/invites", owner_other,
                             {"email": merchant.email, "roles": ["support"]})
    assert status == 201, inv
    from tests.team_fixtures import invite_token
    status, _ = await call(client, "POST", "/api/team/invites/accept", None,
                           {"token": invite_token(mailer, merchant.email)})
    assert status == 200
    signed = await sign_in(client, mailer, merchant.email, merchant_id=merchant.id, session="cookie")
    csrf = signed["csrf_token"]
    me = await Member.get(merchant_id=merchant.id, email=merchant.email)
    s = await auth.open_session(me, kind="cookie")
    headers = cookie_header(s.cookie, s.csrf_token)
    r = await client.post("/graphql", json={"query": VIEWER}, headers=headers)
    ships = (await r.json())["data"]["viewer"]["member"]["memberships"]
    assert {x["merchantId"]: x["roles"] for x in ships} == {merchant.id: ["owner"], other.id: ["support"]}
    switch = """mutation($id: ID!) { sessionSwitchMerchant(input: {merchantId: $id}) {
        csrfToken merchantId twoFactor userErrors { code field } } }"""
    r = await client.post("/graphql", json={"query": switch, "variables": {"id": other.id}}, headers=headers)
    body = (await r.json())["data"]["sessionSwitchMerchant"]
    assert body["merchantId"] == other.id and body["csrfToken"] and body["twoFactor"] == "not_enrolled"
    jar = set_cookie(r)
    assert jar["qafila_session"]["httponly"] and not jar["qafila_csrf"]["httponly"]
    assert jar["qafila_csrf"].value == body["csrfToken"] and jar["qafila_csrf"]["samesite"] == "Strict"
    client.session.cookie_jar.clear()
    r = await client.post("/graphql", json={"query": "{ viewer { id member { roles } } }"},
                          headers=cookie_header(jar["qafila_session"].value, jar["qafila_csrf"].value))
    got = await r.json()
    assert "errors" not in got, got
    v = got["data"]["viewer"]
    assert v["id"] == other.id and v["member"]["roles"] == ["support"]
    # a merchant the e-mail does not belong to; and without the CSRF token the write is refused
    r = await client.post("/graphql", json={"query": switch, "variables": {"id": "mer_nope"}}, headers=headers)
    assert (await r.json())["data"]["sessionSwitchMerchant"]["userErrors"][0]["field"] == "merchantId"
    r = await client.post("/graphql", json={"query": switch, "variables": {"id": other.id}},
                          headers=cookie_header(s.cookie))
    assert r.status == 403 or "errors" in await r.json()
    assert csrf     # the REST sign-in's cookie session answered its token too


async def test_graphql_sign_in_with_a_cookie_sets_the_csrf_cookie(client, merchant, mailer):
    email = uniq("signin")
    r = await client.post("/graphql", json={"query": 'mutation($e: String!) { otpRequest(input: {email: $e}) '
                                                     '{ requestId } }', "variables": {"e": email}})
    request_id = (await r.json())["data"]["otpRequest"]["requestId"]
    import re
    code = re.search(r"\b(\d{6})\b", mailer.sent[-1].text).group(1)
    r = await client.post("/graphql", json={"query": """mutation($r: String!, $o: String!) {
        otpVerify(input: {requestId: $r, otp: $o, session: COOKIE}) { csrfToken token } }""",
                                            "variables": {"r": request_id, "o": code}})
    body = (await r.json())["data"]["otpVerify"]
    jar = set_cookie(r)
    assert body["token"] is None and jar["qafila_csrf"].value == body["csrfToken"]
    assert jar["qafila_session"]["httponly"] and not jar["qafila_csrf"]["httponly"]


async def test_crm_on_the_main_graphql_for_a_member_session(client, merchant, mailer):
    owner = (await auth.open_session(await Member.get(merchant_id=merchant.id, email=merchant.email))).token
    m = """mutation($i: DealCreateInput!) { dealCreate(input: $i) { deal { id title stage } userErrors { code field } } }"""
    status, body = await gql(client, "{ crm { deals { totalCount } } }", key=owner)
    assert status == 200 and body["data"]["crm"]["deals"]["totalCount"] == 0, body
    status, body = await gql(client, """mutation { crmCustomerCreate(input: {name: "Dar Al Souq"}) {
        customer { id } userErrors { code } } }""", key=owner)
    cid = body["data"]["crmCustomerCreate"]["customer"]["id"]
    status, body = await gql(client, m, {"i": {"title": "Souq fit-out", "value": 125000, "currency": "SAR",
                                              "customerId": cid}}, key=owner)
    assert status == 200 and body["data"]["dealCreate"]["userErrors"] == [], body
    deal = body["data"]["dealCreate"]["deal"]
    status, body = await gql(client, "{ crm { deals { totalCount } } }", key=owner)
    assert body["data"]["crm"]["deals"]["totalCount"] == 1
    # an API key has no CRM company: 401 as before; a view_only member lacks crm_write
    status, body = await gql(client, "{ crm { deals { totalCount } } }", key=merchant.sk)
    assert body["errors"][0]["extensions"]["code"] in ("missing_token", "unauthenticated"), body
    _, viewer = await add_member(client, mailer, owner, ["view_only"])
    status, body = await gql(client, m, {"i": {"title": "x", "value": 1, "currency": "SAR", "customerId": cid}},
                             key=viewer)
    assert body["errors"][0]["extensions"]["code"] == "permission_denied", body
    assert deal["id"]


async def test_the_payment_timeline_fields_captured_voided_and_refunds(client, merchant, clock):
    status, p = await pay(client, merchant.sk, amount=12345, currency="KWD")
    assert status == 200, p
    for amount, reason in ((1000, "damaged"), (345, None)):
        clock.advance(seconds=60)
        status, r = await call(client, "POST", f"/api/payments/{p['id']}/refund", merchant.sk,
                               {"amount": amount, **({"reason": reason} if reason else {})})
        assert status == 200, r
    q = """query($id: ID!) { payment(id: $id) { capturedAt voidedAt amountRefunded
        refunds { id amount currency reason createdAt } } }"""
    status, body = await gql(client, q, {"id": p["id"]}, key=merchant.sk)
    got = body["data"]["payment"]
    assert got["capturedAt"] and got["voidedAt"] is None and got["amountRefunded"] == 1345
    assert [(r["amount"], r["currency"], r["reason"]) for r in got["refunds"]] == [(1000, "KWD", "damaged"),
                                                                                  (345, "KWD", None)]
    assert got["refunds"][0]["createdAt"] < got["refunds"][1]["createdAt"]
    # an authorization not captured: no capture time, no refunds (and no read of them)
    status, auth_ = await pay(client, merchant.sk, amount=500, currency="SAR", capture=False)
    status, body = await gql(client, q, {"id": auth_["id"]}, key=merchant.sk)
    assert body["data"]["payment"]["capturedAt"] is None and body["data"]["payment"]["refunds"] == []
