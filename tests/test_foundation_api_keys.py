"""API keys over REST and GraphQL: create, list, revoke, modes, tenancy, last_used."""
import os

from models.team import Member
from models.core import ApiKey
from services.identity import api_keys, auth
from tests.conftest import bearer, gql
from tests.payments_fixtures import count_statements


async def test_create_returns_the_full_key_once_and_stores_only_a_hash(client, merchant):
    resp = await client.post("/api/api-keys", json={"name": "backend", "mode": "test"}, headers=bearer(merchant.sk))
    assert resp.status == 200
    body = await resp.json()
    assert body["id"].startswith("key_") and body["key"].startswith("sk_test_")
    assert body["prefix"] == body["key"][:12] and body["mode"] == "test" and body["name"] == "backend"
    row = await ApiKey.get(id=body["id"])
    assert body["key"] not in (row.key_hash, row.prefix)
    assert len(row.key_hash) == 64
    listed = await (await client.get("/api/api-keys", headers=bearer(merchant.sk))).json()
    assert body["id"] in [k["id"] for k in listed["data"]]
    assert all("key" not in k for k in listed["data"])
    assert set(listed["data"][0]) >= {"id", "prefix", "mode", "created_at", "last_used"}
    assert listed["has_more"] is False


async def test_publishable_key_creation(client, merchant):
    resp = await client.post("/api/api-keys", json={"mode": "test", "type": "publishable"}, headers=bearer(merchant.sk))
    assert resp.status == 200
    assert (await resp.json())["key"].startswith("pk_test_")


async def test_revoked_key_fails_on_its_next_request(client, merchant):
    new = await (await client.post("/api/api-keys", json={"name": "tmp"}, headers=bearer(merchant.sk))).json()
    assert (await client.get("/api/api-keys", headers=bearer(new["key"]))).status == 200
    resp = await client.put(f"/api/api-keys/{new['id']}/revoke", headers=bearer(merchant.sk))
    assert resp.status == 200
    assert (await resp.json())["status"] == "revoked"
    resp = await client.get("/api/api-keys", headers=bearer(new["key"]))
    assert resp.status == 401
    assert (await resp.json())["error"] == {**(await resp.json())["error"], "message": "Invalid API key",
                                            "code": "invalid_api_key"}
    again = await client.put(f"/api/api-keys/{new['id']}/revoke", headers=bearer(merchant.sk))
    assert again.status == 200 and (await again.json())["status"] == "revoked"


async def test_a_revoked_key_used_after_its_tombstone_expired_costs_no_database_read(client, merchant, backend):
    """An integration still sending a key rolled long ago: once its tombstone has expired, the next
    request reads the database once and puts the tombstone back; the ones after it read nothing.
    A digest no key ever had is not cached (garbage cannot fill the store): it is read each time."""
    new = await (await client.post("/api/api-keys", json={"name": "old"}, headers=bearer(merchant.sk))).json()
    await client.put(f"/api/api-keys/{new['id']}/revoke", headers=bearer(merchant.sk))
    slot = api_keys._cache_slot(api_keys.key_hash(new["key"]))
    kv = backend.runtime.kv
    await kv.delete(slot)                               # the tombstone's time ran out
    with count_statements() as first:
        assert (await client.get("/api/api-keys", headers=bearer(new["key"]))).status == 401
    assert len(first) == 1 and await kv.get(slot) == "revoked"
    with count_statements() as after:
        for _ in range(3):
            resp = await client.get("/api/api-keys", headers=bearer(new["key"]))
            assert resp.status == 401 and (await resp.json())["error"]["message"] == "Invalid API key"
    assert after == []
    unknown = "sk_test_" + "x" * 32
    with count_statements() as reads:
        for _ in range(2):
            assert (await client.get("/api/api-keys", headers=bearer(unknown))).status == 401
    assert len(reads) == 2 and await kv.get(api_keys._cache_slot(api_keys.key_hash(unknown))) is None


async def test_missing_or_malformed_credentials_are_401(client, merchant):
    for headers in ({}, {"Authorization": merchant.sk}, {"Authorization": "Basic abc"},
                    {"Authorization": "Bearer sk_test_nope"}, {"Authorization": "Bearer "},
                    bearer(merchant.pk)):
        resp = await client.get("/api/api-keys", headers=headers)
        assert resp.status == 401, headers
        assert (await resp.json())["error"]["message"] == "Invalid API key"


async def test_another_tenants_key_is_404(client, merchant, make_merchant):
    other = await make_merchant()
    theirs = (await (await client.get("/api/api-keys", headers=bearer(other.sk))).json())["data"][0]["id"]
    resp = await client.put(f"/api/api-keys/{theirs}/revoke", headers=bearer(merchant.sk))
    assert resp.status == 404
    assert (await resp.json())["error"]["message"] == "Resource not found"
    assert (await ApiKey.get(id=theirs)).status == "active"
    assert (await client.put("/api/api-keys/key_unknown/revoke", headers=bearer(merchant.sk))).status == 404


