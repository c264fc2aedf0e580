"""The audit log (issue 44): every action of the issue written with its actor, object, address,
user agent, before and after, never a secret; newest first with keyset pages; the filters; CSV;
no route changes an entry. And the payout bank account (`GET/PUT /api/payout-settings`), whose
IBAN is checked mod 97 and shown by its last four characters only."""
from __future__ import annotations

import csv
import io
import json
import re
from datetime import timedelta

from models.team import AuditEvent, PayoutSettings
from rest_compat import merchant_api
from services.timestamps import iso
from tests.money_fixtures import DISPUTE_CARD, pay_ok, run_until
from tests.team_fixtures import (add_member, call, enable_two_factor, error, invite_token, sign_in, totp, uniq)

UA = "AuditTest/1.0 (qafila)"
IBAN = "SA0380000000608010167519"
ISSUE_ACTIONS = {
    "member.signed_in", "member.sign_in_failed", "member.two_factor_enabled", "member.two_factor_disabled",
    "member.recovery_code_used", "member.roles_updated", "member.removed",
    "invite.created", "invite.accepted", "invite.revoked",
    "api_key.created", "api_key.revoked", "webhook_endpoint.created", "webhook_endpoint.disabled",
    "session.revoked", "refund.created", "dispute.evidence_submitted", "payout_settings.updated", "merchant.updated",
}
CSV_HEADER = "id,created_at,actor_type,actor_id,actor_email,action,object_type,object_id,ip,user_agent,before,after"


async def req(client, method, path, token=None, body=None):
    return await call(client, method, path, token, body, headers={"User-Agent": UA})


