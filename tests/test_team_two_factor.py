"""Two-factor sign-in (issue 44): enrolment (secret, otpauth URI, SVG QR code), confirmation with
the authenticator's code (RFC 6238, one step either side, a used step refused), recovery codes
(single use), the sign-in challenge, 5 wrong codes in 5 minutes -> 429 before anything else,
disabling, `require_two_factor` (enrolment at next sign-in, nothing but /api/me* until then), and
step-up for live keys, payout settings and members' roles."""
from __future__ import annotations

import base64
import re
from datetime import timedelta
from urllib.parse import unquote

from models.team import AuditEvent, Member
from services.timestamps import iso
from tests.team_fixtures import add_member, call, enable_two_factor, error, owner_token, sign_in, totp, verify_otp

IBAN = "SA0380000000608010167519"


async def test_enrol_confirm_and_the_codes_an_authenticator_gives(client, merchant, clock):
    token = await owner_token(merchant)
    status, enrolled = await call(client, "POST", "/api/me/two-factor/enroll", token)
    assert status == 200, enrolled
    secret = enrolled["secret"]
    assert re.fullmatch(r"[A-Z2-7]{32}", secret) and len(base64.b32decode(secret)) == 20
    assert unquote(enrolled["otpauth_uri"]) == f"otpauth://totp/Qafila:{merchant.email}?secret={secret}&issuer=Qafila"
    media, _, svg = enrolled["qr_code"].partition(",")
    assert media.startswith("data:image/svg+xml") and unquote(svg).lstrip().startswith(("<?xml", "<svg"))
    assert "</svg>" in unquote(svg)
    assert (await call(client, "GET", "/api/me", token))[1]["two_factor_enabled"] is False     # not before confirm
    stored = await Member.get(merchant_id=merchant.id)
    assert stored.totp_secret and secret not in stored.totp_secret

    for body, code in (({}, "invalid_request"), ({"code": "12345"}, "invalid_two_factor_code"),
                       ({"code": 123456}, "invalid_two_factor_code"),
                       ({"code": totp(secret, clock, steps=3)}, "invalid_two_factor_code")):
        status, got = await call(client, "POST", "/api/me/two-factor/confirm", token, body)
        assert status == 400 and error(got)["param"] == "code" and error(got)["code"] == code, (body, got)
    status, confirmed = await call(client, "POST", "/api/me/two-factor/confirm", token, {"code": totp(secret, clock)})
    assert status == 200 and confirmed["enabled"] is True
    codes = confirmed["recovery_codes"]
    assert len(codes) == 10 == len(set(codes))
    stored = await Member.get(merchant_id=merchant.id)
    assert stored.two_factor_enabled and len(stored.recovery_codes) == 10
    assert all(h.startswith("$argon2id$") for h in stored.recovery_codes)
    assert not set(codes) & set(stored.recovery_codes)
    status, got = await call(client, "POST", "/api/me/two-factor/enroll", token)
    assert status == 409 and error(got)["code"] == "two_factor_already_enabled"
    status, got = await call(client, "POST", "/api/me/two-factor/confirm", token, {"code": totp(secret, clock)})
    assert status == 409 and error(got)["code"] == "two_factor_already_enabled"

    # RFC 6238 through step-up: the step just used is refused; one step either side is accepted
    status, got = await call(client, "POST", "/api/auth/step-up", token, {"code": totp(secret, clock)})
    assert status == 400 and error(got)["code"] == "invalid_two_factor_code" and error(got)["param"] == "code"
    clock.advance(seconds=60)                                   # now two steps after the confirmation's
    status, got = await call(client, "POST", "/api/auth/step-up", token, {"code": totp(secret, clock, steps=-1)})
    assert status == 200, got
    status, got = await call(client, "POST", "/api/auth/step-up", token, {"code": totp(secret, clock, steps=1)})
    assert status == 200, got
    assert got == {"step_up_expires_at": iso(clock.now() + timedelta(minutes=5))}
    for steps in (0, 2):        # behind the last accepted step; two steps ahead
        status, got = await call(client, "POST", "/api/auth/step-up", token, {"code": totp(secret, clock, steps=steps)})
        assert status == 400 and error(got)["code"] == "invalid_two_factor_code", steps
    actions = [e.action for e in await AuditEvent.filter(merchant_id=merchant.id).order_by("seq")]
    assert actions == ["member.signed_in", "member.two_factor_enabled"]

    # off again with a code; the secret and the recovery codes are gone
    clock.advance(seconds=300)
    status, got = await call(client, "POST", "/api/me/two-factor/disable", token, {"code": "000000"})
    assert status == 400 and error(got)["param"] == "code"
    status, got = await call(client, "POST", "/api/me/two-factor/disable", token, {"code": totp(secret, clock)})
    assert status == 200 and got == {"enabled": False}
    stored = await Member.get(merchant_id=merchant.id)
    assert (stored.two_factor_enabled, stored.totp_secret, stored.recovery_codes) == (False, None, [])
    status, got = await call(client, "POST", "/api/me/two-factor/disable", token, {"code": totp(secret, clock)})
    assert status == 409 and error(got)["code"] == "two_factor_not_enabled"


