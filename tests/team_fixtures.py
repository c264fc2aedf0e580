"""Helpers for the team tests (members, roles, two-factor, sessions, audit): sign-in as a new
user would (request-otp, the e-mailed code, verify-otp), invitations through their e-mail, and
authenticator codes at the injected clock's time."""
from __future__ import annotations

import os
import re
from http.cookies import SimpleCookie

import pyotp

from models.team import Member
from services.identity import auth
from tests.helpers import bearer

UA_MAC_CHROME = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) "
                 "Chrome/124.0.0.0 Safari/537.36")
UA_IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
             "Version/17.4 Mobile/15E148 Safari/604.1")


def uniq(local: str) -> str:
    return f"{local}-{os.urandom(4).hex()}@example.com"


async def call(client, method: str, path: str, token: str | None = None, body: dict | None = None,
               headers: dict | None = None):
    h = {**(bearer(token) if token else {}), **(headers or {})}
    resp = await client.request(method, path, json=body, headers=h)
    ctype = resp.headers.get("Content-Type", "")
    data = await resp.json() if ctype.startswith("application/json") else await resp.text()
    return resp.status, data


async def request_code(client, mailer, email: str, headers: dict | None = None) -> tuple[str, str]:
    resp = await client.post("/api/auth/request-otp", json={"email": email}, headers=headers or {})
    assert resp.status == 200, await resp.text()
    mail = mailer.sent[-1]
    assert mail.to.lower() == email.lower()
    return (await resp.json())["request_id"], re.search(r"\b(\d{6})\b", mail.text).group(1)


async def verify_otp(client, mailer, email: str, headers: dict | None = None, **extra):
    """request-otp then verify-otp; (response, body)."""
    request_id, code = await request_code(client, mailer, email, headers)
    resp = await client.post("/api/auth/verify-otp", json={"request_id": request_id, "otp": code, **extra},
                             headers=headers or {})
    return resp, await resp.json()


async def sign_in(client, mailer, email: str, **extra) -> dict:
    resp, body = await verify_otp(client, mailer, email, **extra)
    assert resp.status == 200, body
    return body


def invite_token(mailer, email: str) -> str:
    mail = [m for m in mailer.sent if m.to == email][-1]
    return re.search(r"/dashboard/accept-invite\?token=([A-Za-z0-9_\-]+)", mail.text).group(1)


async def owner_token(merchant) -> str:
    """A session of the merchant's first member (its owner)."""
    return (await auth.open_session(await Member.get(merchant_id=merchant.id, email=merchant.email))).token


async def add_member(client, mailer, inviter_token: str, roles: list[str], email: str | None = None) -> tuple[dict, str]:
    """Invited by `inviter_token`, accepted through the e-mailed link: (the member, a session token)."""
    email = email or uniq("member")
    status, inv = await call(client, "POST", "/api/team/invites", inviter_token, {"email": email, "roles": roles})
    assert status == 201, inv
    status, accepted = await call(client, "POST", "/api/team/invites/accept", None,
                                  {"token": invite_token(mailer, email)})
    assert status == 200, accepted
    member = accepted["member"]
    return member, (await auth.open_session(await Member.get(id=member["id"]))).token


def totp(secret: str, clock, steps: int = 0) -> str:
    """The authenticator app's code at the injected clock's time (`steps` 30 s steps away)."""
    return pyotp.TOTP(secret).at(int(clock.time()) + 30 * steps)


async def enable_two_factor(client, token: str, clock) -> tuple[str, list[str]]:
    """Enrol and confirm: (the secret, the recovery codes). Leaves the clock one step later, so the
    next code is a fresh one."""
    status, enrolled = await call(client, "POST", "/api/me/two-factor/enroll", token)
    assert status == 200, enrolled
    status, confirmed = await call(client, "POST", "/api/me/two-factor/confirm", token,
                                   {"code": totp(enrolled["secret"], clock)})
    assert status == 200, confirmed
    clock.advance(seconds=30)
    return enrolled["secret"], confirmed["recovery_codes"]


def set_cookie(resp) -> SimpleCookie:
    jar = SimpleCookie()
    for header in resp.headers.getall("Set-Cookie", []):
        jar.load(header)
    return jar


def cookie_header(value: str, csrf: str | None = None) -> dict:
    h = {"Cookie": f"qafila_session={value}"}
    if csrf is not None:
        h["X-CSRF-Token"] = csrf
    return h


def error(body) -> dict:
    return body["error"]
