"""Team and security routes of the merchant interface `/api`: members, invites, the member's own
account (`/api/me*`: sessions, two-factor), sign-in's second step and step-up, the audit log and
the payout bank account. Parse -> call services.identity -> shape; a cookie session's answer
sets or clears the `qafila_session` cookie."""
from __future__ import annotations

from aiohttp import web

from rest_compat.routing import Call, Route, json_response
from rest_compat.shapes import page, ts
from services.identity import audit, auth, sessions, team, two_factor
from services.infra.runtime import runtime
from services.money import payout_settings
from services.validation import one_of


def set_cookie(resp: web.StreamResponse, value: str | None, csrf: str | None = None) -> None:
    """The session cookie: HttpOnly, SameSite=Strict, Path=/, Secure unless QAFILA_ENV=development;
    None clears it. Beside it `qafila_csrf` holds the session's CSRF token, readable by the page's
    own script (not HttpOnly) so that a reloaded dashboard can send X-CSRF-Token without keeping
    the token in web storage; another site can neither read it nor have it sent (SameSite=Strict)."""
    secure = runtime().config.env != "development"
    if value is None:
        resp.del_cookie(sessions.COOKIE, path="/", secure=secure, httponly=True, samesite="Strict")
        resp.del_cookie(sessions.CSRF_COOKIE, path="/", secure=secure, samesite="Strict")
        return
    max_age = runtime().config.session_ttl_seconds
    resp.set_cookie(sessions.COOKIE, value, path="/", httponly=True, samesite="Strict", secure=secure,
                    max_age=max_age)
    if csrf:
        resp.set_cookie(sessions.CSRF_COOKIE, csrf, path="/", httponly=False, samesite="Strict", secure=secure,
                        max_age=max_age)


def session_answer(s: auth.Session) -> web.Response:
    """verify-otp's and verify-two-factor's answer: a session (its token, or the cookie and the
    CSRF token), or the challenge to answer first."""
    body = {"merchant_id": s.merchant_id, "member_id": s.member_id, "two_factor": s.two_factor,
            "merchant_created": s.merchant_created}
    if s.challenge_id:
        body["challenge_id"] = s.challenge_id
    else:
        body.update(session_id=s.session_id, expires_in=s.expires_in)
        if s.token:
            body["token"] = s.token
        if s.csrf_token:
            body["csrf_token"] = s.csrf_token
    resp = json_response(body)
    if s.cookie:
        set_cookie(resp, s.cookie, s.csrf_token)
    return resp


async def auth_verify_two_factor(call: Call) -> web.Response:
    return session_answer(await auth.verify_two_factor(data=await call.body()))


async def auth_step_up(call: Call) -> dict:
    s = await auth.step_up(principal=call.principal, data=await call.body())
    return {"step_up_expires_at": ts(s.step_up_until)}


async def auth_sign_out(call: Call) -> web.Response:
    await sessions.sign_out(principal=call.principal)
    resp = json_response({"signed_out": True})
    if call.principal.via_cookie:
        set_cookie(resp, None)
    return resp


# ---------------------------------------------------------------- the member's own account

async def me_get(call: Call) -> dict:
    m = await team.me(call.principal)
    return {"id": m.id, "object": "member", "email": m.email, "roles": list(m.roles),
            "permissions": sorted(call.principal.permissions or ()), "two_factor_enabled": m.two_factor_enabled,
            "merchant_id": m.merchant_id}


async def me_sessions(call: Call) -> dict:
    rows = await sessions.list_sessions(principal=call.principal)
    return {"data": [sessions.shape(s, current_id=call.principal.session_id) for s in rows], "has_more": False}


async def me_session_revoke(call: Call) -> dict:
    s = await sessions.revoke(principal=call.principal, session_id=call.params["id"])
    return {**sessions.shape(s, current_id=call.principal.session_id), "revoked": True}


async def me_sessions_revoke_others(call: Call) -> dict:
    return {"revoked": await sessions.revoke_others(principal=call.principal)}


async def me_two_factor_enroll(call: Call) -> dict:
    await call.body()
    return await two_factor.enroll(await team.me(call.principal))


async def me_two_factor_confirm(call: Call) -> dict:
    body = await call.body()              # a malformed body is a 400 before anything else
    codes = await two_factor.confirm_with(await team.me(call.principal), body)
    return {"enabled": True, "recovery_codes": codes}


async def me_two_factor_disable(call: Call) -> dict:
    body = await call.body()
    member = await team.me(call.principal)
    await two_factor.disable_with(member, body, enforced=await team.two_factor_required(member))
    return {"enabled": False}


# ---------------------------------------------------------------- team

async def invites_create(call: Call) -> dict:
    return team.invite_object(await team.create_invite(principal=call.principal, data=await call.body()))


async def invites_list(call: Call) -> dict:
    p = await team.list_invites(principal=call.principal, limit=call.query.get("limit"),
                                starting_after=call.query.get("starting_after"))
    return page([team.invite_object(i) for i in p.items], p)


async def invites_revoke(call: Call) -> dict:
    return team.invite_object(await team.revoke_invite(principal=call.principal, invite_id=call.params["id"]))


async def invites_accept(call: Call) -> dict:
    member, merchant = await team.accept_invite(data=await call.body())
    return {"member": team.member_object(member), "merchant": {"id": merchant.id, "name": merchant.name}}


