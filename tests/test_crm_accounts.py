"""CRM accounts: signup, login (throttled), refresh rotation with reuse detection, logout, and
every kind of bad access token answering 401 with a JSON error."""
from __future__ import annotations

import base64

import jwt
import orjson

from models.crm import Company, SessionFamily, User
from tests.crm_fixtures import PASSWORD, crm, crm_runtime, new_email, signup  # noqa: F401


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def error_of(resp, status: int, code: str) -> dict:
    assert resp.status == status, await resp.text()
    assert resp.content_type == "application/json"
    body = await resp.json()
    assert body["error"]["code"] == code, body
    return body["error"]


async def test_signup_creates_user_company_and_tokens(crm):
    email = new_email()
    r = await crm.post("/api/auth/signup", json={"email": email, "password": PASSWORD, "name": "Ada Yilmaz",
                                                 "company_name": "Acme Trading"})
    assert r.status == 201
    b = await r.json()
    assert b["token_type"] == "Bearer" and b["expires_in"] == 900
    assert b["refresh_token"].startswith("rt_")
    assert b["user"]["email"] == email and b["user"]["role"] == "admin" and b["user"]["id"].startswith("usr_")
    assert b["company"]["name"] == "Acme Trading" and b["company"]["plan"] == "free"
    user = await User.get(id=b["user"]["id"])
    assert user.password_hash.startswith("$argon2id$") and PASSWORD not in user.password_hash
    assert (await Company.get(id=b["company"]["id"])).id == user.company_id
    me = await crm.get("/api/me", headers=auth(b["access_token"]))
    assert (await me.json())["user"]["id"] == user.id


async def test_signup_refuses_a_taken_email_and_bad_input(crm):
    a = await signup(crm)
    r = await crm.post("/api/auth/signup", json={"email": a.email, "password": PASSWORD})
    err = await error_of(r, 409, "email_taken")
    assert err["param"] == "email"
    r = await crm.post("/api/auth/signup", json={"email": new_email(), "password": "short"})
    assert (await error_of(r, 400, "invalid_request"))["param"] == "password"
    r = await crm.post("/api/auth/signup", json={"email": "not-an-email", "password": PASSWORD})
    assert (await error_of(r, 400, "invalid_request"))["param"] == "email"
    r = await crm.post("/api/auth/signup", json={"email": new_email(), "password": PASSWORD, "plan": "paid"})
    assert (await error_of(r, 400, "invalid_request"))["param"] == "plan"
    r = await crm.post("/api/auth/signup", data=b"{oops", headers={"Content-Type": "application/json"})
    await error_of(r, 400, "invalid_json")


async def test_login_and_wrong_password(crm):
    a = await signup(crm)
    r = await crm.post("/api/auth/login", json={"email": a.email.upper(), "password": PASSWORD})
    assert r.status == 200
    b = await r.json()
    assert b["user"]["id"] == a.user_id and b["access_token"] and b["refresh_token"] != a.refresh
    r = await crm.post("/api/auth/login", json={"email": a.email, "password": "Wrong-password-1"})
    err = await error_of(r, 401, "invalid_credentials")
    assert err["message"] == "Invalid e-mail or password"
    r = await crm.post("/api/auth/login", json={"email": new_email(), "password": PASSWORD})
    await error_of(r, 401, "invalid_credentials")


async def test_login_failures_are_throttled_per_email(crm, clock):
    a = await signup(crm)
    for _ in range(5):
        r = await crm.post("/api/auth/login", json={"email": a.email, "password": "Wrong-password-1"})
        assert r.status == 401
    # Even the right password is refused now, until the window passes.
    r = await crm.post("/api/auth/login", json={"email": a.email, "password": PASSWORD})
    await error_of(r, 429, "too_many_login_attempts")
    assert int(r.headers["Retry-After"]) > 0
    other = await signup(crm)
    r = await crm.post("/api/auth/login", json={"email": other.email, "password": PASSWORD})
    assert r.status == 200                      # per e-mail, not global
    clock.advance(seconds=900)
    r = await crm.post("/api/auth/login", json={"email": a.email, "password": PASSWORD})
    assert r.status == 200


async def test_refresh_rotates_and_the_old_token_stops_working(crm):
    a = await signup(crm)
    r = await crm.post("/api/auth/refresh", json={"refresh_token": a.refresh})
    assert r.status == 200
    b = await r.json()
    assert b["refresh_token"] != a.refresh and b["access_token"] != a.access
    assert (await crm.get("/api/customers", headers=auth(b["access_token"]))).status == 200
    r2 = await crm.post("/api/auth/refresh", json={"refresh_token": b["refresh_token"]})
    assert r2.status == 200