async def test_test_key_cannot_create_a_live_key_but_a_session_can(client, merchant):
    resp = await client.post("/api/api-keys", json={"mode": "live"}, headers=bearer(merchant.sk))
    assert resp.status == 400
    assert (await resp.json())["error"]["param"] == "mode"
    assert not await ApiKey.exists(merchant_id=merchant.id, livemode=True)

    session = await auth.open_session(await Member.get(merchant_id=merchant.id))
    resp = await client.post("/api/api-keys", json={"mode": "live", "name": "prod"}, headers=bearer(session.token))
    assert resp.status == 200
    live = await resp.json()
    assert live["key"].startswith("sk_live_") and live["prefix"].startswith("sk_live_") and live["mode"] == "live"


async def test_test_keys_see_test_data_only_and_live_keys_live_data_only(client, merchant):
    session = await auth.open_session(await Member.get(merchant_id=merchant.id))
    live = await (await client.post("/api/api-keys", json={"mode": "live"}, headers=bearer(session.token))).json()
    live_view = await (await client.get("/api/api-keys", headers=bearer(live["key"]))).json()
    test_view = await (await client.get("/api/api-keys", headers=bearer(merchant.sk))).json()
    assert {k["mode"] for k in live_view["data"]} == {"live"}
    assert {k["mode"] for k in test_view["data"]} == {"test"}
    # a live key cannot revoke a test key: it is not in its world
    test_key_id = test_view["data"][0]["id"]
    assert (await client.put(f"/api/api-keys/{test_key_id}/revoke", headers=bearer(live["key"]))).status == 404


async def test_last_used_is_kept(client, merchant, clock):
    key_id = next(k["id"] for k in (await (await client.get("/api/api-keys", headers=bearer(merchant.sk))).json())["data"]
                  if k["prefix"] == merchant.sk[:12])
    first = (await ApiKey.get(id=key_id)).last_used
    assert first == clock.now()
    clock.advance(seconds=30)
    await client.get("/api/api-keys", headers=bearer(merchant.sk))
    assert (await ApiKey.get(id=key_id)).last_used == first     # kept to the minute
    clock.advance(seconds=31)
    await client.get("/api/api-keys", headers=bearer(merchant.sk))
    assert (await ApiKey.get(id=key_id)).last_used == clock.now()


async def test_list_pagination(client, merchant):
    for i in range(4):
        await client.post("/api/api-keys", json={"name": f"k{i}"}, headers=bearer(merchant.sk))
    first = await (await client.get("/api/api-keys?limit=2", headers=bearer(merchant.sk))).json()
    assert len(first["data"]) == 2 and first["has_more"] is True and first["total"] == 6
    second = await (await client.get(f"/api/api-keys?limit=5&starting_after={first['data'][-1]['id']}",
                                     headers=bearer(merchant.sk))).json()
    assert len(second["data"]) == 4 and second["has_more"] is False
    assert not {k["id"] for k in first["data"]} & {k["id"] for k in second["data"]}


# ------------------------------------------------------------------ GraphQL

CREATE = """mutation($input: ApiKeyCreateInput!) { apiKeyCreate(input: $input) {
  key apiKey { id prefix mode status } userErrors { code message field } } }"""
REVOKE = """mutation($id: ID!) { apiKeyRevoke(input: {id: $id}) { apiKey { id status } userErrors { code field } } }"""
KEYS = """{ viewer { id } apiKeys(first: 10) { totalCount edges { cursor node { id prefix mode } } pageInfo { hasNextPage } } }"""


async def test_graphql_api_keys_behave_as_rest(client, merchant):
    status, body = await gql(client, CREATE, {"input": {"name": "gql", "mode": "TEST"}}, key=merchant.sk)
    assert status == 200 and "errors" not in body
    created = body["data"]["apiKeyCreate"]
    assert created["key"].startswith("sk_test_") and created["userErrors"] == []
    row = await ApiKey.get(id=created["apiKey"]["id"])
    assert row.livemode is False and row.kind == "secret" and row.name == "gql"

    status, body = await gql(client, KEYS, key=merchant.sk)
    assert body["data"]["viewer"]["id"] == merchant.id
    assert body["data"]["apiKeys"]["totalCount"] == 3
    rest = await (await client.get("/api/api-keys", headers=bearer(merchant.sk))).json()
    assert [e["node"]["id"] for e in body["data"]["apiKeys"]["edges"]] == [k["id"] for k in rest["data"]]

    status, body = await gql(client, REVOKE, {"id": created["apiKey"]["id"]}, key=merchant.sk)
    assert body["data"]["apiKeyRevoke"]["apiKey"]["status"] == "revoked"
    status, body = await gql(client, KEYS, key=created["key"])
    assert body["data"] is None
    assert body["errors"][0]["extensions"]["code"] == "invalid_api_key"
    assert body["errors"][0]["extensions"]["status"] == 401


