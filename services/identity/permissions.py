"""Roles and permissions of a merchant's members: `<area>_read` and `<area>_write` (write includes
read) per area, plus `audit_read`; a member holds the union of its roles' permissions. API keys
keep full access. What each REST route and GraphQL field needs is decided here too (`for_route`,
`for_field`), so the two protocols agree."""
from __future__ import annotations

import re

from services.errors import PermissionDenied

AREAS = ("payments", "refunds", "disputes", "balance", "customers", "billing", "einvoicing", "crm",
         "developers", "team", "settings")
ALL = frozenset([f"{a}_read" for a in AREAS] + [f"{a}_write" for a in AREAS] + ["audit_read"])


def _grant(write: tuple[str, ...] = (), read: tuple[str, ...] = (), audit: bool = False) -> frozenset[str]:
    out = {f"{a}_write" for a in write} | {f"{a}_read" for a in write + read}
    if audit:
        out.add("audit_read")
    return frozenset(out)


ROLES: dict[str, frozenset[str]] = {
    "owner": ALL,
    "administrator": ALL,
    "developer": _grant(write=("payments", "refunds", "customers", "billing", "developers"),
                        read=("disputes", "balance", "einvoicing", "settings")),
    "analyst": _grant(read=tuple(a for a in AREAS if a not in ("developers", "team", "settings"))),
    "support": _grant(write=("refunds", "disputes", "customers"), read=("payments", "billing", "crm")),
    "view_only": _grant(read=("payments", "refunds", "disputes", "customers", "billing", "einvoicing")),
    "refund_analyst": _grant(write=("refunds",), read=("payments", "customers")),
    "dispute_analyst": _grant(write=("disputes",), read=("payments", "customers")),
    "accountant": _grant(write=("billing", "einvoicing"), read=("payments", "refunds", "balance", "customers")),
    "sales": _grant(write=("crm",)),
}
ROLE_NAMES = tuple(ROLES)


def of_roles(roles) -> frozenset[str]:
    out: set[str] = set()
    for r in roles:
        out |= ROLES.get(r, frozenset())
    return frozenset(out)


def require(permissions: frozenset[str] | None, permission: str) -> None:
    """403 `permission_denied` naming the permission; `None` (an API key) holds every one."""
    if permissions is not None and permission not in permissions:
        raise denied(permission)


def denied(permission: str) -> PermissionDenied:
    err = PermissionDenied(f"Your role does not allow this: it needs {permission}", code="permission_denied")
    err.permission = permission
    return err


def flags(permissions: frozenset[str] | None) -> dict[str, bool]:
    """Every permission as a flag (`payments_read: True`), for `/api/me` and GraphQL."""
    held = ALL if permissions is None else permissions
    return {p: p in held for p in sorted(ALL)}


# ---------------------------------------------------------------- what each route needs

# First match wins: (path pattern, area). The method decides read (GET) or write (anything else).
# `None` as the area: any member or key may (sign-in, /api/me*, which check themselves).
_MERCHANT_RULES: tuple[tuple[str, str | None], ...] = (
    (r"/auth/", None),
    (r"/me(/|$)", None),
    (r"/team/", "team"),
    (r"/audit-events", "audit"),
    (r"/api-keys", "developers"),
    (r"/webhooks/", "developers"),
    (r"/test-helpers/|/test_helpers/", "developers"),
    (r"/einvoicing/", "einvoicing"),
    (r"/invoices/\{id\}/(xml|eta|notes|credit-notes|debit-notes|returns|cancel-einvoice)", "einvoicing"),
    (r"/payments/\{id\}/eta-receipt", "einvoicing"),
    (r"/invoices|/subscriptions", "billing"),
    (r"/payments/\{id\}/refund", "refunds"),
    (r"/marketplace$", "settings"),
    (r"/sub-merchants|/payouts|/payout-batches", "balance"),
    (r"/splits", "payments"),
    (r"/disputes", "disputes"),
    (r"/balance|/settlements|/payout-settings", "balance"),
    (r"/customers", "customers"),
    (r"/merchant$|/routing/|/installments/plans|/wallets/apple-pay(/|$)", "settings"),
    (r"/payments|/payment-links|/analytics|/payment_method_types|/installments|/bnpl/|/wallets/google-pay|"
     r"/payment_methods", "payments"),
)
_COMPILED = tuple((re.compile(p), a) for p, a in _MERCHANT_RULES)


def for_route(interface: str, method: str, path: str) -> str | None:
    """The permission a route of `interface` ("merchant", "intents", "crm") needs, or None
    when the route checks its caller itself. A route no rule covers is a programming error:
    tests/test_team_permissions.py walks every route."""
    if interface == "crm":
        area = "crm"
    else:
        for pattern, a in _COMPILED:
            if pattern.search(path):
                area = a
                break
        else:
            raise LookupError(f"no permission rule for {interface} {method} {path}")
    if area is None:
        return None
    if area == "audit":
        return "audit_read"
    return f"{area}_read" if method in ("GET", "HEAD") else f"{area}_write"
