"""Issue 44 over /graphql: the viewer's member and its permission flags, invites and members,
permission refusals as top-level errors, two-factor sign-in, sessions (a cookie session and its
CSRF token included), the audit log and the payout bank account."""
from __future__ import annotations

import asyncio
import os
import re
from datetime import timedelta

import pyotp

import schema as schema_pkg
from models.payments import Refund
from models.team import AuditEvent, Invite, Member
from schema.permissions import FIELDS
from services.identity import auth
from services.timestamps import iso
from tests.helpers import gql
from tests.money_fixtures import pay_ok
from tests.test_money_live_events import connect, next_message

VIEWER = """{ viewer { id member { id email roles twoFactorEnabled permissions {
  paymentsRead paymentsWrite refundsRead refundsWrite disputesRead disputesWrite balanceRead balanceWrite
  customersRead customersWrite billingRead billingWrite einvoicingRead einvoicingWrite crmRead crmWrite
  developersRead developersWrite teamRead teamWrite settingsRead settingsWrite auditRead } } } }"""
INVITE_CREATE = """mutation($input: TeamInviteCreateInput!) { teamInviteCreate(input: $input) {
  invite { id email roles status expiresAt createdAt } userErrors { code message field } } }"""
INVITE_REVOKE = """mutation($input: TeamInviteRevokeInput!) { teamInviteRevoke(input: $input) {
  invite { id status } userErrors { code message field } } }"""
INVITE_ACCEPT = """mutation($input: TeamInviteAcceptInput!) { teamInviteAccept(input: $input) {
  member { id email roles } merchant { id name } userErrors { code message field } } }"""
MEMBER_UPDATE = """mutation($input: TeamMemberUpdateInput!) { teamMemberUpdate(input: $input) {
  member { id roles permissions { teamWrite auditRead } } userErrors { code message field } } }"""
MEMBER_REMOVE = """mutation($input: TeamMemberRemoveInput!) { teamMemberRemove(input: $input) {
  member { id email } userErrors { code message field } } }"""
MEMBERS = """query($first: Int, $after: String) { teamMembers(first: $first, after: $after) {
  totalCount pageInfo { hasNextPage endCursor } edges { node { id email roles twoFactorEnabled } } } }"""
INVITES = "{ teamInvites { totalCount edges { node { id email roles status } } } }"
OTP_REQUEST = """mutation($input: OtpRequestInput!) { otpRequest(input: $input) { requestId userErrors { code } } }"""
OTP_VERIFY = """mutation($input: OtpVerifyInput!) { otpVerify(input: $input) {
  token csrfToken merchantId memberId sessionId expiresIn twoFactor challengeId merchantCreated
  userErrors { code message field } } }"""
TWO_FACTOR_VERIFY = """mutation($input: TwoFactorVerifyInput!) { twoFactorVerify(input: $input) {
  token csrfToken merchantId memberId sessionId twoFactor userErrors { code message field } } }"""
ENROLL = "mutation { twoFactorEnroll { secret otpauthUri qrCode userErrors { code message field } } }"
CONFIRM = """mutation($input: TwoFactorCodeInput!) { twoFactorConfirm(input: $input) {
  enabled recoveryCodes userErrors { code message field } } }"""
DISABLE = """mutation($input: TwoFactorCodeInput!) { twoFactorDisable(input: $input) {
  enabled userErrors { code message field } } }"""
STEP_UP = """mutation($input: TwoFactorCodeInput!) { stepUp(input: $input) {
  stepUpExpiresAt userErrors { code message field } } }"""
SESSIONS = "{ sessions { id current kind device userAgent ip createdAt lastSeenAt } }"
SESSION_REVOKE = """mutation($input: SessionRevokeInput!) { sessionRevoke(input: $input) {
  session { id current } userErrors { code message field } } }"""
REVOKE_OTHERS = "mutation { sessionsRevokeOthers { revoked userErrors { code } } }"
AUDIT = """query($first: Int, $after: String, $actor: ID, $action: String, $objectType: String, $objectId: ID,
                 $createdGte: DateTime, $createdLte: DateTime) {
  auditEvents(first: $first, after: $after, actor: $actor, action: $action, objectType: $objectType,
              objectId: $objectId, createdGte: $createdGte, createdLte: $createdLte) {
    totalCount pageInfo { hasNextPage endCursor }
    edges { node { id createdAt action actor { type id email } object { type id } ip userAgent before after } } } }"""
