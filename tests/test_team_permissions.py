"""Roles and permissions (issue 44): the ROLES table is the issue's table; every route of the
merchant `/api` and `/v1` interfaces needs a permission (or checks its caller itself); and, through
the real app, members of several roles reach what their roles allow and get 403
`permission_denied` naming the permission elsewhere, on `/api` and `/v1`."""
from __future__ import annotations

import pytest

from rest_compat import crm_api, intents_v1, merchant_api
from services.identity import permissions
from services.identity.permissions import ROLES
from tests.intents_fixtures import confirm, create
from tests.money_fixtures import pay_ok
from tests.team_fixtures import add_member, call, error, owner_token, uniq

AREAS = ("payments", "refunds", "disputes", "balance", "customers", "billing", "einvoicing", "crm", "developers",
         "team", "settings")


def granted(write: str = "", read: str = "", audit: bool = False) -> set[str]:
    w, r = write.split(), read.split()
    return {f"{a}_write" for a in w} | {f"{a}_read" for a in w + r} | ({"audit_read"} if audit else set())


# The issue's table, cell by cell.
ISSUE_TABLE = {
    "owner": granted(write=" ".join(AREAS), audit=True),
    "administrator": granted(write=" ".join(AREAS), audit=True),
    "developer": granted(write="payments refunds customers billing developers",
                         read="disputes balance einvoicing settings"),
    "analyst": granted(read="payments refunds disputes balance customers billing einvoicing crm"),
    "support": granted(write="refunds disputes customers", read="payments billing crm"),
    "view_only": granted(read="payments refunds disputes customers billing einvoicing"),
    "refund_analyst": granted(write="refunds", read="payments customers"),
    "dispute_analyst": granted(write="disputes", read="payments customers"),
    "accountant": granted(write="billing einvoicing", read="payments refunds balance customers"),
    "sales": granted(write="crm"),
}


def test_the_roles_table_is_the_issues_table():
    assert list(ROLES) == list(ISSUE_TABLE)
    for role, expected in ISSUE_TABLE.items():
        assert set(ROLES[role]) == expected, role
    assert permissions.of_roles(["refund_analyst", "accountant"]) == \
        ISSUE_TABLE["refund_analyst"] | ISSUE_TABLE["accountant"]
    assert permissions.of_roles([]) == frozenset()


# What the issue says the areas cover, route by route (a sample of each area).
EXPECTED = {
    ("merchant", "GET", "/payments/list"): "payments_read",
    ("merchant", "POST", "/payments/create"): "payments_write",
    ("merchant", "POST", "/payment-links"): "payments_write",
    ("merchant", "GET", "/analytics/revenue"): "payments_read",
    ("merchant", "POST", "/payments/{id}/refund"): "refunds_write",
    ("merchant", "POST", "/disputes/{id}/evidence"): "disputes_write",
    ("merchant", "GET", "/settlements/{id}/transactions"): "balance_read",
    ("merchant", "GET", "/balance"): "balance_read",
    ("merchant", "GET", "/payout-settings"): "balance_read",
    ("merchant", "PUT", "/payout-settings"): "balance_write",
    ("merchant", "PUT", "/customers/{id}"): "customers_write",
    ("merchant", "POST", "/invoices"): "billing_write",
    ("merchant", "PUT", "/subscriptions/{id}/pause"): "billing_write",
    ("merchant", "POST", "/invoices/{id}/credit-notes"): "einvoicing_write",
    ("merchant", "POST", "/invoices/{id}/cancel-einvoice"): "einvoicing_write",
    ("merchant", "GET", "/einvoicing/zatca"): "einvoicing_read",
    ("merchant", "POST", "/api-keys"): "developers_write",
    ("merchant", "POST", "/webhooks/configure"): "developers_write",
    ("merchant", "POST", "/test-helpers/advance-clock"): "developers_write",
    ("merchant", "GET", "/team/members"): "team_read",
    ("merchant", "DELETE", "/team/invites/{id}"): "team_write",
    ("merchant", "PUT", "/merchant"): "settings_write",
    ("merchant", "POST", "/routing/rules"): "settings_write",
    ("merchant", "GET", "/audit-events"): "audit_read",
    ("merchant", "GET", "/me"): None,
    ("merchant", "POST", "/auth/step-up"): None,
    ("v1", "POST", "/payments/intent"): "payments_write",
    ("v1", "GET", "/payments"): "payments_read",
    ("v1", "POST", "/payments/{id}/refund"): "refunds_write",
    ("v1", "POST", "/test_helpers/payments/{id}/cod_delivered"): "developers_write",
}