async def test_every_action_is_audited_without_a_secret(client, merchant, mailer, clock):
    h = {"User-Agent": UA}
    secrets_seen: list[str] = [merchant.sk, merchant.pk]
    # a dispute to answer, opened a day after its payment
    await pay_ok(client, merchant.sk, amount=20000, number=DISPUTE_CARD)
    await run_until(clock, merchant.id, clock.now() + timedelta(days=1, hours=1))
    (dispute,) = (await call(client, "GET", "/api/disputes", merchant.sk))[1]["data"]
    paid = await pay_ok(client, merchant.sk, amount=30000)
    started = clock.now()

    session = await sign_in(client, mailer, merchant.email, headers=h)
    owner, owner_id = session["token"], session["member_id"]
    secrets_seen += [owner, owner.split(".")[1]]
    email = uniq("invitee")
    _, inv = await req(client, "POST", "/api/team/invites", owner, {"email": email, "roles": ["developer"]})
    secrets_seen.append(invite_token(mailer, email))
    _, accepted = await req(client, "POST", "/api/team/invites/accept", None, {"token": invite_token(mailer, email)})
    member_id = accepted["member"]["id"]
    _, second = await req(client, "POST", "/api/team/invites", owner, {"email": uniq("no"), "roles": ["sales"]})
    assert (await req(client, "DELETE", f"/api/team/invites/{second['id']}", owner))[0] == 200
    assert (await req(client, "PUT", f"/api/team/members/{member_id}", owner, {"roles": ["analyst"]}))[0] == 200
    assert (await req(client, "DELETE", f"/api/team/members/{member_id}", owner))[0] == 200
    _, key = await req(client, "POST", "/api/api-keys", owner, {"name": "ci", "mode": "test"})
    secrets_seen.append(key["key"])
    assert (await req(client, "PUT", f"/api/api-keys/{key['id']}/revoke", owner))[0] == 200
    _, hook = await call(client, "POST", "/api/webhooks/configure", merchant.sk,
                         {"url": "https://hooks.example.com/q", "events": ["payment.succeeded"]}, headers=h)
    secrets_seen.append(hook["secret"])
    assert (await call(client, "POST", f"/api/webhooks/endpoints/{hook['id']}/disable", merchant.sk,
                       headers=h))[0] == 200
    assert (await req(client, "POST", f"/api/payments/{paid['id']}/refund", owner, {"amount": 1000}))[0] == 200
    status, got = await req(client, "POST", f"/api/disputes/{dispute['id']}/evidence", owner,
                            {"uncategorized_text": "Signed receipt"})
    assert status == 200, got
    assert (await req(client, "PUT", "/api/payout-settings", owner,
                      {"iban": IBAN, "account_holder_name": "Shop LLC"}))[0] == 200
    secrets_seen.append(IBAN)
    assert (await req(client, "PUT", "/api/merchant", owner, {"require_two_factor": True}))[0] == 200
    clock.advance(seconds=60)
    mid = clock.now()
    enrolled = (await req(client, "POST", "/api/me/two-factor/enroll", owner))[1]
    secret = enrolled["secret"]
    _, confirmed = await req(client, "POST", "/api/me/two-factor/confirm", owner, {"code": totp(secret, clock)})
    secrets_seen += [secret, *confirmed["recovery_codes"]]
    clock.advance(seconds=60)
    challenge = (await sign_in(client, mailer, merchant.email, headers=h))["challenge_id"]
    secrets_seen.append(challenge)
    wrong = totp(secret, clock, steps=5)
    assert (await req(client, "POST", "/api/auth/verify-two-factor", None,
                      {"challenge_id": challenge, "code": wrong}))[0] == 401
    _, second_session = await req(client, "POST", "/api/auth/verify-two-factor", None,
                                  {"challenge_id": challenge, "recovery_code": confirmed["recovery_codes"][3]})
    secrets_seen.append(second_session["token"])
    assert (await req(client, "DELETE", f"/api/me/sessions/{second_session['session_id']}", owner))[0] == 200
    await req(client, "PUT", "/api/merchant", owner, {"require_two_factor": False})
    status, got = await req(client, "POST", "/api/me/two-factor/disable", owner, {"code": totp(secret, clock)})
    assert status == 200, got
    short_codes = [wrong, *(m.text.split("code is ")[1][:6] for m in mailer.sent if "code is " in m.text)]

    rows = await AuditEvent.filter(merchant_id=merchant.id).order_by("seq")
    assert {r.action for r in rows} == ISSUE_ACTIONS
    by_action = {}
    for r in rows:
        by_action.setdefault(r.action, []).append(r)
        assert r.id.startswith("aud_") and r.actor_type in ("member", "api_key", "system")
    # actor, object, where from, before and after
    (roles,) = by_action["member.roles_updated"]
    assert (roles.actor_type, roles.actor_id, roles.actor_email) == ("member", owner_id, merchant.email)
    assert (roles.object_type, roles.object_id) == ("member", member_id)
    assert (roles.before, roles.after) == ({"roles": ["developer"]}, {"roles": ["analyst"]})
    assert (roles.ip, roles.user_agent) == ("127.0.0.1", UA)
    (hook_row,) = by_action["webhook_endpoint.created"]
    assert hook_row.actor_type == "api_key" and hook_row.actor_id.startswith("key_") and hook_row.actor_email is None
    (refund,) = by_action["refund.created"]
    assert refund.object_type == "refund" and refund.object_id.startswith("ref_") and refund.after["amount"] == 1000
    (evidence,) = by_action["dispute.evidence_submitted"]
    assert (evidence.object_type, evidence.object_id) == ("dispute", dispute["id"])
    (payout,) = by_action["payout_settings.updated"]
    assert payout.before is None and payout.after == {"iban_last4": "7519", "account_holder_name": "Shop LLC"}
    assert by_action["merchant.updated"][0].after == {"require_two_factor": True}
    assert by_action["merchant.updated"][0].before == {"require_two_factor": False}
    assert [r.object_id for r in by_action["invite.created"]] == [inv["id"], second["id"]]
    assert by_action["invite.accepted"][0].actor_id == member_id
    assert by_action["member.removed"][0].before["roles"] == ["analyst"]
    assert by_action["member.sign_in_failed"][0].after == {"reason": "invalid_two_factor_code"}
    assert by_action["session.revoked"][0].object_id == second_session["session_id"]
    assert all(r.ip == "127.0.0.1" and r.user_agent == UA for r in rows if r.created_at >= started)

    # nothing secret, anywhere in any entry
    dump = json.dumps([{k: str(v) for k, v in r.__dict__.items() if not k.startswith("_")} for r in rows])
    for value in secrets_seen:
        assert value not in dump, value
    changes = json.dumps([[r.before, r.after] for r in rows])
    for code in short_codes:                      # six digits: as a value, not inside an id or a time
        assert not re.search(rf"\b{code}\b", changes), code
    status, listed = await call(client, "GET", "/api/audit-events?limit=100", merchant.sk)
    assert status == 200 and not any(v in json.dumps(listed) for v in secrets_seen)
    assert [e["id"] for e in listed["data"]] == [r.id for r in reversed(rows)]          # newest first
    shown = next(e for e in listed["data"] if e["action"] == "member.roles_updated")
    assert shown == {"id": roles.id, "created_at": iso(roles.created_at),
                     "actor": {"type": "member", "id": owner_id, "email": merchant.email},
                     "action": "member.roles_updated", "object": {"type": "member", "id": member_id},
                     "ip": "127.0.0.1", "user_agent": UA, "before": {"roles": ["developer"]},
                     "after": {"roles": ["analyst"]}}
    assert listed["has_more"] is False and listed["next_cursor"] is None

    # pages of 4, newest first, each entry once
    seen, cursor = [], None
    while True:
        path = "/api/audit-events?limit=4" + (f"&starting_after={cursor}" if cursor else "")
        status, page = await call(client, "GET", path, owner)
        assert status == 200, page
        seen += [e["id"] for e in page["data"]]
        if not page["has_more"]:
            assert page["next_cursor"] is None
            break
        assert len(page["data"]) == 4 and page["next_cursor"] == page["data"][-1]["id"]
        cursor = page["next_cursor"]
    everything = [r.id for r in reversed(await AuditEvent.filter(merchant_id=merchant.id).order_by("seq"))]
    assert seen == everything

    # filters
    async def ids(query: str) -> list[str]:
        status, page = await call(client, "GET", f"/api/audit-events?limit=100&{query}", merchant.sk)
        assert status == 200, (query, page)
        return [e["action"] for e in page["data"]]
    assert await ids("action=invite.created") == ["invite.created", "invite.created"]
    assert set(await ids(f"actor={member_id}")) == {"invite.accepted"}
    assert await ids("object_type=refund") == ["refund.created"]
    assert set(await ids(f"object_type=member&object_id={member_id}")) == {"member.roles_updated", "member.removed"}
    before_mid = await ids(f"created_lte={iso(mid - timedelta(seconds=1))}")
    after_mid = await ids(f"created_gte={iso(mid)}")
    assert "member.two_factor_enabled" in after_mid and "member.two_factor_enabled" not in before_mid
    assert "invite.created" in before_mid and "invite.created" not in after_mid
    assert len(before_mid) + len(after_mid) == len(everything)
    assert await ids(f"created_gte={int(mid.timestamp())}&action=member.two_factor_enabled") == \
        ["member.two_factor_enabled"]
    for query, param in (("action=member.hacked", "action"), ("actor=nobody!", "actor"),
                         ("created_gte=yesterday", "created_gte"), ("object_type=not-a-type", "object_type"),
                         ("starting_after=aud_doesnotexist", "starting_after"), ("limit=1000", "limit"),
                         ("format=xml", "format")):
        status, got = await call(client, "GET", f"/api/audit-events?{query}", merchant.sk)
        assert status == 400 and error(got)["param"] == param, (query, got)
    status, got = await call(client, "GET", "/api/audit-events?action=member.hacked", merchant.sk)
    assert "member.signed_in" in error(got)["detail"]

    # CSV: the issue's columns, one line per entry of the page
    resp = await client.get("/api/audit-events?format=csv&limit=100&action=member.roles_updated",
                            headers={"Authorization": f"Bearer {merchant.sk}"})
    assert resp.status == 200 and resp.content_type == "text/csv"
    text = await resp.text()
    assert text.splitlines()[0] == CSV_HEADER
    (line,) = list(csv.DictReader(io.StringIO(text)))
    assert (line["id"], line["actor_type"], line["actor_id"], line["actor_email"], line["object_type"],
            line["object_id"], line["ip"], line["user_agent"]) == \
        (roles.id, "member", owner_id, merchant.email, "member", member_id, "127.0.0.1", UA)
    assert json.loads(line["before"]) == {"roles": ["developer"]} and json.loads(line["after"]) == {"roles": ["analyst"]}
    resp = await client.get("/api/audit-events?format=csv&limit=100", headers={"Authorization": f"Bearer {merchant.sk}"})
    assert len(list(csv.DictReader(io.StringIO(await resp.text())))) == len(everything)

    # append-only: no route writes it; what is asked is refused and nothing changed
    audit_routes = [(r.method, r.path) for r in merchant_api.interface().routes if "audit" in r.path]
    assert audit_routes == [("GET", "/audit-events")]
    for method in ("PUT", "DELETE", "POST", "PATCH"):
        for path in ("/api/audit-events", f"/api/audit-events/{roles.id}"):
            status, _ = await call(client, method, path, owner, {})
            assert status in (404, 405), (method, path, status)
    assert [r.id for r in reversed(await AuditEvent.filter(merchant_id=merchant.id).order_by("seq"))] == everything
    # another merchant sees none of it
    other = await sign_in(client, mailer, uniq("other"))
    status, page = await call(client, "GET", "/api/audit-events?limit=100", other["token"])
    assert [e["action"] for e in page["data"]] == ["member.signed_in"]
    status, got = await call(client, "GET", f"/api/audit-events?starting_after={roles.id}", other["token"])
    assert status == 400 and error(got)["param"] == "starting_after"