PAYOUT = "{ payoutSettings { ibanLast4 accountHolderName updatedAt } }"
PAYOUT_UPDATE = """mutation($input: PayoutSettingsUpdateInput!) { payoutSettingsUpdate(input: $input) {
  payoutSettings { ibanLast4 accountHolderName } userErrors { code message field } } }"""
REFUND = """mutation($input: PaymentRefundInput!) { paymentRefund(input: $input) {
  payment { id amountRefunded } userErrors { code message field } } }"""

ROLES_MESSAGE = ("roles must be among owner, administrator, developer, analyst, support, view_only, refund_analyst, "
                 "dispute_analyst, accountant, sales")
FLAGS = ("paymentsRead", "paymentsWrite", "refundsRead", "refundsWrite", "disputesRead", "disputesWrite", "balanceRead",
         "balanceWrite", "customersRead", "customersWrite", "billingRead", "billingWrite", "einvoicingRead",
         "einvoicingWrite", "crmRead", "crmWrite", "developersRead", "developersWrite", "teamRead", "teamWrite",
         "settingsRead", "settingsWrite", "auditRead")
UA = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36"


def uniq(local: str) -> str:
    return f"{local}-{os.urandom(4).hex()}@example.com"


def top_error(body: dict) -> dict:
    """The one top-level error's extensions, without the request id."""
    assert len(body.get("errors") or []) == 1, body
    ext = dict(body["errors"][0]["extensions"])
    ext.pop("request_id")
    return ext


async def owner_of(merchant) -> Member:
    return await Member.get(merchant_id=merchant.id, email=merchant.email)


async def owner_token(merchant) -> str:
    return (await auth.open_session(await owner_of(merchant))).token


async def invite_token(mailer, email: str) -> str:
    mail = mailer.sent[-1]
    assert mail.to == email
    return re.search(r"/dashboard/accept-invite\?token=(\S+)", mail.text).group(1)


async def add_member(client, mailer, owner: str, roles: list[str]) -> tuple[str, str]:
    """(member id, a session token) of a new member with `roles`, invited and accepted over GraphQL."""
    email = uniq("_".join(roles))
    _, out = await gql(client, INVITE_CREATE, {"input": {"email": email, "roles": roles}}, owner)
    assert out["data"]["teamInviteCreate"]["userErrors"] == [], out
    _, out = await gql(client, INVITE_ACCEPT, {"input": {"token": await invite_token(mailer, email)}})
    member_id = out["data"]["teamInviteAccept"]["member"]["id"]
    return member_id, (await auth.open_session(await Member.get(id=member_id))).token


async def sign_in(client, mailer, email: str, **extra) -> tuple[dict, object]:
    """otpRequest + otpVerify over GraphQL: (otpVerify's payload, the HTTP response)."""
    _, out = await gql(client, OTP_REQUEST, {"input": {"email": email}})
    request_id = out["data"]["otpRequest"]["requestId"]
    code = re.search(r"\b(\d{6})\b", mailer.sent[-1].text).group(1)
    resp = await client.post("/graphql", json={"query": OTP_VERIFY, "variables": {
        "input": {"requestId": request_id, "otp": code, **extra}}}, headers={"User-Agent": UA})
    body = await resp.json()
    return body["data"]["otpVerify"], resp


def flags_held(member: dict) -> set[str]:
    return {k for k, v in member["permissions"].items() if v}


# ---------------------------------------------------------------- the schema and its permission table

def test_every_root_field_has_an_entry_in_the_permission_table():
    schema = schema_pkg.build_schema()._schema
    roots = set()
    for root in (schema.query_type, schema.mutation_type, schema.subscription_type):
        roots |= set(root.fields)
    assert sorted(roots - set(FIELDS)) == []          # a new root field must say what it needs
    assert sorted(set(FIELDS) - roots) == []          # and the table names no field that does not exist


# ---------------------------------------------------------------- viewer.member