def test_every_route_of_the_merchant_interfaces_needs_a_permission():
    seen = {}
    for iface in (merchant_api.interface(), intents_v1.interface()):
        for r in iface.routes:
            if r.auth == "public":
                continue
            needed = permissions.for_route(iface.name, r.method, r.path)      # LookupError: a route no rule covers
            seen[(iface.name, r.method, r.path)] = needed
            if r.path == "/me" or r.path.startswith(("/me/", "/auth/")):
                assert needed is None, r.path         # the member's own account: checks its caller itself
            else:
                assert needed in permissions.ALL, (iface.name, r.method, r.path, needed)
                kind = "read" if r.method == "GET" else "write"
                assert needed == "audit_read" or needed.endswith(kind), (r.method, r.path, needed)
    for route, needed in EXPECTED.items():
        assert seen[route] == needed, route
    for r in crm_api.interface().routes:
        if r.auth != "public":
            assert permissions.for_route("crm", r.method, r.path) in ("crm_read", "crm_write")
    with pytest.raises(LookupError):
        permissions.for_route("merchant", "GET", "/something-new")


def allowed(status: int, body) -> bool:
    return status not in (401, 403)


async def test_each_role_reaches_what_it_may_and_is_refused_the_rest(client, merchant, mailer):
    owner = await owner_token(merchant)
    payment = await pay_ok(client, merchant.sk, amount=50000)
    intent = await create(client, merchant.sk, amount=50000)
    await confirm(client, merchant.sk, intent["id"], payment_method_id="pm_card_visa")
    pay_id, int_id = payment["id"], intent["id"]
    refund = {"amount": 100}
    # (method, path, body, None when allowed | the permission refused)
    checks = {
        "view_only": [
            ("GET", "/api/payments/list", None, None), ("GET", "/api/customers", None, None),
            ("GET", "/api/disputes", None, None), ("GET", "/api/invoices", None, None),
            ("GET", "/api/einvoicing/zatca", None, None), ("GET", "/v1/payments", None, None),
            ("GET", f"/v1/payments/{int_id}", None, None),
            ("POST", f"/api/payments/{pay_id}/refund", refund, "refunds_write"),
            ("POST", "/api/payments/create", {}, "payments_write"),
            ("GET", "/api/balance", None, "balance_read"), ("GET", "/api/api-keys", None, "developers_read"),
            ("GET", "/api/merchant", None, "settings_read"), ("GET", "/api/audit-events", None, "audit_read"),
            ("GET", "/api/team/members", None, "team_read"),
            ("POST", "/v1/payments/intent", {"amount": 100, "currency": "TRY"}, "payments_write"),
            ("POST", f"/v1/payments/{int_id}/refund", refund, "refunds_write"),
        ],
        "support": [
            ("POST", f"/api/payments/{pay_id}/refund", refund, None),
            ("POST", "/api/customers", {"email": uniq("c")}, None),
            ("GET", "/api/invoices", None, None), ("GET", "/api/payments/list", None, None),
            ("POST", "/api/payments/create", {}, "payments_write"),
            ("PUT", "/api/invoices/inv_x1/send", {}, "billing_write"),
            ("GET", "/api/balance", None, "balance_read"),
            ("GET", "/api/einvoicing/zatca", None, "einvoicing_read"),
        ],
        "refund_analyst": [
            ("POST", f"/v1/payments/{int_id}/refund", refund, None), ("GET", "/v1/payments", None, None),
            ("GET", "/api/customers", None, None),
            ("POST", "/v1/payments/intent", {"amount": 100, "currency": "TRY"}, "payments_write"),
            ("GET", "/api/disputes", None, "disputes_read"),
            ("POST", "/api/customers", {"email": uniq("c")}, "customers_write"),
            ("GET", "/api/invoices", None, "billing_read"),
        ],
        "dispute_analyst": [
            ("GET", "/api/disputes", None, None), ("POST", "/api/disputes/dp_x1/evidence", {}, None),
            ("POST", f"/api/payments/{pay_id}/refund", refund, "refunds_write"),
            ("GET", "/api/balance", None, "balance_read"),
        ],
        "accountant": [
            ("GET", "/api/balance", None, None), ("GET", "/api/settlements", None, None),
            ("GET", "/api/payout-settings", None, None), ("POST", "/api/invoices", {}, None),
            ("GET", "/api/einvoicing/zatca", None, None), ("GET", "/v1/payments", None, None),
            ("PUT", "/api/payout-settings", {}, "balance_write"),
            ("POST", f"/api/payments/{pay_id}/refund", refund, "refunds_write"),
            ("GET", "/api/disputes", None, "disputes_read"),
            ("POST", "/api/customers", {}, "customers_write"),
        ],
        "developer": [
            ("POST", "/api/api-keys", {"name": "ci", "mode": "test"}, None),
            ("GET", "/api/webhooks/endpoints", None, None), ("GET", "/api/merchant", None, None),
            ("POST", "/v1/payments/intent", {"amount": 100, "currency": "TRY"}, None),
            ("GET", "/api/disputes", None, None),
            ("PUT", "/api/merchant", {"name": "x"}, "settings_write"),
            ("GET", "/api/team/members", None, "team_read"),
            ("POST", "/api/disputes/dp_x1/evidence", {}, "disputes_write"),
            ("GET", "/api/audit-events", None, "audit_read"),
            ("POST", "/api/einvoicing/zatca/onboard", {}, "einvoicing_write"),
        ],
        "sales": [
            ("GET", "/api/payments/list", None, "payments_read"), ("GET", "/v1/payments", None, "payments_read"),
            ("GET", "/api/customers", None, "customers_read"), ("GET", "/api/balance", None, "balance_read"),
        ],
        "analyst": [
            ("GET", "/api/balance", None, None), ("GET", "/api/analytics", None, None),
            ("GET", "/api/einvoicing/zatca", None, None), ("GET", "/api/disputes", None, None),
            ("GET", "/api/api-keys", None, "developers_read"), ("GET", "/api/merchant", None, "settings_read"),
            ("GET", "/api/team/invites", None, "team_read"),
            ("POST", "/api/customers", {}, "customers_write"),
            ("GET", "/api/audit-events", None, "audit_read"),
        ],
        "administrator": [
            ("GET", "/api/audit-events", None, None), ("PUT", "/api/merchant", {"name": "Shop"}, None),
            ("GET", "/api/team/members", None, None),
        ],
    }
    for role, cases in checks.items():
        _, token = await add_member(client, mailer, owner, [role])
        for method, path, body, refused in cases:
            status, got = await call(client, method, path, token, body)
            if refused is None:
                assert allowed(status, got), (role, method, path, got)
                if method == "GET":
                    assert status == 200, (role, path, got)
            else:
                assert status == 403, (role, method, path, got)
                assert error(got)["code"] == "permission_denied", (role, path, got)
                assert error(got)["permission"] == refused, (role, path, got)
    # the refunds that were allowed happened (support on /api, refund_analyst on /v1)
    status, p = await call(client, "GET", f"/api/payments/{pay_id}", merchant.sk)
    assert p["amount_refunded"] == 100
    status, i = await call(client, "GET", f"/v1/payments/{int_id}", merchant.sk)
    assert i["amount_refunded"] == 100
