"""Members' sessions (issue 44): the `qafila_session` cookie (HttpOnly, SameSite=Strict, Path=/,
Secure unless QAFILA_ENV=development) and its CSRF token on writes (REST and /graphql), idle expiry
(QAFILA_SESSION_IDLE_SECONDS, 1800) and the 12 hours at most, the member's session list (current,
device by ua-parser), revoking one or the others, and sign-out."""
from __future__ import annotations

from datetime import timedelta

import pytest

from app.settings import SettingsError, load_settings
from models.team import AuditEvent, MemberSession
from services.timestamps import iso
from tests.team_fixtures import (UA_IPHONE, UA_MAC_CHROME, add_member, call, cookie_header, error, owner_token,
                                 set_cookie, sign_in, uniq, verify_otp)

VIEWER = "{ viewer { id } }"


async def cookie_sign_in(client, mailer, email: str, headers: dict | None = None):
    resp, body = await verify_otp(client, mailer, email, headers=headers, session="cookie")
    assert resp.status == 200, body
    client.session.cookie_jar.clear()          # every request below names its cookie itself
    return resp, body


async def test_a_cookie_session_needs_its_csrf_token_on_every_write(client, merchant, mailer):
    resp, body = await cookie_sign_in(client, mailer, merchant.email)
    assert "token" not in body and body["csrf_token"] and body["session_id"].startswith("sess_")
    assert body["merchant_id"] == merchant.id and body["two_factor"] == "not_enrolled"
    jar = set_cookie(resp)
    assert sorted(jar) == ["qafila_csrf", "qafila_session"]
    morsel = jar["qafila_session"]
    assert morsel.key == "qafila_session" and morsel.value.startswith(body["session_id"] + ".")
    assert (morsel["httponly"], morsel["samesite"], morsel["path"], morsel["secure"]) == (True, "Strict", "/", True)
    assert body["csrf_token"] not in morsel.value
    # the CSRF token's own cookie: for the dashboard's script (not HttpOnly), sent to no other site
    token = jar["qafila_csrf"]
    assert (token.value, token["httponly"], token["samesite"], token["path"], token["secure"]) == \
        (body["csrf_token"], "", "Strict", "/", True)
    cookie, csrf = morsel.value, body["csrf_token"]

    # reads need no CSRF token; writes do, on /api and /v1
    status, me = await call(client, "GET", "/api/me", headers=cookie_header(cookie))
    assert status == 200 and me["email"] == merchant.email
    assert (await call(client, "GET", "/v1/payments", headers=cookie_header(cookie)))[0] == 200
    for path, payload in (("/api/customers", {"email": uniq("c")}),
                          ("/v1/payments/intent", {"amount": 1000, "currency": "TRY", "payment_method": "card"})):
        for headers in (cookie_header(cookie), cookie_header(cookie, "wrong"), cookie_header(cookie, "")):
            status, got = await call(client, "POST", path, body=payload, headers=headers)
            assert status == 403 and error(got)["code"] == "csrf_failed", (path, headers, got)
        status, got = await call(client, "POST", path, body=payload, headers=cookie_header(cookie, csrf))
        assert status in (200, 201), (path, got)
    status, got = await call(client, "PUT", "/api/merchant", body={"name": "Renamed"}, headers=cookie_header(cookie))
    assert status == 403 and error(got)["code"] == "csrf_failed"
    assert (await call(client, "GET", "/api/merchant", merchant.sk))[1]["name"] == "Shop"
    # a bearer token is not a cookie: no CSRF token asked
    assert (await call(client, "POST", "/api/customers", merchant.sk, {"email": uniq("c")}))[0] == 200

    # /graphql: a POST with the cookie needs the token too
    resp = await client.post("/graphql", json={"query": VIEWER}, headers=cookie_header(cookie))
    got = await resp.json()
    assert got["errors"][0]["extensions"]["code"] == "csrf_failed" and not got.get("data")
    resp = await client.post("/graphql", json={"query": VIEWER}, headers=cookie_header(cookie, csrf))
    assert (await resp.json())["data"]["viewer"]["id"] == merchant.id

    # sign-out (a write: CSRF) clears the cookie; the session is over
    status, got = await call(client, "POST", "/api/auth/sign-out", headers=cookie_header(cookie))
    assert status == 403 and error(got)["code"] == "csrf_failed"
    resp = await client.post("/api/auth/sign-out", headers=cookie_header(cookie, csrf))
    assert resp.status == 200 and (await resp.json()) == {"signed_out": True}
    cleared = set_cookie(resp)
    assert cleared["qafila_session"].value == "" and cleared["qafila_session"]["path"] == "/"
    assert cleared["qafila_csrf"].value == "" and cleared["qafila_csrf"]["path"] == "/"
    client.session.cookie_jar.clear()
    status, got = await call(client, "GET", "/api/me", headers=cookie_header(cookie))
    assert status == 401 and error(got)["code"] == "session_revoked"


async def test_the_cookie_is_not_secure_in_development_only(client, merchant, mailer, backend, monkeypatch):
    monkeypatch.setattr(backend.runtime.config, "env", "development")
    resp, _ = await cookie_sign_in(client, mailer, merchant.email)
    morsel = set_cookie(resp)["qafila_session"]
    assert (morsel["httponly"], morsel["samesite"], morsel["secure"]) == (True, "Strict", "")
    assert morsel["max-age"] == str(12 * 3600)