async def test_viewer_member_is_null_for_a_key_and_the_member_with_its_permissions_for_a_session(
        client, merchant, mailer):
    _, out = await gql(client, VIEWER, key=merchant.sk)
    assert out["data"]["viewer"] == {"id": merchant.id, "member": None}

    owner = await owner_token(merchant)
    _, out = await gql(client, VIEWER, key=owner)
    me = out["data"]["viewer"]["member"]
    assert (me["email"], me["roles"], me["twoFactorEnabled"]) == (merchant.email, ["owner"], False)
    assert me["id"] == (await owner_of(merchant)).id
    assert flags_held(me) == set(FLAGS)

    expected = {
        "view_only": {"paymentsRead", "refundsRead", "disputesRead", "customersRead", "billingRead", "einvoicingRead"},
        "support": {"refundsRead", "refundsWrite", "disputesRead", "disputesWrite", "customersRead", "customersWrite",
                    "paymentsRead", "billingRead", "crmRead"},
        "accountant": {"billingRead", "billingWrite", "einvoicingRead", "einvoicingWrite", "paymentsRead",
                       "refundsRead", "balanceRead", "customersRead"},
        "sales": {"crmRead", "crmWrite"},
    }
    for role, held in expected.items():
        member_id, token = await add_member(client, mailer, owner, [role])
        _, out = await gql(client, VIEWER, key=token)
        me = out["data"]["viewer"]["member"]
        assert (me["id"], me["roles"]) == (member_id, [role])
        assert flags_held(me) == held, role

    # a member holds the union of its roles
    _, token = await add_member(client, mailer, owner, ["sales", "refund_analyst"])
    _, out = await gql(client, VIEWER, key=token)
    assert flags_held(out["data"]["viewer"]["member"]) == {"crmRead", "crmWrite", "refundsRead", "refundsWrite",
                                                           "paymentsRead", "customersRead"}


# ---------------------------------------------------------------- invites and members

async def test_invite_accept_update_and_remove_a_member(client, merchant, mailer, clock):
    owner = await owner_token(merchant)
    email = uniq("lina")
    _, out = await gql(client, INVITE_CREATE, {"input": {"email": email, "roles": ["developer", "developer"]}}, owner)
    invite = out["data"]["teamInviteCreate"]["invite"]
    assert out["data"]["teamInviteCreate"]["userErrors"] == []
    assert invite["id"].startswith("ivt_") and invite["email"] == email
    assert (invite["roles"], invite["status"]) == (["developer"], "pending")
    assert invite["expiresAt"] == iso(clock.now() + timedelta(days=10))
    token = await invite_token(mailer, email)
    assert mailer.sent[-1].text.count(f"http://api.qafila.test/dashboard/accept-invite?token={token}") == 1

    _, out = await gql(client, INVITE_ACCEPT, {"input": {"token": token}})          # no credential
    accepted = out["data"]["teamInviteAccept"]
    assert accepted["userErrors"] == [] and accepted["merchant"] == {"id": merchant.id, "name": "Shop"}
    assert (accepted["member"]["email"], accepted["member"]["roles"]) == (email, ["developer"])
    member_id = accepted["member"]["id"]
    _, out = await gql(client, INVITE_ACCEPT, {"input": {"token": token}})          # used
    assert out["data"]["teamInviteAccept"]["userErrors"] == [{
        "code": "invite_not_found", "field": "token",
        "message": "This invitation does not exist, was used or was revoked"}]
    _, out = await gql(client, INVITES, key=owner)
    assert [(e["node"]["id"], e["node"]["status"]) for e in out["data"]["teamInvites"]["edges"]] == [
        (invite["id"], "accepted")]
    _, out = await gql(client, MEMBERS, {"first": 1}, merchant.sk)                  # keys may read the team
    page = out["data"]["teamMembers"]
    assert page["totalCount"] == 2 and page["pageInfo"]["hasNextPage"] is True
    _, out = await gql(client, MEMBERS, {"first": 1, "after": page["pageInfo"]["endCursor"]}, merchant.sk)
    listed = [page["edges"][0]["node"]["id"], out["data"]["teamMembers"]["edges"][0]["node"]["id"]]
    assert sorted(listed) == sorted([member_id, (await owner_of(merchant)).id])
    _, out = await gql(client, "query($id: ID!) { node(id: $id) { ... on Member { email } } }", {"id": member_id},
                       merchant.sk)
    assert out["data"]["node"] == {"email": email}

    # the member's roles change, and act at once on its session
    session = (await auth.open_session(await Member.get(id=member_id))).token
    _, out = await gql(client, MEMBER_UPDATE, {"input": {"id": member_id, "roles": ["administrator"]}}, owner)
    assert out["data"]["teamMemberUpdate"] == {"member": {"id": member_id, "roles": ["administrator"], "permissions": {
        "teamWrite": True, "auditRead": True}}, "userErrors": []}
    _, out = await gql(client, VIEWER, key=session)
    assert out["data"]["viewer"]["member"]["permissions"]["auditRead"] is True
    updated = await AuditEvent.get(merchant_id=merchant.id, action="member.roles_updated")
    assert (updated.before, updated.after) == ({"roles": ["developer"]}, {"roles": ["administrator"]})

    # only owners grant owner; the last owner stays
    _, out = await gql(client, MEMBER_UPDATE, {"input": {"id": member_id, "roles": ["owner"]}}, session)
    assert top_error(out) == {"code": "permission_denied", "status": 403, "param": None, "permission": "owner"}
    owner_id = (await owner_of(merchant)).id
    _, out = await gql(client, MEMBER_REMOVE, {"input": {"id": owner_id}}, owner)
    assert out["data"]["teamMemberRemove"]["member"] is None
    assert [e["code"] for e in out["data"]["teamMemberRemove"]["userErrors"]] == ["last_owner"]
    _, out = await gql(client, MEMBER_UPDATE, {"input": {"id": "mbr_missing1", "roles": ["analyst"]}}, owner)
    assert out["data"]["teamMemberUpdate"]["userErrors"] == [{"code": "resource_not_found", "field": "id",
                                                              "message": "Resource not found"}]

    # removed: its sessions end at once
    _, out = await gql(client, MEMBER_REMOVE, {"input": {"id": member_id}}, owner)
    assert out["data"]["teamMemberRemove"] == {"member": {"id": member_id, "email": email}, "userErrors": []}
    assert not await Member.exists(id=member_id)
    _, out = await gql(client, VIEWER, key=session)
    assert top_error(out)["code"] == "session_revoked" and top_error(out)["status"] == 401