async def test_refresh_reuse_revokes_the_whole_family(crm):
    a = await signup(crm)
    first = await (await crm.post("/api/auth/refresh", json={"refresh_token": a.refresh})).json()
    # The used token comes back (a thief's copy): 401, and the session is over for everyone.
    r = await crm.post("/api/auth/refresh", json={"refresh_token": a.refresh})
    err = await error_of(r, 401, "refresh_token_reused")
    assert err["message"] == "Refresh token reuse detected: the session has been revoked"
    r = await crm.post("/api/auth/refresh", json={"refresh_token": first["refresh_token"]})
    await error_of(r, 401, "invalid_refresh_token")
    r = await crm.get("/api/customers", headers=auth(first["access_token"]))
    await error_of(r, 401, "token_revoked")
    family = await SessionFamily.filter(user_id=a.user_id).first()
    assert family.revoked_reason == "reuse"
    # Another session of the same user is untouched.
    r = await crm.post("/api/auth/login", json={"email": a.email, "password": PASSWORD})
    assert (await crm.get("/api/customers", headers=auth((await r.json())["access_token"]))).status == 200


async def test_refresh_with_unknown_or_missing_token(crm):
    r = await crm.post("/api/auth/refresh", json={"refresh_token": "rt_nope"})
    await error_of(r, 401, "invalid_refresh_token")
    r = await crm.post("/api/auth/refresh", json={})
    assert (await error_of(r, 400, "invalid_request"))["param"] == "refresh_token"


async def test_refresh_token_expires_after_30_days(crm, clock):
    a = await signup(crm)
    clock.advance(days=30, seconds=1)
    r = await crm.post("/api/auth/refresh", json={"refresh_token": a.refresh})
    err = await error_of(r, 401, "invalid_refresh_token")
    assert err["message"] == "Invalid refresh token: it has expired"


async def test_logout_revokes_the_session(crm):
    a = await signup(crm)
    r = await crm.post("/api/auth/logout", json={"refresh_token": a.refresh}, headers=auth(a.access))
    assert r.status == 200
    assert (await r.json())["revoked"] is True
    await error_of(await crm.get("/api/customers", headers=auth(a.access)), 401, "token_revoked")
    await error_of(await crm.post("/api/auth/refresh", json={"refresh_token": a.refresh}), 401,
                   "invalid_refresh_token")


async def test_logout_with_only_the_access_token(crm):
    a = await signup(crm)
    r = await crm.post("/api/auth/logout", headers=auth(a.access))
    assert r.status == 200
    await error_of(await crm.get("/api/customers", headers=auth(a.access)), 401, "token_revoked")
    await error_of(await crm.post("/api/auth/logout"), 401, "missing_token")


def _b64(obj) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(obj)).rstrip(b"=").decode()


async def test_bad_tokens_are_401_json(crm, crm_runtime, clock):
    a = await signup(crm)
    r = await crm.get("/api/customers")
    err = await error_of(r, 401, "missing_token")
    assert err["message"] == "Missing access token: send Authorization: Bearer <ACCESS_TOKEN>"
    await error_of(await crm.get("/api/customers", headers={"Authorization": "Basic abc"}), 401, "missing_token")
    await error_of(await crm.get("/api/customers", headers=auth("garbage")), 401, "invalid_token")
    # tampered: one character of the payload changed, signature kept
    head, payload, sig = a.access.split(".")
    claims = jwt.decode(a.access, options={"verify_signature": False})
    forged = ".".join([head, _b64({**claims, "role": "admin", "cid": "cmp_other"}), sig])
    await error_of(await crm.get("/api/customers", headers=auth(forged)), 401, "invalid_token")
    await error_of(await crm.get("/api/customers", headers=auth(a.access[:-2] + "xx")), 401, "invalid_token")
    # alg: none
    none_token = f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(claims)}."
    await error_of(await crm.get("/api/customers", headers=auth(none_token)), 401, "invalid_token")
    # signed with another key
    other = jwt.encode(claims, "x" * 64, algorithm="HS256")
    await error_of(await crm.get("/api/customers", headers=auth(other)), 401, "invalid_token")
    # right key, wrong audience (a merchant session token)
    wrong_aud = jwt.encode({**claims, "aud": "qafila-merchant"}, crm_runtime.config.secret_key, algorithm="HS256")
    await error_of(await crm.get("/api/customers", headers=auth(wrong_aud)), 401, "invalid_token")
    # expired: 15 minutes later
    assert (await crm.get("/api/customers", headers=a.h)).status == 200
    clock.advance(seconds=900)
    r = await crm.get("/api/customers", headers=a.h)
    err = await error_of(r, 401, "token_expired")
    assert err["message"] == "Access token expired: refresh it"

