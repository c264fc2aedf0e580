"""Members and invitations (issue 44): invite -> e-mail -> accept -> sign in as the new member,
input errors and conflicts that write nothing, revoke and expiry, members' roles and removal (their
sessions end at once), the last owner, owner-only changes, API keys (read only on the team), and the
team.* webhooks in each mode."""
from __future__ import annotations

import asyncio
import json
from datetime import timedelta

from models.core import Merchant
from models.events import Event
from models.team import AuditEvent, Invite, Member
from services import webhooks
from services.identity import permissions
from services.identity.merchants import create_merchant
from services.timestamps import iso
from tests.helpers import bearer
from tests.team_fixtures import (add_member, call, error, invite_token, owner_token, request_code, sign_in, uniq,
                                 verify_otp)
from tests.webhooks_fixtures import receiver  # noqa: F401

ROLES_MESSAGE = ("roles must be among owner, administrator, developer, analyst, support, view_only, refund_analyst, "
                 "dispute_analyst, accountant, sales")


async def test_invite_email_accept_then_sign_in_as_the_new_member(client, merchant, mailer, clock):
    owner = await owner_token(merchant)
    email = uniq("layla")
    status, inv = await call(client, "POST", "/api/team/invites", owner, {"email": email, "roles": ["refund_analyst"]})
    assert status == 201, inv
    assert inv["id"].startswith("ivt_")
    assert (inv["email"], inv["roles"], inv["status"]) == (email, ["refund_analyst"], "pending")
    assert inv["created_at"] == iso(clock.now()) and inv["expires_at"] == iso(clock.now() + timedelta(days=10))

    mail = mailer.sent[-1]
    assert mail.to == email
    token = invite_token(mailer, email)
    assert f"http://api.qafila.test/dashboard/accept-invite?token={token}" in mail.text
    assert token not in json.dumps([e.before for e in await AuditEvent.filter(merchant_id=merchant.id)]
                                   + [e.after for e in await AuditEvent.filter(merchant_id=merchant.id)])
    status, listed = await call(client, "GET", "/api/team/invites", owner)
    assert status == 200 and [i["id"] for i in listed["data"]] == [inv["id"]] and listed["has_more"] is False

    status, accepted = await call(client, "POST", "/api/team/invites/accept", None, {"token": token})
    assert status == 200, accepted
    member = accepted["member"]
    assert member["id"].startswith("mbr_")
    assert (member["email"], member["roles"], member["two_factor_enabled"]) == (email, ["refund_analyst"], False)
    assert accepted["merchant"] == {"id": merchant.id, "name": "Shop"}
    status, again = await call(client, "POST", "/api/team/invites/accept", None, {"token": token})
    assert status == 404 and error(again)["code"] == "invite_not_found"
    status, listed = await call(client, "GET", "/api/team/invites", owner)
    assert listed["data"][0]["status"] == "accepted"

    # The new member signs in as anyone would: the e-mailed code, no sign-up of a new merchant.
    session = await sign_in(client, mailer, email)
    assert (session["merchant_id"], session["member_id"], session["two_factor"]) == \
        (merchant.id, member["id"], "not_enrolled")
    assert session["token"].startswith("sess_") and session["session_id"].startswith("sess_")
    assert "csrf_token" not in session
    assert not await Merchant.exists(email=email)
    token = session["token"]
    status, me = await call(client, "GET", "/api/me", token)
    assert status == 200
    assert me == {"id": member["id"], "object": "member", "email": email, "roles": ["refund_analyst"],
                  "permissions": ["customers_read", "payments_read", "refunds_read", "refunds_write"],
                  "two_factor_enabled": False, "merchant_id": merchant.id}
    # ... and holds exactly its role's permissions
    assert (await call(client, "GET", "/api/payments/list", token))[0] == 200
    assert (await call(client, "GET", "/api/customers", token))[0] == 200
    status, body = await call(client, "POST", "/api/customers", token, {"email": uniq("c")})
    assert status == 403 and error(body)["code"] == "permission_denied"
    assert error(body)["permission"] == "customers_write"
    status, body = await call(client, "GET", "/api/team/members", token)
    assert status == 403 and error(body)["permission"] == "team_read"

    # team.member_added, once in each mode, the member as its object
    added = await Event.filter(merchant_id=merchant.id, type="team.member_added").order_by("livemode")
    assert [e.livemode for e in added] == [False, True]
    assert all(e.data["id"] == member["id"] and e.data["roles"] == ["refund_analyst"] for e in added)
    actions = [e.action for e in await AuditEvent.filter(merchant_id=merchant.id).order_by("seq")]
    assert actions == ["member.signed_in", "invite.created", "invite.accepted", "member.signed_in"]