async def test_bad_invites_are_user_errors_naming_the_field_and_write_nothing(client, merchant, mailer):
    owner = await owner_token(merchant)
    cases = [({"email": uniq("a"), "roles": []}, "invalid_request", "roles", ROLES_MESSAGE),
             ({"email": uniq("a"), "roles": ["analyst", "boss"]}, "invalid_request", "roles", ROLES_MESSAGE),
             ({"email": "not-an-email", "roles": ["analyst"]}, "invalid_request", "email", None),
             ({"email": merchant.email, "roles": ["analyst"]}, "already_member", "email",
              f"{merchant.email} is already a member of this merchant")]
    sent = len(mailer.sent)
    for given, code, field, message in cases:
        _, out = await gql(client, INVITE_CREATE, {"input": given}, owner)
        payload = out["data"]["teamInviteCreate"]
        assert payload["invite"] is None
        [error] = payload["userErrors"]
        assert (error["code"], error["field"]) == (code, field), error
        if message:
            assert error["message"] == message
    assert not await Invite.exists(merchant_id=merchant.id) and len(mailer.sent) == sent

    email = uniq("twice")
    _, out = await gql(client, INVITE_CREATE, {"input": {"email": email, "roles": ["analyst"]}}, owner)
    first = out["data"]["teamInviteCreate"]["invite"]
    _, out = await gql(client, INVITE_CREATE, {"input": {"email": email, "roles": ["analyst"]}}, owner)
    assert [e["code"] for e in out["data"]["teamInviteCreate"]["userErrors"]] == ["invite_pending"]
    _, out = await gql(client, INVITE_REVOKE, {"input": {"id": first["id"]}}, owner)
    assert out["data"]["teamInviteRevoke"] == {"invite": {"id": first["id"], "status": "revoked"}, "userErrors": []}
    _, out = await gql(client, INVITE_ACCEPT, {"input": {"token": await invite_token(mailer, email)}})
    assert [e["code"] for e in out["data"]["teamInviteAccept"]["userErrors"]] == ["invite_not_found"]

    # an API key may read the team, not change it
    _, out = await gql(client, INVITE_CREATE, {"input": {"email": uniq("k"), "roles": ["analyst"]}}, merchant.sk)
    assert top_error(out)["code"] == "member_required" and top_error(out)["status"] == 403
    assert await Invite.filter(merchant_id=merchant.id).count() == 1