async def members_list(call: Call) -> dict:
    p = await team.list_members(principal=call.principal, limit=call.query.get("limit"),
                                starting_after=call.query.get("starting_after"))
    return page([team.member_object(m) for m in p.items], p)


async def members_get(call: Call) -> dict:
    return team.member_object(await team.get_member(principal=call.principal, member_id=call.params["id"]))


async def members_update(call: Call) -> dict:
    return team.member_object(await team.update_member(principal=call.principal, member_id=call.params["id"],
                                                       data=await call.body()))


async def members_remove(call: Call) -> dict:
    m = await team.remove_member(principal=call.principal, member_id=call.params["id"])
    return {**team.member_object(m), "deleted": True}


# ---------------------------------------------------------------- audit log, payout settings

async def audit_events_list(call: Call):
    q = call.query
    fmt = q.get("format") or "json"
    if fmt not in ("json", "csv"):
        raise one_of("format", ("json", "csv"))
    p = await audit.list_events(principal=call.principal, actor=q.get("actor"), action=q.get("action"),
                                object_type=q.get("object_type"), object_id=q.get("object_id"),
                                created_gte=q.get("created_gte"), created_lte=q.get("created_lte"),
                                limit=q.get("limit"), starting_after=q.get("starting_after"))
    if fmt == "csv":
        return web.Response(text=audit.to_csv(p.items), content_type="text/csv", charset="utf-8",
                            headers={"Content-Disposition": 'attachment; filename="audit-events.csv"'})
    return page([audit.shape(e) for e in p.items], p, next_cursor=p.next_cursor)


async def payout_settings_get(call: Call) -> dict:
    return payout_settings.payout_settings_object(await payout_settings.get_payout_settings(principal=call.principal))


async def payout_settings_put(call: Call) -> dict:
    s = await payout_settings.update_payout_settings(principal=call.principal, data=await call.body())
    return payout_settings.payout_settings_object(s)


ROUTES: list[Route] = [
    Route("POST", "/auth/verify-two-factor", auth_verify_two_factor, auth="public",
          summary="Answer a sign-in's two-factor challenge", request_fields=("challenge_id", "code", "recovery_code"),
          response_fields=("merchant_id", "member_id", "session_id", "two_factor")),
    Route("POST", "/auth/step-up", auth_step_up, summary="Confirm an authenticator code for 5 minutes of step-up",
          request_fields=("code",), response_fields=("step_up_expires_at",)),
    Route("POST", "/auth/sign-out", auth_sign_out, summary="End this session", response_fields=("signed_out",)),
    Route("GET", "/me", me_get, summary="The signed-in member",
          response_fields=("id", "email", "roles", "permissions", "two_factor_enabled", "merchant_id")),
    Route("GET", "/me/sessions", me_sessions, summary="The member's sessions", response_fields=("data",)),
    Route("DELETE", "/me/sessions/{id}", me_session_revoke, summary="End one of the member's sessions",
          response_fields=("id", "revoked")),
    Route("POST", "/me/sessions/revoke-others", me_sessions_revoke_others, summary="End every other session",
          response_fields=("revoked",)),
    # No Idempotency-Key: a stored answer would keep the TOTP secret (also in otpauth_uri and the QR code)
    # or the recovery codes, which are shown once and never stored in clear.
    Route("POST", "/me/two-factor/enroll", me_two_factor_enroll, summary="Start two-factor enrolment",
          response_fields=("secret", "otpauth_uri", "qr_code"), idempotency="none"),
    Route("POST", "/me/two-factor/confirm", me_two_factor_confirm, summary="Turn two-factor sign-in on",
          request_fields=("code",), response_fields=("enabled", "recovery_codes"), idempotency="none"),
    Route("POST", "/me/two-factor/disable", me_two_factor_disable, summary="Turn two-factor sign-in off",
          request_fields=("code",), response_fields=("enabled",)),
    Route("POST", "/team/invites", invites_create, status=201, summary="Invite a member",
          request_fields=("email", "roles"), response_fields=("id", "email", "roles", "status", "expires_at")),
    Route("GET", "/team/invites", invites_list, summary="List invitations", response_fields=("data", "has_more")),
    Route("DELETE", "/team/invites/{id}", invites_revoke, summary="Revoke an invitation",
          response_fields=("id", "status")),
    Route("POST", "/team/invites/accept", invites_accept, auth="public", summary="Accept an invitation",
          request_fields=("token",), response_fields=("member", "merchant")),
    Route("GET", "/team/members", members_list, summary="List members", response_fields=("data", "has_more")),
    Route("GET", "/team/members/{id}", members_get, summary="A member", response_fields=("id", "email", "roles")),
    Route("PUT", "/team/members/{id}", members_update, summary="Change a member's roles",
          request_fields=("roles",), response_fields=("id", "roles")),
    Route("DELETE", "/team/members/{id}", members_remove, summary="Remove a member",
          response_fields=("id", "deleted")),
    Route("GET", "/audit-events", audit_events_list, summary="The audit log (JSON, or CSV with format=csv)",
          response_fields=("data", "has_more", "next_cursor")),
    Route("GET", "/payout-settings", payout_settings_get, summary="The payout bank account",
          response_fields=("iban_last4", "account_holder_name")),
    Route("PUT", "/payout-settings", payout_settings_put, summary="Set the payout bank account",
          request_fields=("iban", "account_holder_name"), response_fields=("iban_last4", "account_holder_name")),
]