async def test_an_email_of_two_merchants_signs_in_to_the_oldest_unless_it_names_one(client, make_merchant, mailer,
                                                                                   clock):
    # Hind joins Early's team first, then opens a shop of her own: her oldest membership is Early's
    hind = uniq("hind")
    early = await make_merchant("Early")
    await call(client, "POST", "/api/team/invites", await owner_token(early), {"email": hind, "roles": ["analyst"]})
    status, accepted = await call(client, "POST", "/api/team/invites/accept", None,
                                  {"token": invite_token(mailer, hind)})
    assert status == 200 and accepted["merchant"] == {"id": early.id, "name": "Early"}
    clock.advance(seconds=60)
    own, _ = await create_merchant(email=hind, name="Hind's")

    default = await sign_in(client, mailer, hind)
    assert (default["merchant_id"], default["member_id"]) == (early.id, accepted["member"]["id"])     # the oldest
    status, me = await call(client, "GET", "/api/me", default["token"])
    assert me["roles"] == ["analyst"] and me["merchant_id"] == early.id
    chosen = await sign_in(client, mailer, hind, merchant_id=own.id)
    assert chosen["merchant_id"] == own.id and chosen["merchant_created"] is False
    status, me = await call(client, "GET", "/api/me", chosen["token"])
    assert me["roles"] == ["owner"] and me["merchant_id"] == own.id
    # Another merchant: 404 naming merchant_id; the code is not spent, so the member may pick again
    stranger = await make_merchant("Third")
    request_id, code = await request_code(client, mailer, hind)
    resp = await client.post("/api/auth/verify-otp", json={"request_id": request_id, "otp": code,
                                                           "merchant_id": stranger.id})
    assert resp.status == 404 and error(await resp.json())["param"] == "merchant_id"
    resp = await client.post("/api/auth/verify-otp", json={"request_id": request_id, "otp": code,
                                                           "merchant_id": early.id})
    assert resp.status == 200 and (await resp.json())["merchant_id"] == early.id
    # No membership at all: the code signs a new merchant up, as before
    newcomer = uniq("newcomer")
    resp, body = await verify_otp(client, mailer, newcomer)
    assert resp.status == 200 and body["merchant_created"] is True
    owner = await Member.get(merchant_id=body["merchant_id"])
    assert (owner.email, owner.roles, body["member_id"]) == (newcomer, ["owner"], owner.id)


async def test_bad_invites_are_400_or_409_and_write_nothing(client, merchant, mailer):
    owner = await owner_token(merchant)
    member, _ = await add_member(client, mailer, owner, ["support"])
    pending = uniq("pending")
    assert (await call(client, "POST", "/api/team/invites", owner, {"email": pending, "roles": ["sales"]}))[0] == 201
    invites, mails = await Invite.filter(merchant_id=merchant.id).count(), len(mailer.sent)
    audits = await AuditEvent.filter(merchant_id=merchant.id).count()
    cases = [
        ({"roles": ["support"]}, 400, "email", None),
        ({"email": "not-an-email", "roles": ["support"]}, 400, "email", None),
        ({"email": 42, "roles": ["support"]}, 400, "email", None),
        ({"email": uniq("x")}, 400, "roles", None),
        ({"email": uniq("x"), "roles": []}, 400, "roles", ROLES_MESSAGE),
        ({"email": uniq("x"), "roles": ["boss"]}, 400, "roles", ROLES_MESSAGE),
        ({"email": uniq("x"), "roles": ["support", "Boss"]}, 400, "roles", ROLES_MESSAGE),
        ({"email": uniq("x"), "roles": "support"}, 400, "roles", ROLES_MESSAGE),
        ({"email": uniq("x"), "roles": [1]}, 400, "roles", ROLES_MESSAGE),
        ({"email": merchant.email, "roles": ["support"]}, 409, "already_member", None),
        ({"email": member["email"], "roles": ["analyst"]}, 409, "already_member", None),
        ({"email": pending, "roles": ["analyst"]}, 409, "invite_pending", None),
    ]
    for payload, status, what, detail in cases:
        got, body = await call(client, "POST", "/api/team/invites", owner, payload)
        assert got == status, (payload, body)
        err = error(body)
        if status == 400:
            assert err["param"] == what and err["message"] == "Invalid request body", (payload, err)
            if detail:
                assert err["detail"] == detail
        else:
            assert err["code"] == what and err["param"] == "email", (payload, err)
    got, body = await call(client, "POST", "/api/team/invites", owner, {"email": uniq("x"), "roles": ["sales"], "x": 1})
    assert got == 400 and error(body)["param"] == "x"
    assert await Invite.filter(merchant_id=merchant.id).count() == invites
    assert len(mailer.sent) == mails
    assert await AuditEvent.filter(merchant_id=merchant.id).count() == audits


