"""What each root field of the schema needs of a member's roles: the GraphQL twin of
services.identity.permissions.for_route, so REST and GraphQL refuse the same things. A field
mapped to None checks its caller itself (sign-in, the viewer, the member's own account). Every
root field is listed: tests/test_team_permissions.py fails on a new field that is not."""
from __future__ import annotations

from graphql import DocumentNode, FieldNode, FragmentSpreadNode, InlineFragmentNode, OperationDefinitionNode

_R, _W = "_read", "_write"

FIELDS: dict[str, str | None] = {
    # queries
    "viewer": None, "node": None, "apiKeys": "developers" + _R, "balance": "balance" + _R,
    "bnplEligibility": "payments" + _R, "crm": "crm" + _R, "reports": "crm" + _R,
    "customer": "customers" + _R, "customers": "customers" + _R, "dispute": "disputes" + _R,
    "disputes": "disputes" + _R, "etaUnit": "einvoicing" + _R, "gibTaxpayer": "einvoicing" + _R,
    "gibUnit": "einvoicing" + _R, "zatcaUnit": "einvoicing" + _R, "installmentAnalytics": "payments" + _R,
    "installmentOptions": "payments" + _R, "installmentPlans": "settings" + _R, "invoice": "billing" + _R,
    "invoices": "billing" + _R, "merchantProfile": "settings" + _R, "methodAnalytics": "payments" + _R,
    "payment": "payments" + _R, "payments": "payments" + _R, "paymentIntent": "payments" + _R,
    "paymentIntents": "payments" + _R, "paymentLink": "payments" + _R, "paymentLinks": "payments" + _R,
    "paymentMethodTypes": "payments" + _R, "routingRules": "settings" + _R, "settlement": "balance" + _R,
    "settlements": "balance" + _R, "subscription": "billing" + _R, "subscriptions": "billing" + _R,
    "testClock": "developers" + _R, "webhookEndpoints": "developers" + _R, "webhookEvents": "developers" + _R,
    "teamMembers": "team" + _R, "teamInvites": "team" + _R, "auditEvents": "audit_read", "sessions": None,
    "payoutSettings": "balance" + _R, "analytics": "payments" + _R, "paymentsExport": "payments" + _R,
    "subMerchant": "balance" + _R, "subMerchants": "balance" + _R, "split": "payments" + _R,
    "payout": "balance" + _R, "payoutBatch": "balance" + _R, "marketplace": "settings" + _R,
    # mutations
    "apiKeyCreate": "developers" + _W, "apiKeyRevoke": "developers" + _W, "crmCustomerCreate": "crm" + _W,
    "crmCustomerDelete": "crm" + _W, "crmCustomerUpdate": "crm" + _W, "customerCreate": "customers" + _W,
    "customerUpdate": "customers" + _W, "dealCreate": "crm" + _W, "dealUpdate": "crm" + _W,
    "disputeEvidenceSubmit": "disputes" + _W, "etaSetup": "einvoicing" + _W, "fawryPay": "developers" + _W,
    "sadadPay": "developers" + _W, "requestToPayApprove": "developers" + _W, "requestToPayReject": "developers" + _W,
    "gibSetup": "einvoicing" + _W, "installmentPlansReplace": "settings" + _W,
    "invoiceCancelEinvoice": "einvoicing" + _W, "invoiceCreate": "billing" + _W,
    "invoiceCreditNote": "einvoicing" + _W, "invoiceDebitNote": "einvoicing" + _W,
    "invoiceEtaNote": "einvoicing" + _W, "invoiceGibReturn": "einvoicing" + _W, "invoiceMarkPaid": "billing" + _W,
    "invoiceSend": "billing" + _W, "invoiceUpdate": "billing" + _W, "merchantProfileUpdate": "settings" + _W,
    "messageSend": "crm" + _W, "otpRequest": None, "otpVerify": None, "paymentCapture": "payments" + _W,
    "paymentCreate": "payments" + _W, "paymentIntentCancel": "payments" + _W,
    "paymentIntentCapture": "payments" + _W, "paymentIntentConfirm": "payments" + _W,
    "paymentIntentCreate": "payments" + _W, "paymentIntentRefund": "refunds" + _W,
    "paymentLinkCancel": "payments" + _W, "paymentLinkCreate": "payments" + _W, "paymentRefund": "refunds" + _W,
    "paymentVoid": "payments" + _W, "routingRuleCreate": "settings" + _W, "routingRuleUpdate": "settings" + _W,
    "subscriptionCancel": "billing" + _W, "subscriptionCreate": "billing" + _W,
    "subscriptionPause": "billing" + _W, "subscriptionResume": "billing" + _W,
    "testClockAdvance": "developers" + _W, "webhookEndpointConfigure": "developers" + _W,
    "webhookEventRetry": "developers" + _W, "webhookTest": "developers" + _W, "zatcaOnboard": "einvoicing" + _W,
    "teamInviteCreate": "team" + _W, "teamInviteRevoke": "team" + _W, "teamInviteAccept": None,
    "teamMemberUpdate": "team" + _W, "teamMemberRemove": "team" + _W, "twoFactorVerify": None,
    "twoFactorEnroll": None, "twoFactorConfirm": None, "twoFactorDisable": None, "stepUp": None,
    "sessionRevoke": None, "sessionsRevokeOthers": None, "payoutSettingsUpdate": "balance" + _W,
    "disputeEvidenceFileAdd": "disputes" + _W, "memberPreferencesUpdate": None, "sessionSwitchMerchant": None,
    "subMerchantCreate": "balance" + _W, "subMerchantUpdate": "balance" + _W, "splitRelease": "payments" + _W,
    "splitHold": "payments" + _W, "payoutBatchCreate": "balance" + _W, "marketplaceUpdate": "settings" + _W,
    # subscriptions
    "paymentEvents": "payments" + _R,
}
# Open to a member whose merchant requires 2FA and who has not enrolled yet (REST's /api/me*).
OWN_ACCOUNT = frozenset({"viewer", "otpRequest", "otpVerify", "twoFactorVerify", "twoFactorEnroll",
                         "twoFactorConfirm", "twoFactorDisable", "sessions", "sessionRevoke", "sessionsRevokeOthers",
                         "teamInviteAccept", "memberPreferencesUpdate", "sessionSwitchMerchant"})