async def test_sign_in_with_two_factor_takes_a_code_or_a_recovery_code_once(client, merchant, mailer, clock):
    secret, recovery = await enable_two_factor(client, await owner_token(merchant), clock)
    first = await sign_in(client, mailer, merchant.email)
    assert first["two_factor"] == "challenge" and first["challenge_id"].startswith("tfc_")
    assert (first["merchant_id"], first["member_id"]) == (merchant.id, (await Member.get(merchant_id=merchant.id)).id)
    assert "token" not in first and "session_id" not in first
    cid = first["challenge_id"]
    for body, status_, param in (({"challenge_id": cid}, 400, "code"),
                                 ({"challenge_id": cid, "code": totp(secret, clock), "recovery_code": recovery[0]},
                                  400, "code"),
                                 ({"challenge_id": cid, "code": "111111"}, 401, "code"),
                                 ({"challenge_id": cid, "recovery_code": "abcdefghjk"}, 401, "recovery_code")):
        status, got = await call(client, "POST", "/api/auth/verify-two-factor", None, body)
        assert status == status_ and error(got)["param"] == param, (body, got)
        if status_ == 401:
            assert error(got)["code"] == "invalid_two_factor_code"
    status, session = await call(client, "POST", "/api/auth/verify-two-factor", None,
                                 {"challenge_id": cid, "code": totp(secret, clock)})
    assert status == 200, session
    assert session["two_factor"] == "verified" and session["token"].startswith("sess_")
    assert (await call(client, "GET", "/api/me", session["token"]))[0] == 200
    status, got = await call(client, "POST", "/api/auth/verify-two-factor", None,
                             {"challenge_id": cid, "code": totp(secret, clock, steps=1)})
    assert status == 401 and error(got)["code"] == "invalid_challenge"            # a challenge is answered once
    status, got = await call(client, "POST", "/api/auth/verify-two-factor", None,
                             {"challenge_id": "tfc_doesnotexist", "code": "123456"})
    assert status == 401 and error(got)["code"] == "invalid_challenge"

    clock.advance(seconds=300)                                  # a new window for wrong codes
    second = await sign_in(client, mailer, merchant.email)
    status, session = await call(client, "POST", "/api/auth/verify-two-factor", None,
                                 {"challenge_id": second["challenge_id"], "recovery_code": recovery[0].upper()})
    assert status == 200, session
    assert len((await Member.get(merchant_id=merchant.id)).recovery_codes) == 9
    third = await sign_in(client, mailer, merchant.email)
    status, got = await call(client, "POST", "/api/auth/verify-two-factor", None,
                             {"challenge_id": third["challenge_id"], "recovery_code": recovery[0]})
    assert status == 401 and error(got)["code"] == "invalid_two_factor_code"        # spent
    status, got = await call(client, "POST", "/api/auth/verify-two-factor", None,
                             {"challenge_id": third["challenge_id"], "recovery_code": recovery[1]})
    assert status == 200
    actions = [e.action for e in await AuditEvent.filter(merchant_id=merchant.id).order_by("seq")]
    assert actions.count("member.sign_in_failed") == 3 and actions.count("member.recovery_code_used") == 2
    assert actions.count("member.signed_in") == 4


async def test_five_wrong_codes_in_five_minutes_and_every_try_is_429(client, merchant, mailer, clock):
    token = await owner_token(merchant)
    secret, _ = await enable_two_factor(client, token, clock)
    challenge = (await sign_in(client, mailer, merchant.email))["challenge_id"]
    for _ in range(3):
        status, _ = await call(client, "POST", "/api/auth/verify-two-factor", None,
                               {"challenge_id": challenge, "code": "000000"})
        assert status == 401
    for _ in range(2):                                   # counted anywhere: step-up too
        status, _ = await call(client, "POST", "/api/auth/step-up", token, {"code": "000000"})
        assert status == 400
    tries = [("POST", "/api/auth/verify-two-factor", None, {"challenge_id": challenge, "code": totp(secret, clock)}),
             ("POST", "/api/auth/verify-two-factor", None, {"challenge_id": challenge}),
             ("POST", "/api/auth/step-up", token, {"code": totp(secret, clock)}),
             ("POST", "/api/me/two-factor/disable", token, {"code": totp(secret, clock)}),
             ("POST", "/api/me/two-factor/confirm", token, {})]
    for method, path, credential, body in tries:
        resp = await client.request(method, path, json=body,
                                    headers={"Authorization": f"Bearer {credential}"} if credential else {})
        got = await resp.json()
        assert resp.status == 429, (path, got)
        assert error(got)["code"] == "rate_limit_exceeded" and error(got)["message"] == "Rate limit exceeded (5/5min)"
        assert 1 <= int(resp.headers["Retry-After"]) <= 301
    assert (await Member.get(merchant_id=merchant.id)).two_factor_enabled
    clock.advance(seconds=int(resp.headers["Retry-After"]))
    status, session = await call(client, "POST", "/api/auth/verify-two-factor", None,
                                 {"challenge_id": challenge, "code": totp(secret, clock)})
    assert status == 200, session