async def test_an_expired_invite_is_a_user_error(client, merchant, mailer, clock):
    owner = await owner_token(merchant)
    email = uniq("late")
    await gql(client, INVITE_CREATE, {"input": {"email": email, "roles": ["analyst"]}}, owner)
    clock.advance(days=10, seconds=1)
    _, out = await gql(client, INVITE_ACCEPT, {"input": {"token": await invite_token(mailer, email)}})
    assert out["data"]["teamInviteAccept"]["userErrors"] == [{
        "code": "invite_expired", "field": "token", "message": "This invitation has expired: ask for a new one"}]
    assert not await Member.exists(merchant_id=merchant.id, email=email)


# ---------------------------------------------------------------- permissions

async def test_what_a_role_does_not_allow_is_a_top_level_permission_denied(client, merchant, mailer):
    owner = await owner_token(merchant)
    _, view_only = await add_member(client, mailer, owner, ["view_only"])
    _, support = await add_member(client, mailer, owner, ["support"])
    payment = await pay_ok(client, merchant.sk, amount=5000)

    _, out = await gql(client, REFUND, {"input": {"id": payment["id"], "amount": 1000}}, view_only)
    assert out["data"] is None
    assert top_error(out) == {"code": "permission_denied", "status": 403, "param": None, "permission": "refunds_write"}
    assert out["errors"][0]["message"] == "Your role does not allow this: it needs refunds_write"
    assert not await Refund.exists(payment_id=payment["id"])
    _, out = await gql(client, "query($id: ID!) { payment(id: $id) { id } }", {"id": payment["id"]}, view_only)
    assert out["data"]["payment"] == {"id": payment["id"]}                          # reading is allowed

    _, out = await gql(client, "{ apiKeys { totalCount } }", key=support)
    assert top_error(out) == {"code": "permission_denied", "status": 403, "param": None,
                              "permission": "developers_read"}
    # one field the role may not read refuses the whole operation, fragments included
    _, out = await gql(client, "query { viewer { id } ...F } fragment F on Query { auditEvents { totalCount } }",
                       key=support)
    assert out["data"] is None and top_error(out)["permission"] == "audit_read"
    key_id = (await (await client.get("/api/api-keys", headers={"Authorization": f"Bearer {merchant.sk}"})).json()
              )["data"][0]["id"]
    _, out = await gql(client, "query($id: ID!) { node(id: $id) { id } }", {"id": key_id}, support)
    assert top_error(out)["permission"] == "developers_read"
    _, out = await gql(client, REFUND, {"input": {"id": payment["id"], "amount": 1000}}, support)
    assert out["data"]["paymentRefund"]["payment"] == {"id": payment["id"], "amountRefunded": 1000}


async def test_a_subscription_needs_payments_read_and_streams_team_events(client, merchant, mailer):
    owner = await owner_token(merchant)
    _, sales = await add_member(client, mailer, owner, ["sales"])
    sub = "subscription($types: [String!]) { paymentEvents(types: $types) { type payment { id } envelope } }"
    ws = await connect(client, sales)
    assert (await next_message(ws))["type"] == "connection_ack"
    await ws.send_json({"id": "1", "type": "subscribe", "payload": {"query": sub}})
    msg = await next_message(ws)
    errors = msg["payload"] if msg["type"] == "error" else msg["payload"]["errors"]
    assert errors[0]["message"] == "Your role does not allow this: it needs payments_read"
    await ws.close()

    ws = await connect(client, owner)
    assert (await next_message(ws))["type"] == "connection_ack"
    await ws.send_json({"id": "2", "type": "subscribe", "payload": {
        "query": sub, "variables": {"types": ["team.member_added", "team.member_removed"]}}})
    await asyncio.sleep(0.6)                                    # the stream has opened (its first poll)
    member_id, _ = await add_member(client, mailer, owner, ["analyst"])
    msg = await next_message(ws, timeout=5.0)
    assert msg["type"] == "next", msg
    event = msg["payload"]["data"]["paymentEvents"]
    assert (event["type"], event["payment"]) == ("team.member_added", None)
    assert event["envelope"]["data"]["object"]["id"] == member_id
    assert event["envelope"]["data"]["object"]["roles"] == ["analyst"]
    await ws.close()


# ---------------------------------------------------------------- two-factor sign-in, step-up, payout settings