async def test_revoked_unknown_and_expired_invitations(client, merchant, make_merchant, mailer, clock):
    owner = await owner_token(merchant)
    email = uniq("later")
    _, inv = await call(client, "POST", "/api/team/invites", owner, {"email": email, "roles": ["view_only"]})
    token = invite_token(mailer, email)
    status, revoked = await call(client, "DELETE", f"/api/team/invites/{inv['id']}", owner)
    assert status == 200 and revoked["status"] == "revoked" and revoked["id"] == inv["id"]
    status, body = await call(client, "DELETE", f"/api/team/invites/{inv['id']}", owner)
    assert status == 409 and error(body)["code"] == "invite_not_pending"
    for t in (token, "no-such-token"):
        status, body = await call(client, "POST", "/api/team/invites/accept", None, {"token": t})
        assert status == 404 and error(body)["code"] == "invite_not_found" and error(body)["param"] == "token"
    status, body = await call(client, "POST", "/api/team/invites/accept", None, {})
    assert status == 400 and error(body)["param"] == "token"
    other = await make_merchant("Other")
    _, theirs = await call(client, "POST", "/api/team/invites", await owner_token(other),
                           {"email": uniq("x"), "roles": ["sales"]})
    status, body = await call(client, "DELETE", f"/api/team/invites/{theirs['id']}", owner)
    assert status == 404                       # another merchant's invitation is not found

    # revoked: the same e-mail may be invited again; ten days later that invitation has expired
    _, inv = await call(client, "POST", "/api/team/invites", owner, {"email": email, "roles": ["view_only"]})
    token = invite_token(mailer, email)
    clock.advance(days=10, seconds=1)
    status, body = await call(client, "POST", "/api/team/invites/accept", None, {"token": token})
    assert status == 410 and error(body)["code"] == "invite_expired"
    assert not await Member.exists(merchant_id=merchant.id, email=email)
    # an expired invitation no longer blocks a new one
    owner = await owner_token(merchant)
    assert (await call(client, "POST", "/api/team/invites", owner, {"email": email, "roles": ["sales"]}))[0] == 201
    status, accepted = await call(client, "POST", "/api/team/invites/accept", None,
                                  {"token": invite_token(mailer, email)})
    assert status == 200 and accepted["member"]["roles"] == ["sales"]


