"""One identity on the CRM port: a member's session is a CRM credential; the merchant's company
and the member's CRM user are made at first use; crm_read / crm_write are enforced there too; a
sales member sees only its own commissions; password users are untouched."""
from __future__ import annotations

from models.billing import MerchantProfile
from models.crm import User
from models.team import Member
from services.identity import auth
from tests.conftest import bearer
from tests.crm_fixtures import crm, signup  # noqa: F401


async def _member_session(merchant, roles: list[str], email: str | None = None) -> str:
    owner = await Member.get(merchant_id=merchant.id, email=merchant.email)
    if roles == ["owner"] and email is None:
        return (await auth.open_session(owner)).token
    from services.ids import new_id
    from services.infra.runtime import runtime
    m = await Member.create(id=new_id("mbr"), merchant_id=merchant.id, email=email or f"x-{new_id('t')}@example.com",
                            roles=roles, created_at=runtime().clock.now())
    return (await auth.open_session(m)).token


async def test_an_owner_uses_the_crm_with_its_session_and_the_company_is_made_once(client, crm, merchant):
    token = await _member_session(merchant, ["owner"])
    r = await crm.get("/api/me", headers=bearer(token))
    assert r.status == 200, await r.text()
    me = await r.json()
    profile = await MerchantProfile.get(merchant_id=merchant.id)
    assert profile.crm_company_id is not None
    user = await User.get(email=merchant.email)
    assert user.company_id == profile.crm_company_id and user.role == "admin"
    # a second request finds the same company and user
    r = await crm.post("/api/customers", json={"name": "Layla", "email": "layla@example.com"}, headers=bearer(token))
    assert r.status == 201, await r.text()
    assert (await MerchantProfile.get(merchant_id=merchant.id)).crm_company_id == profile.crm_company_id
    assert await User.filter(email=merchant.email).count() == 1
    assert me is not None
    # password sign-in never works for a member's CRM user (it has no password)
    r = await crm.post("/api/auth/login", json={"email": merchant.email, "password": "Correct-Horse-9-Battery"})
    assert r.status == 401


async def test_crm_permissions_follow_the_roles(client, crm, merchant):
    owner = await _member_session(merchant, ["owner"])
    assert (await crm.get("/api/customers", headers=bearer(owner))).status == 200
    view_only = await _member_session(merchant, ["view_only"])      # no crm permission at all
    r = await crm.get("/api/customers", headers=bearer(view_only))
    assert r.status == 403
    assert (await r.json())["error"]["code"] == "permission_denied"
    support = await _member_session(merchant, ["support"])          # crm read only
    assert (await crm.get("/api/customers", headers=bearer(support))).status == 200
    r = await crm.post("/api/customers", json={"name": "Omar"}, headers=bearer(support))
    assert r.status == 403
    assert (await r.json())["error"]["permission"] == "crm_write"
    sales = await _member_session(merchant, ["sales"])
    assert (await crm.post("/api/customers", json={"name": "Omar"}, headers=bearer(sales))).status == 201


async def test_a_sales_member_sees_only_its_own_commissions(client, crm, merchant):
    owner = await _member_session(merchant, ["owner"])
    sales = await _member_session(merchant, ["sales"], email="seller@example.com")
    await crm.get("/api/me", headers=bearer(owner))
    await crm.get("/api/me", headers=bearer(sales))
    seller = await User.get(email="seller@example.com")
    admin = await User.get(email=merchant.email)
    cust = await (await crm.post("/api/customers", json={"name": "Nour"}, headers=bearer(owner))).json()
    for owner_id in (seller.id, admin.id):
        d = await (await crm.post("/api/deals", json={"title": "Order", "customer_id": cust["id"], "value": 100000,
                                                       "currency": "SAR", "owner_id": owner_id},
                                  headers=bearer(owner))).json()
        assert "id" in d, d
        r = await crm.put(f"/api/deals/{d['id']}", json={"stage": "won"}, headers=bearer(owner))
        assert r.status == 200, await r.text()
    everyone = await (await crm.get("/api/commissions", headers=bearer(owner))).json()
    assert {c["user_id"] for c in everyone["data"]} == {seller.id, admin.id}
    own = await (await crm.get("/api/commissions", headers=bearer(sales))).json()
    assert [c["user_id"] for c in own["data"]] == [seller.id]


async def test_password_users_keep_their_accounts(client, crm, merchant):
    acct = await signup(crm)
    assert (await crm.get("/api/me", headers=acct.h)).status == 200
    # a member whose e-mail already has a password account of another company is told so
    token = await _member_session(merchant, ["owner"], email=acct.email)
    r = await crm.get("/api/me", headers=bearer(token))
    assert r.status == 409
    assert (await r.json())["error"]["code"] == "crm_email_taken"