async def test_two_factor_enrol_confirm_sign_in_step_up_and_disable(client, merchant, mailer, clock):
    signed, _ = await sign_in(client, mailer, merchant.email)
    assert signed["twoFactor"] == "not_enrolled" and signed["userErrors"] == []
    assert signed["token"].startswith("sess_") and signed["csrfToken"] is None and signed["challengeId"] is None
    assert (signed["merchantId"], signed["merchantCreated"]) == (merchant.id, False)
    token = signed["token"]

    _, out = await gql(client, ENROLL, key=token)
    enrolled = out["data"]["twoFactorEnroll"]
    secret = enrolled["secret"]
    assert enrolled["otpauthUri"] == (f"otpauth://totp/Qafila:{merchant.email.replace('@', '%40')}"
                                      f"?secret={secret}&issuer=Qafila")
    assert enrolled["qrCode"].startswith("data:image/svg+xml")
    totp = pyotp.TOTP(secret)

    near = {totp.at(clock.time() + d) for d in (-30, 0, 30)}
    wrong = next(c for c in ("000000", "111111", "222222", "333333") if c not in near)
    _, out = await gql(client, CONFIRM, {"input": {"code": wrong}}, token)
    assert out["data"]["twoFactorConfirm"] == {"enabled": None, "recoveryCodes": None, "userErrors": [{
        "code": "invalid_two_factor_code", "field": "code",
        "message": "The authenticator code is wrong or was already used"}]}
    _, out = await gql(client, CONFIRM, {"input": {"code": totp.at(clock.time())}}, token)
    confirmed = out["data"]["twoFactorConfirm"]
    assert confirmed["enabled"] is True and len(set(confirmed["recoveryCodes"])) == 10
    _, out = await gql(client, ENROLL, key=token)
    assert [e["code"] for e in out["data"]["twoFactorEnroll"]["userErrors"]] == ["two_factor_already_enabled"]

    # with 2FA on, the payout account needs a step-up
    iban = {"iban": "SA03 8000 0000 6080 1016 7519", "accountHolderName": "Shop LLC"}
    _, out = await gql(client, PAYOUT_UPDATE, {"input": iban}, token)
    assert top_error(out)["code"] == "step_up_required"
    clock.advance(seconds=30)
    _, out = await gql(client, STEP_UP, {"input": {"code": totp.at(clock.time())}}, token)
    assert out["data"]["stepUp"] == {"stepUpExpiresAt": iso(clock.now() + timedelta(minutes=5)), "userErrors": []}
    _, out = await gql(client, PAYOUT_UPDATE, {"input": {**iban, "iban": "SA03 8000 0000 6080 1016 7518"}}, token)
    assert [(e["code"], e["field"]) for e in out["data"]["payoutSettingsUpdate"]["userErrors"]] == [
        ("invalid_iban", "iban")]
    _, out = await gql(client, PAYOUT_UPDATE, {"input": iban}, token)
    assert out["data"]["payoutSettingsUpdate"] == {
        "payoutSettings": {"ibanLast4": "7519", "accountHolderName": "Shop LLC"}, "userErrors": []}
    _, out = await gql(client, PAYOUT, key=merchant.sk)
    assert out["data"]["payoutSettings"]["ibanLast4"] == "7519"

    # the next sign-in asks for the code
    challenged, _ = await sign_in(client, mailer, merchant.email)
    assert challenged["twoFactor"] == "challenge" and challenged["challengeId"].startswith("tfc_")
    assert (challenged["token"], challenged["sessionId"], challenged["expiresIn"]) == (None, None, None)
    _, out = await gql(client, TWO_FACTOR_VERIFY, {"input": {"challengeId": challenged["challengeId"],
                                                             "code": totp.at(clock.time())}})   # used by stepUp
    assert top_error(out) == {"code": "invalid_two_factor_code", "status": 401, "param": "code"}
    clock.advance(seconds=30)
    _, out = await gql(client, TWO_FACTOR_VERIFY, {"input": {"challengeId": challenged["challengeId"],
                                                             "code": totp.at(clock.time())}})
    verified = out["data"]["twoFactorVerify"]
    assert verified["twoFactor"] == "verified" and verified["token"].startswith("sess_")
    assert verified["memberId"] == (await owner_of(merchant)).id
    _, out = await gql(client, VIEWER, key=verified["token"])
    assert out["data"]["viewer"]["member"]["twoFactorEnabled"] is True

    # a recovery code instead, once
    challenged, _ = await sign_in(client, mailer, merchant.email)
    recovery = confirmed["recoveryCodes"][0]
    _, out = await gql(client, TWO_FACTOR_VERIFY, {"input": {"challengeId": challenged["challengeId"],
                                                             "recoveryCode": recovery}})
    assert out["data"]["twoFactorVerify"]["twoFactor"] == "verified"
    assert await AuditEvent.exists(merchant_id=merchant.id, action="member.recovery_code_used")

    clock.advance(seconds=30)
    _, out = await gql(client, DISABLE, {"input": {"code": totp.at(clock.time())}}, token)
    assert out["data"]["twoFactorDisable"] == {"enabled": False, "userErrors": []}
    assert (await owner_of(merchant)).two_factor_enabled is False
    _, out = await gql(client, ENROLL, key=merchant.sk)                             # an API key is no member
    assert top_error(out)["code"] == "member_required"


