"""GraphQL parity for the CRM: the same services answer REST and GraphQL on the CRM port, with
the same data, the same rules and the same error codes."""
from __future__ import annotations

from models.crm import Commission, Customer
from tests.crm_fixtures import acct, crm, gql, make_account  # noqa: F401

CUSTOMER_CREATE = """
mutation($input: CrmCustomerCreateInput!) {
  crmCustomerCreate(input: $input) { customer { id name email phone tags } userErrors { code message field } }
}"""
CUSTOMER_UPDATE = """
mutation($input: CrmCustomerUpdateInput!) {
  crmCustomerUpdate(input: $input) { customer { id name email phone tags } userErrors { code field } }
}"""
CUSTOMER_DELETE = """
mutation($input: CrmCustomerDeleteInput!) { crmCustomerDelete(input: $input) { deletedId userErrors { code } } }"""
DEAL_CREATE = """
mutation($input: DealCreateInput!) {
  dealCreate(input: $input) { deal { id stage value currency probability ownerId } userErrors { code message field } }
}"""
DEAL_UPDATE = """
mutation($input: DealUpdateInput!) {
  dealUpdate(input: $input) {
    deal { id stage commissions { amount currency status cycle } } userErrors { code field }
  }
}"""
CRM = """
query($stage: String) {
  crm {
    customers(first: 10) { totalCount edges { node { id name phone } } pageInfo { hasNextPage } }
    deals(first: 10, stage: $stage) { totalCount edges { node { id stage value commissions { amount } } } }
    inbox { totalCount conversations { phone unreadCount lastMessage { text } customer { id } } }
    reports { revenue(currency: "TRY") { total totalDecimal dealCount } pipeline(currency: "TRY") { value weightedValue }
              rates { base quote rate rateDate } }
  }
}"""


async def test_customer_mutations_match_rest(crm, acct):
    status, b = await gql(crm, CUSTOMER_CREATE, {"input": {"name": "Layla", "phone": "+90 555 111 22 33",
                                                           "tags": ["VIP"]}}, token=acct.access)
    assert status == 200 and b["data"]["crmCustomerCreate"]["userErrors"] == []
    c = b["data"]["crmCustomerCreate"]["customer"]
    rest = await (await crm.get(f"/api/customers/{c['id']}", headers=acct.h)).json()
    assert {k: rest[k] for k in ("id", "name", "email", "phone", "tags")} == c
    status, b = await gql(crm, CUSTOMER_UPDATE, {"input": {"id": c["id"], "name": "Layla H.", "phone": None}},
                          token=acct.access)
    assert b["data"]["crmCustomerUpdate"]["customer"]["phone"] is None
    assert (await Customer.get(id=c["id"])).name == "Layla H."
    # the same validation, as userErrors with the REST codes and camelCase fields
    status, b = await gql(crm, CUSTOMER_CREATE, {"input": {"name": "X", "phone": "12"}}, token=acct.access)
    assert b["data"]["crmCustomerCreate"] == {"customer": None, "userErrors": [{
        "code": "invalid_request", "field": "phone",
        "message": "phone must be a phone number in international format, e.g. +905551234567"}]}
    r = await crm.post("/api/customers", json={"name": "X", "phone": "12"}, headers=acct.h)
    assert (await r.json())["error"]["message"] == b["data"]["crmCustomerCreate"]["userErrors"][0]["message"]
    status, b = await gql(crm, CUSTOMER_DELETE, {"input": {"id": c["id"]}}, token=acct.access)
    assert b["data"]["crmCustomerDelete"] == {"deletedId": c["id"], "userErrors": []}
    assert (await crm.get(f"/api/customers/{c['id']}", headers=acct.h)).status == 404
    status, b = await gql(crm, CUSTOMER_DELETE, {"input": {"id": c["id"]}}, token=acct.access)
    assert b["data"]["crmCustomerDelete"]["userErrors"] == [{"code": "resource_not_found"}]


async def test_deals_and_commissions_match_rest(crm, acct):
    r = await crm.post("/api/customers", json={"name": "Omar"}, headers=acct.h)
    cid = (await r.json())["id"]
    status, b = await gql(crm, DEAL_CREATE, {"input": {"title": "Big", "customerId": cid, "value": 200_000,
                                                       "currency": "TRY", "stage": "negotiation"}}, token=acct.access)
    d = b["data"]["dealCreate"]["deal"]
    assert (d["stage"], d["probability"], d["ownerId"]) == ("negotiation", 75, acct.user_id)
    for _ in range(2):
        status, b = await gql(crm, DEAL_UPDATE, {"input": {"id": d["id"], "stage": "won"}}, token=acct.access)
    assert b["data"]["dealUpdate"]["deal"]["commissions"] == [{"amount": 10000, "currency": "TRY",
                                                               "status": "active", "cycle": 1}]
    rest = await (await crm.get(f"/api/deals/{d['id']}", headers=acct.h)).json()
    assert [(x["amount"], x["status"]) for x in rest["commissions"]] == [(10000, "active")]
    # REST moves it back; GraphQL sees the reversal
    await crm.put(f"/api/deals/{d['id']}", json={"stage": "lost"}, headers=acct.h)
    status, b = await gql(crm, CRM, {"stage": "lost"}, token=acct.access)
    assert b["data"]["crm"]["deals"]["edges"][0]["node"]["stage"] == "lost"
    assert await Commission.filter(deal_id=d["id"], status="reversed").count() == 1
    status, b = await gql(crm, DEAL_CREATE, {"input": {"title": "x", "customerId": "ccu_nope", "value": 1,
                                                       "currency": "TRY"}}, token=acct.access)
    assert b["data"]["dealCreate"]["userErrors"][0] == {"code": "resource_not_found", "field": "customerId",
                                                        "message": "Resource not found"}