# node(id:) by the id's prefix: what reading that object needs.
NODE_PREFIXES: dict[str, str] = {
    "pay": "payments_read", "lnk": "payments_read", "cus": "customers_read", "key": "developers_read",
    "whk": "developers_read", "evt": "developers_read", "rul": "settings_read", "sub": "billing_read",
    "inv": "billing_read", "dp": "disputes_read", "set": "balance_read", "ccu": "crm_read", "deal": "crm_read",
    "mbr": "team_read", "ivt": "team_read", "aud": "audit_read",
    "smr": "balance_read", "spl": "payments_read", "po": "balance_read", "pb": "balance_read",
}


def root_fields(document: DocumentNode, operation_name: str | None) -> tuple[str, ...]:
    """The root field names the named operation (or the first) selects, fragments followed."""
    fragments = {d.name.value: d for d in document.definitions if d.kind == "fragment_definition"}
    operation = None
    for d in document.definitions:
        if isinstance(d, OperationDefinitionNode) and (operation_name is None or
                                                       (d.name is not None and d.name.value == operation_name)):
            operation = d
            break
    if operation is None:
        return ()
    out: list[str] = []
    seen: set[str] = set()

    def walk(selection_set):
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                if sel.name.value not in out:
                    out.append(sel.name.value)
            elif isinstance(sel, InlineFragmentNode):
                walk(sel.selection_set)
            elif isinstance(sel, FragmentSpreadNode) and sel.name.value not in seen:
                seen.add(sel.name.value)
                frag = fragments.get(sel.name.value)
                if frag is not None:
                    walk(frag.selection_set)
    walk(operation.selection_set)
    return tuple(out)


def needed(fields: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """(the permissions `fields` need, whether all of them are open before 2FA enrolment)."""
    perms = tuple(dict.fromkeys(p for f in fields if (p := FIELDS.get(f)) is not None))
    return perms, all(f in OWN_ACCOUNT or f == "__typename" for f in fields)