# ---------------------------------------------------------------- sessions

async def test_sessions_list_and_revoke(client, merchant, mailer):
    signed, _ = await sign_in(client, mailer, merchant.email)
    current = signed["token"]
    other = await owner_token(merchant)
    third = await owner_token(merchant)

    _, out = await gql(client, SESSIONS, key=current)
    listed = out["data"]["sessions"]
    assert len(listed) == 3
    mine = next(s for s in listed if s["current"])
    assert mine["id"] == signed["sessionId"] and mine["kind"] == "token"
    assert (mine["device"], mine["userAgent"]) == ("Chrome on Mac OS X", UA)
    assert sum(s["current"] for s in listed) == 1

    other_id = other.split(".")[0]
    _, out = await gql(client, SESSION_REVOKE, {"input": {"id": other_id}}, current)
    assert out["data"]["sessionRevoke"] == {"session": {"id": other_id, "current": False}, "userErrors": []}
    _, out = await gql(client, VIEWER, key=other)
    assert top_error(out)["code"] == "session_revoked"
    _, out = await gql(client, SESSION_REVOKE, {"input": {"id": "sess_unknown1"}}, current)
    assert [e["code"] for e in out["data"]["sessionRevoke"]["userErrors"]] == ["resource_not_found"]

    _, out = await gql(client, REVOKE_OTHERS, key=current)
    assert out["data"]["sessionsRevokeOthers"] == {"revoked": 1, "userErrors": []}
    _, out = await gql(client, VIEWER, key=third)
    assert top_error(out)["code"] == "session_revoked"
    _, out = await gql(client, SESSIONS, key=current)
    assert [s["id"] for s in out["data"]["sessions"]] == [signed["sessionId"]]
    _, out = await gql(client, SESSIONS, key=merchant.sk)
    assert top_error(out)["code"] == "member_required"


async def test_a_cookie_session_sets_the_cookie_and_its_posts_need_the_csrf_token(client, merchant, mailer):
    signed, resp = await sign_in(client, mailer, merchant.email, session="COOKIE")
    assert signed["token"] is None and signed["csrfToken"] and signed["twoFactor"] == "not_enrolled"
    # the session cookie (HttpOnly) and beside it the CSRF token for the page's own script (not HttpOnly)
    header, csrf_header = resp.headers.getall("Set-Cookie")
    assert csrf_header.startswith(f"qafila_csrf={signed['csrfToken']};") and "httponly" not in csrf_header.lower()
    assert "SameSite=Strict" in csrf_header and "Path=/" in csrf_header
    name, _, rest = header.partition("=")
    value, *attributes = [a.strip() for a in rest.split(";")]
    assert name == "qafila_session" and value.startswith(signed["sessionId"] + ".")
    attributes = {a.split("=")[0].lower(): a.split("=", 1)[-1] for a in attributes}
    assert attributes["path"] == "/" and attributes["samesite"] == "Strict"
    assert "httponly" in attributes and "secure" in attributes                  # QAFILA_ENV=test, not development
    client.session.cookie_jar.clear()                                          # sent by hand below
    cookie = {"Cookie": f"qafila_session={value}"}

    resp = await client.post("/graphql", json={"query": VIEWER}, headers=cookie)
    assert top_error(await resp.json()) == {"code": "csrf_failed", "status": 403, "param": None}
    resp = await client.post("/graphql", json={"query": VIEWER},
                             headers={**cookie, "X-CSRF-Token": "not-the-token"})
    assert top_error(await resp.json())["code"] == "csrf_failed"
    resp = await client.post("/graphql", json={"query": VIEWER},
                             headers={**cookie, "X-CSRF-Token": signed["csrfToken"]})
    assert (await resp.json())["data"]["viewer"]["member"]["email"] == merchant.email
    resp = await client.get("/graphql", params={"query": "{ viewer { member { id } } }"}, headers=cookie)
    assert (await resp.json())["data"]["viewer"]["member"]["id"] == signed["memberId"]    # a read: no CSRF token

    token_signed, resp = await sign_in(client, mailer, merchant.email, session="TOKEN")
    assert token_signed["token"] and token_signed["csrfToken"] is None and "Set-Cookie" not in resp.headers