async def test_payout_settings_check_the_iban_and_show_its_last_four(client, merchant, mailer, clock):
    owner = (await sign_in(client, mailer, merchant.email))["token"]
    status, got = await call(client, "GET", "/api/payout-settings", owner)
    assert status == 200 and got["iban_last4"] is None and got["account_holder_name"] is None
    cases = [
        ({"account_holder_name": "Shop"}, "iban"),
        ({"iban": "SA0380000000608010167518", "account_holder_name": "Shop"}, "iban"),     # mod 97 fails
        ({"iban": "SA03800000006080101675", "account_holder_name": "Shop"}, "iban"),       # too short
        ({"iban": "XX0380000000608010167519", "account_holder_name": "Shop"}, "iban"),
        ({"iban": 380000000608010167519, "account_holder_name": "Shop"}, "iban"),
        ({"iban": IBAN}, "account_holder_name"),
        ({"iban": IBAN, "account_holder_name": ""}, "account_holder_name"),
        ({"iban": IBAN, "account_holder_name": "Shop", "bic": "X"}, "bic"),
    ]
    for body, param in cases:
        status, got = await call(client, "PUT", "/api/payout-settings", owner, body)
        assert status == 400 and error(got)["param"] == param, (body, got)
    assert not await PayoutSettings.exists(merchant_id=merchant.id)
    assert not await AuditEvent.exists(merchant_id=merchant.id, action="payout_settings.updated")

    status, got = await call(client, "PUT", "/api/payout-settings", owner,
                             {"iban": "sa03 8000 0000 6080 1016 7519", "account_holder_name": "Shop LLC"})
    assert status == 200, got
    assert got["iban_last4"] == "7519" and got["account_holder_name"] == "Shop LLC" and "iban" not in got
    assert got["updated_at"] == iso(clock.now())
    assert (await PayoutSettings.get(merchant_id=merchant.id)).iban == IBAN
    status, shown = await call(client, "GET", "/api/payout-settings", merchant.sk)
    assert shown == got and IBAN not in json.dumps(shown) and not re.search(r"\d{8,}", json.dumps(shown))
    clock.advance(seconds=10)
    status, got = await call(client, "PUT", "/api/payout-settings", owner,
                             {"iban": "AE070331234567890123456", "account_holder_name": "Shop FZE"})
    assert status == 200 and got["iban_last4"] == "3456"
    rows = await AuditEvent.filter(merchant_id=merchant.id, action="payout_settings.updated").order_by("seq")
    assert rows[1].before == {"iban_last4": "7519", "account_holder_name": "Shop LLC"}
    assert rows[1].after == {"iban_last4": "3456", "account_holder_name": "Shop FZE"}
    assert (rows[1].object_type, rows[1].object_id) == ("payout_settings", merchant.id)
    # a member whose role only reads the balance may see it, not change it
    _, accountant = await add_member(client, mailer, owner, ["accountant"])
    assert (await call(client, "GET", "/api/payout-settings", accountant))[1]["iban_last4"] == "3456"
    status, got = await call(client, "PUT", "/api/payout-settings", accountant,
                             {"iban": IBAN, "account_holder_name": "Mine"})
    assert status == 403 and error(got)["permission"] == "balance_write"
    # step-up applies once the member has 2FA
    secret, _ = await enable_two_factor(client, owner, clock)
    status, got = await call(client, "PUT", "/api/payout-settings", owner, {"iban": IBAN, "account_holder_name": "S"})
    assert status == 403 and error(got)["code"] == "step_up_required"
    assert (await call(client, "POST", "/api/auth/step-up", owner, {"code": totp(secret, clock)}))[0] == 200
    assert (await call(client, "PUT", "/api/payout-settings", owner,
                       {"iban": IBAN, "account_holder_name": "S"}))[1]["iban_last4"] == "7519"