async def test_members_roles_change_at_once_and_a_removed_member_is_signed_out(client, merchant, mailer, receiver):
    owner = await owner_token(merchant)
    hook = await call(client, "POST", "/api/webhooks/configure", merchant.sk,
                      {"url": receiver.url(), "events": ["team.member_roles_updated", "team.member_removed"]})
    assert hook[0] == 200, hook
    member, token = await add_member(client, mailer, owner, ["developer"])
    status, listed = await call(client, "GET", "/api/team/members", owner)
    assert status == 200
    assert sorted(m["email"] for m in listed["data"]) == sorted([merchant.email, member["email"]])
    assert set(listed["data"][0]) == {"id", "object", "email", "roles", "two_factor_enabled", "created_at"}
    status, got = await call(client, "GET", f"/api/team/members/{member['id']}", owner)
    assert status == 200 and got == member

    assert (await call(client, "POST", "/api/api-keys", token, {"name": "ci", "mode": "test"}))[0] == 200
    status, updated = await call(client, "PUT", f"/api/team/members/{member['id']}", owner,
                                 {"roles": ["view_only", "support", "view_only"]})
    assert status == 200 and updated["roles"] == ["view_only", "support"]
    status, body = await call(client, "POST", "/api/api-keys", token, {"name": "ci", "mode": "test"})
    assert status == 403 and error(body)["permission"] == "developers_write"    # at once, same session
    status, me = await call(client, "GET", "/api/me", token)
    assert me["roles"] == ["view_only", "support"]
    assert me["permissions"] == sorted(permissions.of_roles(["view_only", "support"]))
    for payload, param in (({"roles": []}, "roles"), ({"roles": ["root"]}, "roles"), ({}, "roles"),
                           ({"roles": ["sales"], "email": "x@y.z"}, "email")):
        status, body = await call(client, "PUT", f"/api/team/members/{member['id']}", owner, payload)
        assert status == 400 and error(body)["param"] == param, (payload, body)
    assert (await Member.get(id=member["id"])).roles == ["view_only", "support"]
    assert (await call(client, "PUT", "/api/team/members/mbr_doesnotexist", owner, {"roles": ["sales"]}))[0] == 404

    status, removed = await call(client, "DELETE", f"/api/team/members/{member['id']}", owner)
    assert status == 200 and removed["id"] == member["id"] and removed["deleted"] is True
    status, body = await call(client, "GET", "/api/me", token)
    assert status == 401 and error(body)["code"] == "session_revoked"
    assert (await call(client, "GET", f"/api/team/members/{member['id']}", owner))[0] == 404
    assert (await call(client, "DELETE", f"/api/team/members/{member['id']}", owner))[0] == 404

    # webhooks in each mode; the delivered roles update carries data.previous_attributes.roles
    for type_, obj_roles in (("team.member_roles_updated", ["view_only", "support"]),
                             ("team.member_removed", ["view_only", "support"])):
        rows = await Event.filter(merchant_id=merchant.id, type=type_).order_by("livemode")
        assert [e.livemode for e in rows] == [False, True], type_
        assert all(e.data["id"] == member["id"] and e.data["roles"] == obj_roles for e in rows)
    await webhooks.run_once(owner="team-test", merchant_id=merchant.id)
    got = {b["type"]: b for b in (json.loads(r.body) for r in receiver.got)}
    assert set(got) == {"team.member_roles_updated", "team.member_removed"}
    updated_event = got["team.member_roles_updated"]
    assert updated_event["livemode"] is False
    assert updated_event["data"]["previous_attributes"] == {"roles": ["developer"]}
    assert updated_event["data"]["object"]["roles"] == ["view_only", "support"]
    assert "_previous_attributes" not in updated_event["data"]["object"]
    assert got["team.member_removed"]["data"] == {"object": {**member, "roles": ["view_only", "support"]}}
    # ... and the event as the REST API lists it
    event_id = updated_event["id"]
    status, shown = await call(client, "GET", f"/api/webhooks/events/{event_id}", merchant.sk)
    assert status == 200 and shown["data"] == updated_event["data"]


async def test_the_last_owner_stays_and_only_owners_touch_the_owner_role(client, merchant, mailer):
    owner = await owner_token(merchant)
    owner_id = (await Member.get(merchant_id=merchant.id, email=merchant.email)).id
    for method, body in (("PUT", {"roles": ["administrator"]}), ("DELETE", None)):
        status, got = await call(client, method, f"/api/team/members/{owner_id}", owner, body)
        assert status == 409 and error(got)["code"] == "last_owner", (method, got)
    admin, admin_token = await add_member(client, mailer, owner, ["administrator"])
    # an administrator may manage the team, but not the owner role
    colleague, _ = await add_member(client, mailer, admin_token, ["support"])
    refused = [
        ("POST", "/api/team/invites", {"email": uniq("o"), "roles": ["owner"]}),
        ("PUT", f"/api/team/members/{colleague['id']}", {"roles": ["owner"]}),
        ("PUT", f"/api/team/members/{admin['id']}", {"roles": ["owner", "administrator"]}),
        ("PUT", f"/api/team/members/{owner_id}", {"roles": ["administrator"]}),
        ("DELETE", f"/api/team/members/{owner_id}", None),
    ]
    for method, path, body in refused:
        status, got = await call(client, method, path, admin_token, body)
        assert status == 403 and error(got)["code"] == "permission_denied", (method, path, got)
    assert (await Member.get(id=owner_id)).roles == ["owner"]
    assert (await Member.get(id=colleague["id"])).roles == ["support"]
    status, got = await call(client, "PUT", f"/api/team/members/{colleague['id']}", admin_token,
                             {"roles": ["support", "accountant"]})
    assert status == 200 and got["roles"] == ["support", "accountant"]
    # a member without team_write may not manage the team at all
    _, support_token = await add_member(client, mailer, owner, ["support"])
    status, got = await call(client, "DELETE", f"/api/team/members/{colleague['id']}", support_token)
    assert status == 403 and error(got)["permission"] == "team_write"

    # the owner makes the administrator an owner; then may step down; the new owner is the last one
    status, got = await call(client, "PUT", f"/api/team/members/{admin['id']}", owner, {"roles": ["owner"]})
    assert status == 200 and got["roles"] == ["owner"]
    status, got = await call(client, "PUT", f"/api/team/members/{owner_id}", admin_token, {"roles": ["analyst"]})
    assert status == 200 and got["roles"] == ["analyst"]
    status, got = await call(client, "DELETE", f"/api/team/members/{admin['id']}", admin_token)
    assert status == 409 and error(got)["code"] == "last_owner"
    assert (await Member.get(id=admin["id"])).roles == ["owner"]