async def test_idle_sessions_expire_and_none_lasts_more_than_twelve_hours(client, merchant, mailer, clock):
    token = (await sign_in(client, mailer, merchant.email))["token"]
    clock.advance(seconds=1800)                         # idle exactly the limit: still on
    assert (await call(client, "GET", "/api/me", token))[0] == 200
    clock.advance(seconds=1801)
    status, got = await call(client, "GET", "/api/me", token)
    assert status == 401 and error(got)["code"] == "session_expired"

    token = (await sign_in(client, mailer, merchant.email))["token"]
    sid = token.split(".")[0]
    signed_in = clock.now()
    clock.advance(seconds=4)                            # last_seen_at is written at most every 5 s
    assert (await call(client, "GET", "/api/me", token))[0] == 200
    assert (await MemberSession.get(id=sid)).last_seen_at == signed_in
    clock.advance(seconds=1)
    assert (await call(client, "GET", "/api/me", token))[0] == 200
    assert (await MemberSession.get(id=sid)).last_seen_at == clock.now()
    while clock.now() + timedelta(seconds=1700) < signed_in + timedelta(hours=12):
        clock.advance(seconds=1700)                     # busy all day
        assert (await call(client, "GET", "/api/me", token))[0] == 200
    clock.advance(seconds=(signed_in + timedelta(hours=12) - clock.now()).total_seconds() - 1)
    assert (await call(client, "GET", "/api/me", token))[0] == 200
    clock.advance(seconds=1)
    status, got = await call(client, "GET", "/api/me", token)
    assert status == 401 and error(got)["code"] == "session_expired"


async def test_a_member_lists_and_ends_its_sessions(client, merchant, mailer, clock):
    mac = (await sign_in(client, mailer, merchant.email, headers={"User-Agent": UA_MAC_CHROME}))
    clock.advance(seconds=60)
    phone = (await sign_in(client, mailer, merchant.email, headers={"User-Agent": UA_IPHONE}))
    a, b = mac["token"], phone["token"]
    status, listed = await call(client, "GET", "/api/me/sessions", a, headers={"User-Agent": UA_MAC_CHROME})
    assert status == 200
    rows = listed["data"]
    assert [s["id"] for s in rows] == [phone["session_id"], mac["session_id"]]          # newest first
    assert {k for k in rows[0]} >= {"id", "current", "kind", "device", "user_agent", "ip", "created_at",
                                    "last_seen_at"}
    assert [s["current"] for s in rows] == [False, True]
    assert rows[1]["device"] == "Chrome on Mac OS X" and rows[1]["user_agent"] == UA_MAC_CHROME
    assert rows[0]["device"] == "Mobile Safari on iOS"
    assert rows[0]["ip"] == "127.0.0.1" and rows[0]["kind"] == "token"
    assert rows[0]["created_at"] == iso(clock.now())
    # another member's sessions are not listed and cannot be ended by this one
    owner = await owner_token(merchant)
    _, colleague = await add_member(client, mailer, owner, ["analyst"])
    colleague_sid = colleague.split(".")[0]
    status, got = await call(client, "DELETE", f"/api/me/sessions/{colleague_sid}", a)
    assert status == 404
    assert (await call(client, "GET", "/api/me", colleague))[0] == 200

    status, got = await call(client, "DELETE", f"/api/me/sessions/{phone['session_id']}", a)
    assert status == 200 and got["id"] == phone["session_id"] and got["revoked"] is True
    status, got = await call(client, "GET", "/api/me", b)
    assert status == 401 and error(got)["code"] == "session_revoked"
    assert (await call(client, "DELETE", "/api/me/sessions/sess_doesnotexist", a))[0] == 404

    others = [(await sign_in(client, mailer, merchant.email))["token"] for _ in range(2)]
    status, got = await call(client, "POST", "/api/me/sessions/revoke-others", a)
    assert status == 200 and got == {"revoked": 3}                   # the two and the owner_token one
    for t in others + [owner]:
        status, body = await call(client, "GET", "/api/me", t)
        assert status == 401 and error(body)["code"] == "session_revoked"
    status, listed = await call(client, "GET", "/api/me/sessions", a)
    assert [s["id"] for s in listed["data"]] == [mac["session_id"]]
    assert (await call(client, "GET", "/api/me", colleague))[0] == 200        # another member's: untouched
    status, got = await call(client, "POST", "/api/auth/sign-out", a)
    assert status == 200
    status, got = await call(client, "GET", "/api/me/sessions", a)
    assert status == 401 and error(got)["code"] == "session_revoked"
    revoked = await AuditEvent.filter(merchant_id=merchant.id, action="session.revoked").order_by("seq")
    assert len(revoked) == 5 and {e.object_type for e in revoked} == {"session"}
    assert revoked[0].object_id == phone["session_id"] and revoked[-1].object_id == mac["session_id"]


def test_the_idle_limit_is_a_setting_from_10_seconds_to_a_day(tmp_path):
    env = {"QAFILA_VAR_DIR": str(tmp_path), "QAFILA_ENV": "test"}
    assert load_settings(env).session_idle_seconds == 1800
    assert load_settings({**env, "QAFILA_SESSION_IDLE_SECONDS": "600"}).session_idle_seconds == 600
    for bad in ("9", "86401", "ten", "1.5"):
        with pytest.raises(SettingsError, match="QAFILA_SESSION_IDLE_SECONDS"):
            load_settings({**env, "QAFILA_SESSION_IDLE_SECONDS": bad})


async def test_a_shorter_idle_limit_applies(client, merchant, backend, clock, monkeypatch):
    monkeypatch.setattr(backend.runtime.config, "session_idle_seconds", 60)     # QAFILA_SESSION_IDLE_SECONDS=60
    token = await owner_token(merchant)
    clock.advance(seconds=60)
    assert (await call(client, "GET", "/api/me", token))[0] == 200
    clock.advance(seconds=61)
    status, got = await call(client, "GET", "/api/me", token)
    assert status == 401 and error(got)["code"] == "session_expired"