async def test_crm_query_matches_rest(crm, acct):
    r = await crm.post("/api/customers", json={"name": "Zeynep", "phone": "+905320000000"}, headers=acct.h)
    cid = (await r.json())["id"]
    await crm.put("/api/reports/rates", json={"base": "USD", "quote": "TRY", "rate": "34.5", "rate_date": "2026-01-02"},
                  headers=acct.h)
    for value, currency, stage in ((10_000, "USD", "won"), (50_000, "TRY", "lead")):
        await crm.post("/api/deals", json={"title": "t", "customer_id": cid, "value": value, "currency": currency,
                                           "stage": stage}, headers=acct.h)
    status, b = await gql(crm, CRM, token=acct.access)
    assert status == 200 and "errors" not in b, b
    data = b["data"]["crm"]
    assert data["customers"]["totalCount"] == 1 and data["customers"]["edges"][0]["node"]["id"] == cid
    assert data["deals"]["totalCount"] == 2
    revenue = await (await crm.get("/api/reports/revenue?currency=TRY", headers=acct.h)).json()
    assert data["reports"]["revenue"] == {"total": revenue["total"], "totalDecimal": revenue["total_decimal"],
                                          "dealCount": 1}
    assert revenue["total"] == 345_000                                      # 100.00 USD * 34.5
    pipeline = await (await crm.get("/api/reports/pipeline?currency=TRY", headers=acct.h)).json()
    assert data["reports"]["pipeline"] == {"value": pipeline["total"]["value"],
                                           "weightedValue": pipeline["total"]["weighted_value"]}
    assert data["reports"]["rates"][0] == {"base": "USD", "quote": "TRY", "rate": "34.5", "rateDate": "2026-01-02"}
    rest_rates = (await (await crm.get("/api/reports/rates", headers=acct.h)).json())["data"]
    assert data["reports"]["rates"] == [{"base": x["base"], "quote": x["quote"], "rate": x["rate"],
                                         "rateDate": x["rate_date"]} for x in rest_rates]   # then the references
    assert data["inbox"] == {"totalCount": 0, "conversations": []}


async def test_graphql_errors_are_top_level_with_rest_codes(crm, acct, make_account):
    status, b = await gql(crm, "{ crm { customers { totalCount } } }")
    assert b["data"] is None and b["errors"][0]["extensions"]["code"] == "missing_token"
    assert b["errors"][0]["extensions"]["status"] == 401
    status, b = await gql(crm, "{ crm { customers { totalCount } } }", token="not.a.jwt")
    assert b["errors"][0]["extensions"]["code"] == "invalid_token"
    other = await make_account()
    r = await crm.post("/api/customers", json={"name": "Theirs"}, headers=other.h)
    theirs = (await r.json())["id"]
    status, b = await gql(crm, 'query($id: ID!) { crm { customer(id: $id) { name } } }', {"id": theirs},
                          token=acct.access)
    assert b["errors"][0]["extensions"]["code"] == "resource_not_found"
    status, b = await gql(crm, "{ crm { customers(first: 101) { totalCount } } }", token=acct.access)
    assert b["errors"][0]["extensions"]["code"] == "invalid_request"
    status, b = await gql(crm, CUSTOMER_UPDATE, {"input": {"id": theirs, "name": "Mine"}}, token=acct.access)
    assert b["data"]["crmCustomerUpdate"]["userErrors"] == [{"code": "resource_not_found", "field": "id"}]
    assert (await Customer.get(id=theirs)).name == "Theirs"


MESSAGE_SEND = """
mutation($input: MessageSendInput!) {
  messageSend(input: $input) { message { id status direction platformMessageId text } userErrors { code field } }
}"""


async def test_message_send_through_graphql_uses_the_same_service(crm, acct, aiohttp_server):
    from aiohttp import web

    from app.server import BACKEND

    seen = []

    async def messages(request):
        seen.append(await request.json())
        return web.json_response({"messages": [{"id": "wamid.GQL1"}]})

    app = web.Application()
    app.router.add_post("/{version}/{pnid}/messages", messages)
    server = await aiohttp_server(app)
    cfg = crm.app[BACKEND].runtime.config
    cfg.messaging_graph_url, cfg.messaging_access_token = str(server.make_url("")).rstrip("/"), "tok"
    await crm.put("/api/company", json={"phone_number_id": f"pn-{acct.company_id}"}, headers=acct.h)
    status, b = await gql(crm, MESSAGE_SEND, {"input": {"to": "+905551112233", "text": "Merhaba"}},
                          token=acct.access)
    assert b["data"]["messageSend"]["message"] == {"id": b["data"]["messageSend"]["message"]["id"], "status": "sent",
                                                   "direction": "outbound", "platformMessageId": "wamid.GQL1",
                                                   "text": "Merhaba"}
    assert seen[0]["to"] == "905551112233"
    status, b = await gql(crm, MESSAGE_SEND, {"input": {"text": "x"}}, token=acct.access)
    assert b["data"]["messageSend"]["userErrors"] == [{"code": "invalid_request", "field": "customerId"}]
    r = await crm.get("/api/messaging/inbox", headers=acct.h)
    assert (await r.json())["data"][0]["last_message"]["text"] == "Merhaba"