async def test_api_keys_read_the_team_and_audit_but_team_writes_need_a_member(client, merchant, mailer):
    owner = await owner_token(merchant)
    member, _ = await add_member(client, mailer, owner, ["analyst"])
    _, inv = await call(client, "POST", "/api/team/invites", owner, {"email": uniq("k"), "roles": ["sales"]})
    for path in ("/api/team/members", f"/api/team/members/{member['id']}", "/api/team/invites", "/api/audit-events"):
        status, body = await call(client, "GET", path, merchant.sk)
        assert status == 200, (path, body)
    refused = [
        ("POST", "/api/team/invites", {"email": uniq("k"), "roles": ["sales"]}),
        ("DELETE", f"/api/team/invites/{inv['id']}", None),
        ("PUT", f"/api/team/members/{member['id']}", {"roles": ["sales"]}),
        ("DELETE", f"/api/team/members/{member['id']}", None),
        ("GET", "/api/me", None),
        ("GET", "/api/me/sessions", None),
        ("POST", "/api/me/sessions/revoke-others", None),
        ("POST", "/api/me/two-factor/enroll", None),
        ("POST", "/api/auth/step-up", {"code": "123456"}),
        ("POST", "/api/auth/sign-out", None),
    ]
    for method, path, body in refused:
        status, got = await call(client, method, path, merchant.sk, body)
        assert status == 403 and error(got)["code"] == "member_required", (method, path, got)
    assert (await Member.get(id=member["id"])).roles == ["analyst"]
    assert (await Invite.get(id=inv["id"])).status == "pending"
    # no credential at all: 401
    resp = await client.get("/api/team/members")
    assert resp.status == 401
    resp = await client.get("/api/me", headers=bearer("sess_nope.nope"))
    assert resp.status == 401


async def test_an_invited_email_is_the_email_that_signs_in(client, merchant, mailer):
    """The invitation keeps the e-mail as sign-in reads it (the domain's case does not matter), so
    the member signs in to this merchant instead of signing a new one up."""
    owner = await owner_token(merchant)
    local = f"Sara.Ali-{uniq('x').split('@')[0]}"
    status, inv = await call(client, "POST", "/api/team/invites", owner,
                             {"email": f"{local}@Example.COM", "roles": ["accountant"]})
    assert status == 201 and inv["email"] == f"{local}@example.com"
    _, accepted = await call(client, "POST", "/api/team/invites/accept", None,
                             {"token": invite_token(mailer, f"{local}@example.com")})
    session = await sign_in(client, mailer, f"{local}@EXAMPLE.com")
    assert (session["merchant_id"], session["member_id"]) == (merchant.id, accepted["member"]["id"])
    assert session["merchant_created"] is False
    status, body = await call(client, "POST", "/api/team/invites", owner,
                              {"email": merchant.email.replace("example.com", "EXAMPLE.com"), "roles": ["sales"]})
    assert status == 409 and error(body)["code"] == "already_member"


async def test_two_owners_demoting_each_other_at_once_leave_one_owner(client, merchant, mailer):
    owner = await owner_token(merchant)
    owner_id = (await Member.get(merchant_id=merchant.id, email=merchant.email)).id
    other, other_token = await add_member(client, mailer, owner, ["owner"])
    results = await asyncio.gather(
        call(client, "PUT", f"/api/team/members/{other['id']}", owner, {"roles": ["analyst"]}),
        call(client, "PUT", f"/api/team/members/{owner_id}", other_token, {"roles": ["analyst"]}),
        call(client, "DELETE", f"/api/team/members/{owner_id}", other_token))
    # whichever runs first wins; the others find no owner's right left (403), their target gone
    # (404), the last owner (409), or their own session ended (401)
    statuses = sorted(s for s, _ in results)
    assert statuses.count(200) >= 1 and all(s in (200, 401, 403, 404, 409) for s in statuses), results
    owners = [m for m in await Member.filter(merchant_id=merchant.id) if "owner" in m.roles]
    assert len(owners) == 1