async def test_a_required_second_factor_is_enrolled_at_next_sign_in(client, merchant, mailer, clock):
    owner = await owner_token(merchant)
    member, _ = await add_member(client, mailer, owner, ["developer"])
    status, got = await call(client, "PUT", "/api/merchant", owner, {"require_two_factor": True})
    assert status == 200 and got["require_two_factor"] is True
    session = await sign_in(client, mailer, member["email"])
    assert session["two_factor"] == "enrollment_required" and session["token"].startswith("sess_")
    token = session["token"]
    for method, path in (("GET", "/api/payments/list"), ("GET", "/api/merchant"), ("GET", "/v1/payments"),
                         ("POST", "/api/api-keys"), ("GET", "/api/webhooks/endpoints")):
        status, got = await call(client, method, path, token, {} if method == "POST" else None)
        assert status == 403 and error(got)["code"] == "two_factor_enrollment_required", (path, got)
    status, me = await call(client, "GET", "/api/me", token)
    assert status == 200 and me["two_factor_enabled"] is False
    assert (await call(client, "GET", "/api/me/sessions", token))[0] == 200
    status, enrolled = await call(client, "POST", "/api/me/two-factor/enroll", token)
    assert status == 200
    status, _ = await call(client, "POST", "/api/me/two-factor/confirm", token,
                           {"code": totp(enrolled["secret"], clock)})
    assert status == 200
    assert (await call(client, "GET", "/api/payments/list", token))[0] == 200       # the same session, at once
    clock.advance(seconds=30)
    status, got = await call(client, "POST", "/api/me/two-factor/disable", token,
                             {"code": totp(enrolled["secret"], clock)})
    assert status == 409 and error(got)["code"] == "two_factor_enforced"
    assert (await Member.get(id=member["id"])).two_factor_enabled
    # the next sign-in asks for the code
    again = await sign_in(client, mailer, member["email"])
    assert again["two_factor"] == "challenge"
    # "at next sign-in": the owner's session from before the requirement keeps working, its next
    # sign-in must enrol too
    assert (await call(client, "GET", "/api/payments/list", owner))[0] == 200
    _, owner_session = await verify_otp(client, mailer, merchant.email)
    assert owner_session["two_factor"] == "enrollment_required"
    status, got = await call(client, "GET", "/api/payments/list", owner_session["token"])
    assert status == 403 and error(got)["code"] == "two_factor_enrollment_required"


async def test_step_up_guards_live_keys_payout_settings_and_roles(client, merchant, mailer, clock):
    token = await owner_token(merchant)
    member, _ = await add_member(client, mailer, token, ["support"])
    # without 2FA no step-up is needed (and step-up itself needs 2FA)
    status, got = await call(client, "POST", "/api/auth/step-up", token, {"code": "123456"})
    assert status == 400 and error(got)["code"] == "two_factor_not_enabled"
    assert (await call(client, "POST", "/api/api-keys", token, {"mode": "live"}))[0] == 200
    secret, _ = await enable_two_factor(client, token, clock)
    guarded = [("POST", "/api/api-keys", {"mode": "live", "name": "prod"}),
               ("PUT", "/api/payout-settings", {"iban": IBAN, "account_holder_name": "Shop LLC"}),
               ("PUT", f"/api/team/members/{member['id']}", {"roles": ["analyst"]})]
    for method, path, body in guarded:
        status, got = await call(client, method, path, token, body)
        assert status == 403 and error(got)["code"] == "step_up_required", (path, got)
    assert (await call(client, "POST", "/api/api-keys", token, {"mode": "test"}))[0] == 200       # not guarded
    assert (await Member.get(id=member["id"])).roles == ["support"]
    status, got = await call(client, "GET", "/api/payout-settings", token)
    assert got["iban_last4"] is None

    status, stepped = await call(client, "POST", "/api/auth/step-up", token, {"code": totp(secret, clock)})
    assert status == 200
    assert stepped == {"step_up_expires_at": iso(clock.now() + timedelta(minutes=5))}
    for method, path, body in guarded:
        status, got = await call(client, method, path, token, body)
        assert status == 200, (path, got)
    assert (await Member.get(id=member["id"])).roles == ["analyst"]
    # step-up is this session's: another session of the same member must step up itself
    other = await owner_token(merchant)
    status, got = await call(client, "PUT", f"/api/team/members/{member['id']}", other, {"roles": ["sales"]})
    assert status == 403 and error(got)["code"] == "step_up_required"
    clock.advance(seconds=299)
    assert (await call(client, "PUT", f"/api/team/members/{member['id']}", token, {"roles": ["sales"]}))[0] == 200
    clock.advance(seconds=2)
    status, got = await call(client, "PUT", f"/api/team/members/{member['id']}", token, {"roles": ["support"]})
    assert status == 403 and error(got)["code"] == "step_up_required"
    # an API key is not a person: no step-up (it may set payout settings; team writes need a member)
    assert (await call(client, "PUT", "/api/payout-settings", merchant.sk,
                       {"iban": IBAN, "account_holder_name": "Shop"}))[0] == 200