async def test_graphql_expected_failures_are_user_errors(client, merchant, make_merchant):
    status, body = await gql(client, CREATE, {"input": {"mode": "LIVE"}}, key=merchant.sk)
    assert body["data"]["apiKeyCreate"]["userErrors"] == [
        {"code": "live_mode_required", "field": "mode",
         "message": "a test key cannot create live keys: sign in (verify-otp) or use a live secret key"}]
    assert body["data"]["apiKeyCreate"]["key"] is None
    status, body = await gql(client, CREATE, {"input": {"name": "x" * 101}}, key=merchant.sk)
    assert body["data"]["apiKeyCreate"]["userErrors"][0]["field"] == "name"
    other = await make_merchant()
    theirs = (await (await client.get("/api/api-keys", headers=bearer(other.sk))).json())["data"][0]["id"]
    status, body = await gql(client, REVOKE, {"id": theirs}, key=merchant.sk)
    assert body["data"]["apiKeyRevoke"]["userErrors"] == [{"code": "resource_not_found", "field": "id"}]
    assert (await ApiKey.get(id=theirs)).status == "active"


async def test_graphql_unknown_enum_value_is_a_validation_error(client, merchant):
    status, body = await gql(client, CREATE, {"input": {"mode": "STAGING"}}, key=merchant.sk)
    assert body["errors"][0]["extensions"]["code"] == "graphql_validation_failed"
    assert await ApiKey.filter(merchant_id=merchant.id).count() == 2


async def test_graphql_node_resolves_prefixed_ids_within_the_tenant(client, merchant, make_merchant):
    keys = (await (await client.get("/api/api-keys", headers=bearer(merchant.sk))).json())["data"]
    q = "query($id: ID!) { node(id: $id) { id ... on ApiKey { prefix } ... on Merchant { email } } }"
    _, body = await gql(client, q, {"id": keys[0]["id"]}, key=merchant.sk)
    assert body["data"]["node"] == {"id": keys[0]["id"], "prefix": keys[0]["prefix"]}
    _, body = await gql(client, q, {"id": merchant.id}, key=merchant.sk)
    assert body["data"]["node"]["email"] == merchant.email
    other = await make_merchant()
    _, body = await gql(client, q, {"id": other.id}, key=merchant.sk)
    assert body["errors"][0]["extensions"]["code"] == "resource_not_found"
    assert body["errors"][0]["extensions"]["status"] == 404


async def test_graphql_otp_sign_in(client, mailer):
    import re
    email = f"gql-{os.urandom(4).hex()}@example.com"
    _, body = await gql(client, "mutation($e: String!) { otpRequest(input: {email: $e}) { requestId expiresIn userErrors { field } } }",
                        {"e": email})
    rid = body["data"]["otpRequest"]["requestId"]
    code = re.search(r"\b(\d{6})\b", mailer.sent[-1].text).group(1)
    _, body = await gql(client, "mutation($r: String!, $o: String!) { otpVerify(input: {requestId: $r, otp: $o}) { token merchantId } }",
                        {"r": rid, "o": "000000" if code != "000000" else "111111"})
    assert body["errors"][0]["extensions"]["code"] == "invalid_otp"
    _, body = await gql(client, "mutation($r: String!, $o: String!) { otpVerify(input: {requestId: $r, otp: $o}) { token merchantId } }",
                        {"r": rid, "o": code})
    token = body["data"]["otpVerify"]["token"]
    _, body = await gql(client, "{ viewer { id email } }", key=token)
    assert body["data"]["viewer"]["email"] == email
    _, body = await gql(client, 'mutation { otpRequest(input: {email: "nope"}) { requestId userErrors { code field } } }')
    assert body["data"]["otpRequest"]["userErrors"] == [{"code": "invalid_request", "field": "email"}]


async def test_graphql_amounts_are_not_32_bit(client, merchant):
    _, body = await gql(client, '{ __type(name: "MinorAmount") { kind } }', key=merchant.sk)
    assert body["data"]["__type"]["kind"] == "SCALAR"


async def test_crm_token_on_the_crm_graphql_asking_for_merchant_data_is_401_not_500(aiohttp_client, settings, clock):
    from app.server import create_app
    crm = await aiohttp_client(create_app(settings, kind="crm", clock=clock))
    signup = await (await crm.post("/api/auth/signup", json={"email": f"gqlcrm-{os.urandom(4).hex()}@example.com", "password": "Horse-Battery-9!",
                                                             "name": "Ada", "company_name": "Acme"})).json()
    _, body = await gql(crm, "{ viewer { id } }", key=signup["access_token"])
    assert body["errors"][0]["extensions"]["status"] == 401