# ---------------------------------------------------------------- the audit log

async def test_audit_events_filters_and_pages(client, merchant, mailer, clock):
    owner = await owner_token(merchant)
    owner_id = (await owner_of(merchant)).id
    clock.advance(seconds=1)
    start = clock.now()
    clock.advance(seconds=10)
    member_id, _ = await add_member(client, mailer, owner, ["analyst"])
    clock.advance(seconds=10)
    middle = clock.now()
    _, out = await gql(client, INVITE_CREATE, {"input": {"email": uniq("x"), "roles": ["support"]}}, owner)
    invite_id = out["data"]["teamInviteCreate"]["invite"]["id"]
    await gql(client, INVITE_REVOKE, {"input": {"id": invite_id}}, owner)
    await gql(client, MEMBER_UPDATE, {"input": {"id": member_id, "roles": ["accountant"]}}, owner)

    _, out = await gql(client, AUDIT, {"action": "invite.created"}, owner)
    created = [e["node"] for e in out["data"]["auditEvents"]["edges"]]
    assert len(created) == 2 and out["data"]["auditEvents"]["totalCount"] == 2
    assert created[0]["object"] == {"type": "invite", "id": invite_id}                    # newest first
    assert created[0]["actor"] == {"type": "member", "id": owner_id, "email": merchant.email}
    assert created[0]["after"]["roles"] == ["support"]

    _, out = await gql(client, AUDIT, {"objectType": "invite", "objectId": invite_id}, owner)
    assert [e["node"]["action"] for e in out["data"]["auditEvents"]["edges"]] == ["invite.revoked", "invite.created"]
    _, out = await gql(client, AUDIT, {"actor": member_id}, owner)         # accepted, then its session opened
    assert [e["node"]["action"] for e in out["data"]["auditEvents"]["edges"]] == ["member.signed_in",
                                                                                  "invite.accepted"]
    _, out = await gql(client, AUDIT, {"createdGte": iso(start), "createdLte": iso(middle - timedelta(seconds=1))},
                       owner)
    assert sorted(e["node"]["action"] for e in out["data"]["auditEvents"]["edges"]) == [
        "invite.accepted", "invite.created", "member.signed_in"]
    _, out = await gql(client, AUDIT, {"createdGte": iso(middle), "action": "member.roles_updated"}, owner)
    [updated] = [e["node"] for e in out["data"]["auditEvents"]["edges"]]
    assert (updated["before"], updated["after"]) == ({"roles": ["analyst"]}, {"roles": ["accountant"]})

    _, out = await gql(client, AUDIT, {"first": 2}, merchant.sk)                     # keys may read the log
    page = out["data"]["auditEvents"]
    assert page["pageInfo"]["hasNextPage"] is True and len(page["edges"]) == 2
    _, out = await gql(client, AUDIT, {"first": 100, "after": page["pageInfo"]["endCursor"]}, merchant.sk)
    rest = [e["node"]["id"] for e in out["data"]["auditEvents"]["edges"]]
    assert not set(rest) & {e["node"]["id"] for e in page["edges"]}
    assert len(rest) + 2 == page["totalCount"] == await AuditEvent.filter(merchant_id=merchant.id).count()
    _, out = await gql(client, "query($id: ID!) { node(id: $id) { ... on AuditEvent { action } } }",
                       {"id": updated["id"]}, owner)
    assert out["data"]["node"] == {"action": "member.roles_updated"}

    _, out = await gql(client, AUDIT, {"action": "member.exploded"}, owner)
    ext = top_error(out)
    assert (ext["code"], ext["status"], ext["param"]) == ("invalid_request", 400, "action")
    assert out["errors"][0]["message"].startswith("action must be among member.signed_in, ")
    _, analyst = await add_member(client, mailer, owner, ["analyst"])                 # no audit_read
    _, out = await gql(client, AUDIT, {}, analyst)
    assert top_error(out)["permission"] == "audit_read"
    _, out = await gql(client, "query($id: ID!) { node(id: $id) { id } }", {"id": updated["id"]}, analyst)
    assert top_error(out)["permission"] == "audit_read"
