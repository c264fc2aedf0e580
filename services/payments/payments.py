"""Merchant card payments: create (risk, routing, cascade), read, list, capture, void, refund.

States: `authorized` (capture: false) -> `captured` | `voided`; `succeeded` (captured at once);
`succeeded`/`captured` -> `refunded` (partial refunds repeat up to the captured amount);
`failed` (declined: the attempt is recorded, the caller gets 402). Every other move is 400
`invalid_state`. Money moves only inside a transaction that holds the payment row
(`select_for_update` on PostgreSQL) and changes it with a conditional update, so concurrent
captures or refunds can never over-capture or over-refund. Ledger legs and the event are
written in the same transaction.
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models import _rows as rows_
from models.billing import SavedCard
from models.core import ListCount, Merchant
from models.einvoicing import EinvoiceRequest
from models.payments import Customer, Payment, PaymentAttempt, Refund, RoutingRule
from models.receipts import Receipt
from services import events, idempotency
from services.identity import audit
from services.money import analytics, dispute_view, ledger, markets, settlement
from services.money.marketplace import reversals as marketplace_reversals, splits as marketplace_splits
from services.payments import cards, customers, installments, methods, payment_search, pricing, receipts, risk, routing
from services.payments.wallets import service as wallets
from services.payments.objects import event_object  # noqa: F401 - the payment as events carry it
from services.errors import AuthenticationError, InvalidState, NotFound, PaymentDeclined, ValidationError
from services.ids import check_id, new_id
from services.infra.runtime import runtime
from services.money.currencies import CURRENCIES, check_amount, check_currency
from services.pagination import Page, check_limit, keyset
from services.principal import Principal
from services.payments.providers import registry
from services.payments.providers.base import AuthorizationRequest
from services.timestamps import iso
from services.validation import Fields, check_datetime, check_enum, check_str

STATUSES = ("authorized", "succeeded", "captured", "voided", "refunded", "failed", "disputed")
REFUNDABLE = ("succeeded", "captured", "refunded")
_COUNTRY = __import__("re").compile(r"[A-Za-z]{2}")


@dataclass
class CreateRequest:
    amount: int
    currency: str
    card: cards.Card
    choice: routing.Choice
    capture: bool
    customer: dict | None
    customer_id: str | None
    billing_country: str | None
    metadata: dict
    description: str | None
    payment_link: str | None = None          # lnk_... when paid on a payment link's checkout
    three_d_secure_passed: bool = False      # the hosted checkout's challenge was passed
    receipt_locale: str | None = None        # the checkout page's language, for the receipt
    installments: int | None = None          # pay in this many installments (services.payments.installments)
    card_issuer: installments.Issuer | None = None   # a held card's (no number in memory any more)
    invoice: bool = False                    # asks for an invoice (a Turkish e-invoice: services.einvoicing.gib)
    wallet_value: Any = None                 # apple_pay / google_pay: the `{token}` object, read at execute
    wallet: Any = None                       # its services.payments.wallets.service.WalletCard, once read
    eta_receipt: bool = False                # an ETA e-receipt asked for (EGP; services.einvoicing.eta)
    splits_raw: Any = None                   # marketplace split lines as sent (services.money.marketplace.splits)
    split_lines: list = field(default_factory=list)   # ... once checked against the sellers


def parse_create(data: dict) -> CreateRequest:
    f = Fields(data)
    currency = check_currency(f._get("currency", True))
    amount = check_amount(f._get("amount", True), currency)
    choice = routing.parse_choice(f._get("routing", False) if f.has("routing") else None)
    pm = f.obj("payment_method", required=True)
    kind = methods.check_api_type(pm._get("type", False) if pm.has("type") else None)
    wallet_value = None
    for other in ("card", *methods.WALLET_TYPES):          # a field of another type (null: not given)
        if other != kind and other != ("card" if kind not in methods.WALLET_TYPES else None) and pm.has(other):
            raise ValidationError(f"payment_method.{other} is for payment_method.type {other}"
                                  f"{' (or card, mada)' if other == 'card' else ''}",
                                  param=f"payment_method.{other}")
    if kind in methods.WALLET_TYPES:       # the token is read (verified, decrypted) when the payment runs
        methods.check_method_currency(kind, currency, "payment_method.type")
        wallet_value = pm._get(kind, True)
        card = None
    else:
        card = cards.parse_card(pm.obj("card", required=True))
        if kind in methods.SCHEME_CURRENCY:       # mada, troy, meeza: a payment in the scheme's currency
            methods.check_method_currency(kind, currency, "payment_method.type")
        methods.check_mada_card(kind, card, currency, "payment_method.card")
    billing_country = pm.str("billing_country", pattern=_COUNTRY)
    pm.reject_unknown()
    customer = customers.parse_payment_customer(f.obj("customer"))
    customer_id = f.str("customer_id", max_len=40)
    metadata = f.metadata() or {}
    description = f.str("description", max_len=500)
    capture = f.bool("capture", default=None)
    method = f.enum("capture_method", ("automatic", "manual"), default=None)
    count = installments.check_count(f._get("installments", False) if f.has("installments") else None)
    invoice = f.bool("invoice", default=False)
    eta_receipt = check_eta_receipt(f, currency)
    splits_raw = f._get("splits", False) if f.has("splits") else None
    f.reject_unknown(also=("idempotency_key",))
    if invoice and currency != "TRY":
        raise ValidationError("invoice: true makes a Turkish e-invoice: only a TRY payment asks for one", param="invoice")
    if invoice and customer is None and customer_id is None:
        raise ValidationError("invoice: true needs the buyer: give customer_id or customer", param="invoice")
    if wallet_value is not None and count is not None and count > 1:
        raise ValidationError(f"installments are for card payments, not {kind}", param="installments")
    if capture is not None and method is not None and capture != (method == "automatic"):
        raise ValidationError("capture and capture_method disagree", param="capture_method")
    do_capture = capture if capture is not None else method != "manual"
    if card is not None and card.brand in methods.PURCHASE_ONLY and not do_capture:
        asked = "capture: false" if capture is False else 'capture_method: "manual"'
        raise ValidationError(f"{asked}: a {methods.get(card.brand).names['en']} card pays a purchase only (no "
                              "separate capture): leave capture out", code="capture_not_supported",
                              param="capture" if capture is False else "capture_method")
    if installments.asks(count) and not do_capture:
        raise ValidationError("a payment in installments is captured at once: capture: false is not possible",
                              param="capture" if capture is not None else "capture_method")
    return CreateRequest(installments=count, amount=amount, currency=currency, card=card, choice=choice, capture=do_capture,
                         customer=customer, customer_id=customer_id,
                         billing_country=billing_country.upper() if billing_country else None,
                         metadata=metadata, description=description, invoice=invoice, wallet_value=(kind, wallet_value)
                         if wallet_value is not None else None, eta_receipt=eta_receipt, splits_raw=splits_raw)


def check_eta_receipt(f: Fields, currency: str) -> bool:
    """`eta_receipt: true` asks for an Egyptian e-receipt: EGP payments only."""
    asked = f.bool("eta_receipt", default=False)
    if asked and currency != "EGP":
        raise ValidationError("eta_receipt: an ETA e-receipt is for EGP payments only", param="eta_receipt")
    return asked


def eta_receipt_request(p: Any, *, asked: bool, now: datetime) -> EinvoiceRequest | None:
    """An EGP payment's e-receipt request, written with the payment (the ETA job builds, chains
    and submits the receipt later, or drops the request when the merchant has no ETA unit or
    gives receipts on request only and none was asked). The payment shows it queued when asked."""
    if p.currency != "EGP":
        return None
    if asked:
        p.eta_receipt = {"uuid": None, "number": None, "status": "queued"}
    return rows_.new(EinvoiceRequest, id=new_id("eir"), merchant_id=p.merchant_id, livemode=p.livemode,
                     authority="eta", kind="receipt", payment_id=p.id, refund_id=None, amount=p.amount,
                     currency=p.currency, asked=asked, due_at=now, created_at=now)


def _fingerprint_params(data: dict) -> dict:
    """The idempotency fingerprint never sees the card number or CVC: the number is replaced by
    its keyed fingerprint."""
    params = copy.deepcopy({k: v for k, v in data.items() if k != "idempotency_key"})
    card = (params.get("payment_method") or {}).get("card") if isinstance(params.get("payment_method"), dict) else None
    if isinstance(card, dict):
        if isinstance(card.get("number"), str):
            card["number"] = cards.fingerprint(card["number"])
        card.pop("cvc", None)
    return params


def fee_of(provider, p: Payment, amount: int) -> int:
    """The fee of a captured amount: the provider's for a card, the scheme's own for a mada card
    paying SAR (lower, capped), a Troy card paying TRY, a Meeza card paying EGP (services.payments.methods)."""
    scheme = methods.SCHEME_CURRENCY.get(p.card_brand or "")
    if scheme is not None and scheme == p.currency:      # a scheme card, or a wallet's mada device number
        return pricing.compute_fee(amount=amount, currency=p.currency, method=p.card_brand).amount
    return provider.fee(amount, p.currency)


async def create_payment(*, principal: Principal, data: dict, idempotency_key: str | None = None,
                         client_address: str | None = None) -> Payment:
    """Approved -> `succeeded` (or `authorized` with capture: false); declined -> the failed
    payment is stored and PaymentDeclined (402) raised. Guarded by the idempotency key."""
    if principal.kind == "publishable":
        raise AuthenticationError("Invalid API key: a publishable key cannot make this call")
    if not isinstance(data, dict):
        raise ValidationError("request body must be a JSON object")
    key = idempotency.check_key(idempotency_key or data.get("idempotency_key"))
    req = parse_create(data)
    req.split_lines = await marketplace_splits.parse(req.splits_raw, principal=principal, amount=req.amount,
                                                     currency=req.currency)
    return await idempotency.run(       # the fingerprint (a deep copy, a card HMAC) only with a key
        principal=principal, operation="payments.create", key=key,
        params=_fingerprint_params(data) if key is not None else None,
        execute=lambda: _create_with_wallet(principal, req, client_address),
        encode=lambda p: p.id,
        decode=lambda pid: get_payment(principal=principal, payment_id=pid))


async def create_from_request(principal: Principal, req: CreateRequest, client_address: str | None) -> Payment:
    """The create of a request already read (services/payments/payment_create_hot.py: a card, no
    wallet, no splits, no idempotency key): what create_payment runs after its checks."""
    return await _create(principal, req, client_address)


async def _create_with_wallet(principal: Principal, req: CreateRequest, client_address: str | None) -> Payment:
    """A wallet token is read (verified, decrypted, checked against the payment), refused when it
    needs a 3-D Secure challenge (`/api` has no buyer step), marked used, then charged as the card
    inside it; any other payment goes straight on."""
    if req.wallet_value is not None:
        kind, value = req.wallet_value
        param = f"payment_method.{kind}"
        wc = await wallets.resolve_token(principal=principal, wallet=kind, value=value, amount=req.amount,
                                         currency=req.currency, param=param)
        wallets.check_card_currency(wc, req.currency, param=f"{param}.token")
        if wc.needs_challenge_check and (wc.card.behaviour == cards.REQUIRES_3DS or
                                         methods.card_method(wc.card, req.currency) != "card"):
            raise ValidationError(f"this {kind} token (PAN_ONLY) needs 3-D Secure, and /api/payments/create has "
                                  "no buyer step: create a payment intent with POST /v1/payments/intent and "
                                  "confirm it with the token instead", param=f"{param}.token",
                                  code="authentication_required")
        await wallets.claim(principal=principal, wc=wc, param=f"{param}.token")
        req.card, req.wallet = wc.card, wc
    return await _create(principal, req, client_address)


async def saved_card_of(*, principal: Principal, customer_id: str) -> SavedCard | None:
    """The card of the customer's last successful payment with this merchant, if any."""
    return await lookup.first(SavedCard, order_by=("-created_at",), **principal.scope, customer_id=customer_id)


async def charge_saved_card(*, principal: Principal, saved: SavedCard, amount: int, currency: str,
                            idempotency_key: str, description: str | None = None,
                            metadata: dict | None = None) -> Payment:
    """Charge a saved card (a renewal): the same risk, routing, provider, ledger and events as
    any payment, guarded by `idempotency_key` so a period is never charged twice. Declined ->
    the failed payment is stored and PaymentDeclined raised."""
    card = cards.Card(brand=saved.brand, last4=saved.last4, exp_month=saved.exp_month, exp_year=saved.exp_year,
                      fingerprint=saved.fingerprint, country=None, behaviour=saved.behaviour, number="")
    req = CreateRequest(amount=amount, currency=currency, card=card, choice=routing.parse_choice(None), capture=True,
                        customer=None, customer_id=saved.customer_id, billing_country=None,
                        metadata=metadata or {}, description=description)
    return await idempotency.run(
        principal=principal, operation="payments.charge_saved_card", key=idempotency_key,
        params={"card": saved.id, "amount": amount, "currency": currency},
        execute=lambda: _create(principal, req, None), encode=lambda p: p.id,
        decode=lambda pid: get_payment(principal=principal, payment_id=pid))


async def create_checkout_payment(*, principal: Principal, card: cards.Card, amount: int, currency: str,
                                  customer: dict | None = None, customer_id: str | None = None,
                                  description: str | None = None, metadata: dict | None = None,
                                  payment_link: str | None = None, three_d_secure_passed: bool = False,
                                  locale: str | None = None, idempotency_key: str | None = None,
                                  client_address: str | None = None, installment_count: int | None = None,
                                  issuer: installments.Issuer | None = None, invoice: bool = False) -> Payment:
    """A payment made by a buyer on a hosted checkout page (payment link or invoice): the same
    risk, routing, provider, ledger, events and receipt as any payment. Declined -> the failed
    payment is stored and PaymentDeclined raised. `idempotency_key` (one per rendered page)
    makes a double submit answer the first payment."""
    req = CreateRequest(amount=amount, currency=currency, card=card, choice=routing.parse_choice(None), capture=True,
                        customer=customer, customer_id=customer_id, billing_country=None, metadata=metadata or {},
                        description=description, payment_link=payment_link,
                        three_d_secure_passed=three_d_secure_passed, receipt_locale=locale,
                        installments=installment_count, card_issuer=issuer, invoice=invoice)
    params = {"card": card.fingerprint, "amount": amount, "currency": currency, "link": payment_link,
              "customer": customer, "customer_id": customer_id, "3ds": three_d_secure_passed}
    if installment_count is not None:
        params["installments"] = installment_count
    return await idempotency.run(
        principal=principal, operation="payments.checkout", key=idempotency_key, params=params,
        execute=lambda: _create(principal, req, client_address), encode=lambda p: p.id,
        decode=lambda pid: get_payment(principal=principal, payment_id=pid))


def _create_read_sql(customer_by: str | None, rules: bool) -> str:
    """The one read of a payment create: the risk signals, the merchant's country and, when
    needed, the customer (by id or by e-mail: the oldest with it) and the active routing rules
    (one row per rule, the rest repeated; one row when there is none). `{}` are placeholders."""
    cmeta, rmeta = Customer._meta, RoutingRule._meta
    columns = [risk.SIGNALS_COLUMNS, f'(SELECT "country" FROM "{Merchant._meta.db_table}" WHERE "id" = {{}}) '
                                     f'AS "merchant_country"']
    joins = ""
    if customer_by is not None:
        columns += [f'cu."{c}" AS "c_{c}"' for c in sorted(cmeta.db_fields)]
        where = '"id" = {}' if customer_by == "id" else '"email" = {} ORDER BY "created_at"'
        joins += (f' LEFT JOIN (SELECT * FROM "{cmeta.db_table}" WHERE "merchant_id" = {{}} AND "livemode" = {{}} '
                  f'AND {where} LIMIT 1) cu ON 1 = 1')
    if rules:
        columns += [f'r."{c}" AS "r_{c}"' for c in sorted(rmeta.db_fields)]
        joins += (f' LEFT JOIN "{rmeta.db_table}" r ON r."merchant_id" = {{}} AND r."livemode" = {{}} '
                  f'AND r."status" = \'active\' ORDER BY r."priority", r."created_at"')
    return f"SELECT {', '.join(columns)} FROM {risk.SIGNALS_FROM}{joins}"


_CREATE_READ_SQL: dict[tuple, str] = {}     # made at first use: the models' columns are known once Tortoise is up


@dataclass
class _Context:
    """What a payment create reads before it decides: all in one statement."""
    signals: dict
    market: str
    customer: Customer | None
    new_customer: bool
    rules: list[RoutingRule]


async def _read_context(principal: Principal, req: CreateRequest, client_address: str | None) -> _Context:
    """One round trip: the risk signals, the market, the customer -- by id, else the merchant's
    customer with the given e-mail, else a new one (not yet written) when an e-mail, name or
    phone was given, else none -- and the active routing rules unless the request chose."""
    given = req.customer or {}
    cid = req.customer_id or given.get("id")
    by, key = ("id", cid) if cid else ("email", given["email"]) if given.get("email") else (None, None)
    values = [principal.merchant_id, *risk.signal_values(principal=principal, currency=req.currency, card=req.card,
                                                         client_address=client_address)]
    if by is not None:
        values += [principal.merchant_id, principal.livemode, key]
    if not req.choice.explicit:
        values += [principal.merchant_id, principal.livemode]
    variant = (by, not req.choice.explicit)
    sql = _CREATE_READ_SQL.get(variant)
    if sql is None:
        sql = _CREATE_READ_SQL[variant] = _create_read_sql(*variant)
    found = await lookup.query(Payment, sql, values)
    first = found[0]
    customer = None
    if by is not None and first["c_id"] is not None:
        customer = Customer._init_from_db(**{c: first["c_" + c] for c in Customer._meta.db_fields})
    new_customer = False
    if cid and customer is None:
        raise NotFound(param="customer_id" if req.customer_id else "customer.id")
    if customer is None and any(given.get(k) for k in ("email", "name", "phone")):
        now = runtime().clock.now()    # written with the payment, in its statement
        customer = rows_.new(Customer, id=new_id("cus"), merchant_id=principal.merchant_id, livemode=principal.livemode,
                            email=given.get("email"), name=given.get("name"), phone=given.get("phone"),
                            metadata={}, created_at=now, updated_at=now)
        new_customer = True
    rules = [RoutingRule._init_from_db(**{c: row["r_" + c] for c in RoutingRule._meta.db_fields})
             for row in found if row.get("r_id") is not None]
    return _Context(signals=first, market=markets.market(first["merchant_country"]), customer=customer,
                    new_customer=new_customer, rules=rules)


async def _create(principal: Principal, req: CreateRequest, client_address: str | None) -> Payment:
    started = time.perf_counter()
    terms = await installments.terms_for_card(principal=principal,
                                              issuer=installments.issuer_of(req.card.number) or req.card_issuer,
                                              amount=req.amount, currency=req.currency, count=req.installments)
    charge = installments.charged(req.amount, terms)       # the card is charged total_amount
    ctx = await _read_context(principal, req, client_address)
    customer, rules, market = ctx.customer, ctx.rules, ctx.market
    given_email = (req.customer or {}).get("email")
    email = given_email or (customer.email if customer else None)     # a customer given by id: its e-mail
    assessment = risk.judge(ctx.signals, amount=req.amount, card=req.card, email=email,
                            client_address=client_address, billing_country=req.billing_country)
    pay_id = new_id("pay")
    now = runtime().clock.now()
    card = req.card
    p = rows_.new(Payment, id=pay_id, merchant_id=principal.merchant_id, livemode=principal.livemode, amount=req.amount,
                currency=req.currency, capture_method="automatic" if req.capture else "manual",
                risk_score=assessment.score, risk_signals=assessment.signals,
                payment_method_type=req.wallet.wallet if req.wallet else "mada" if card.brand == "mada"
                else methods.card_method(card, req.currency),
                card_networks=cards.card_networks(card.brand, card.networks) or None,
                wallet=req.wallet.details() if req.wallet else None,
                card_brand=card.brand, card_last4=card.last4, card_exp_month=card.exp_month,
                card_exp_year=card.exp_year, card_fingerprint=card.fingerprint, card_country=card.country,
                billing_country=req.billing_country, customer_id=customer.id if customer else None, email=email,
                client_address=client_address, description=req.description, metadata=req.metadata,
                payment_link=req.payment_link, receipt_token=receipts.new_token(), created_at=now, updated_at=now,
                installments=terms, installment_count=terms["count"] if terms else 1,
                invoice_requested=req.invoice)
    attempts: list[PaymentAttempt] = []
    if assessment.declined:
        p.status, p.decline_code = "failed", "risk_declined"
        p.failure_message = f"risk score {assessment.score} above {assessment.threshold}"
        p.routing_decision = {"strategy": req.choice.strategy,
                              "reason": f"declined by risk before routing: score {assessment.score} above "
                                        f"{assessment.threshold} ({assessment.explain()})",
                              "alternatives_considered": [], "attempts": [],
                              "latency_ms": int((time.perf_counter() - started) * 1000)}
    else:
        method = methods.card_method(card, req.currency)       # mada (troy, meeza): the scheme's acquirers only
        facts = routing.Facts(amount=req.amount, currency=req.currency,
                              country=cards.SCHEME_COUNTRY[method] if method != "card"
                              else req.billing_country or card.country,
                              card_brand=card.brand, payment_method=method,
                              installments=terms["count"] if terms else 1)
        decision = routing.decide(facts=facts, choice=req.choice, rules=rules)
        decision.started = started
        cascade = await routing.authorize_with_cascade(
            decision=decision,
            request_for=lambda provider, n: AuthorizationRequest(payment_id=pay_id, amount=charge,
                                                                 currency=req.currency, card=card, attempt=n,
                                                                 capture=req.capture,
                                                                 three_d_secure_passed=req.three_d_secure_passed
                                                                 or bool(req.wallet and req.wallet.cryptogram),
                                                                 wallet=req.wallet.authorization() if req.wallet
                                                                 else None))
        final = cascade.final
        p.provider = final.provider
        p.routing_decision = cascade.routing_decision()
        attempts = [rows_.new(PaymentAttempt, id=new_id("att"), payment_id=pay_id, merchant_id=principal.merchant_id,
                                   livemode=principal.livemode, number=a.attempt, provider=a.provider,
                                   outcome=a.result.outcome, decline_code=a.result.decline_code,
                                   amount=charge, currency=req.currency, latency_ms=a.result.latency_ms,
                                   created_at=now) for a in cascade.attempts]
        if cascade.approved:
            p.provider_reference = final.result.reference
            if req.capture:
                p.status, p.amount_captured, p.captured_at = "succeeded", charge, now
                p.fee = fee_of(registry.get(final.provider), p, req.amount)
            else:
                p.status = "authorized"
        else:
            p.status = "failed"
            p.decline_code = final.result.decline_code or "card_declined"
            p.failure_message = final.result.message[:200] or None
    # The payment, its attempts, its ledger legs and its event: written together or not at all
    # (one statement on PostgreSQL).
    rows: list = [customer] if ctx.new_customer else []
    rows += [p, ListCount.added("payments", p), *attempts]     # the list count: its total
    if p.status in ("succeeded", "authorized") and p.customer_id and card.number and req.wallet is None:
        # The customer's card, saved as a token for later charges (renewals): never the number.
        rows.append(rows_.new(SavedCard, id=new_id("card"), merchant_id=p.merchant_id, livemode=p.livemode,
                              customer_id=p.customer_id, payment_id=p.id, brand=card.brand, last4=card.last4,
                              exp_month=card.exp_month, exp_year=card.exp_year, fingerprint=card.fingerprint,
                              behaviour=cards.saved_behaviour(card), created_at=now))
    if p.status == "succeeded":
        rows += ledger.rows(merchant_id=p.merchant_id, livemode=p.livemode, currency=p.currency, kind="capture",
                            legs=ledger.capture_legs(p.amount, p.fee), payment_id=p.id)
        if terms:       # the bank's commission: a ledger transaction of its own
            rows += ledger.rows(merchant_id=p.merchant_id, livemode=p.livemode, currency=p.currency,
                                kind=installments.COMMISSION_KIND, legs=installments.commission_legs(terms),
                                payment_id=p.id)
        # The receipt's outbox row: sent after the commit by the receipts worker (services.receipts).
        receipt = receipts.build(merchant_id=p.merchant_id, livemode=p.livemode, payment_id=p.id,
                                 source="payment", customer=customer, locale=req.receipt_locale, market=market)
        if receipt is not None:
            rows.append(receipt)
        eta = eta_receipt_request(p, asked=req.eta_receipt, now=now)
        if eta is not None:
            rows.append(eta)
    if req.split_lines:         # the marketplace's split lines (and, captured, the sellers' ledger legs)
        split_rows, new_splits = marketplace_splits.rows_for_create(
            req.split_lines, merchant_id=p.merchant_id, livemode=p.livemode, payment_id=p.id, now=now,
            status={"succeeded": "captured", "authorized": "pending"}.get(p.status, "canceled"),
            available_on=settlement.settlement_date(market, now))
        rows += split_rows
        marketplace_splits.attach(p, new_splits)
    etype = {"succeeded": "payment.succeeded", "authorized": "payment.created"}.get(p.status, "payment.failed")
    rows += events.rows(merchant_id=p.merchant_id, livemode=p.livemode, type=etype, obj=event_object(p))
    rows += analytics.payment_rows(p, attempts, market)          # the daily rollups, added to in the same write
    declined = PaymentDeclined(f"Payment declined: {p.decline_code} (payment {p.id} recorded as failed)",
                               code="payment_declined", decline_code=p.decline_code) if p.status == "failed" else None
    key_row = idempotency.outcome_row(p.id, error=declined)   # under a key: its outcome, in the same statement
    if key_row is not None:
        rows.append(key_row)
    await lookup.insert_all(rows)
    if declined is not None:
        raise declined
    return p


# ---------------------------------------------------------------- reads

async def get_payment(*, principal: Principal, payment_id: str) -> Payment:
    p = await lookup.first(Payment, id=payment_id, **principal.scope) if isinstance(payment_id, str) else None
    if p is None:
        raise NotFound()
    return p


async def read_payment(*, principal: Principal, payment_id: str) -> Payment:
    """The payment, read-only (a lookup.RowView), for answers that only show it."""
    p = await lookup.first(Payment, as_view=True, id=payment_id, **principal.scope) \
        if isinstance(payment_id, str) else None
    if p is None:
        raise NotFound()
    return p


async def get_payment_detail(*, principal: Principal, payment_id: str
                             ) -> tuple[Payment, receipts.ReceiptState | None, dict | None]:
    """The payment (read-only: a lookup.RowView), the state of its receipt and its dispute
    (dispute_view.shape, None when not disputed), in one read."""
    found = await lookup.first_with_all(Payment, _DETAIL_JOINS, as_view=True, id=payment_id, **principal.scope) \
        if isinstance(payment_id, str) else None
    if found is None:
        raise NotFound()
    p, (receipt, dispute) = found
    return p, receipts.state_from(receipt), dispute_view.shape(dispute)


_DETAIL_JOINS = ((Receipt, "payment_id", receipts.RECEIPT_COLUMNS), dispute_view.JOIN)


async def list_payments(*, principal: Principal, limit=None, starting_after: str | None = None,
                        status: str | None = None, currency: str | None = None, provider: str | None = None,
                        customer: str | None = None, created_gte: Any = None, created_lte: Any = None,
                        columns: tuple[str, ...] | None = None, search: payment_search.Search | None = None) -> Page:
    """Newest first; filters: status, currency, provider, customer (id), created range, and the
    dashboard's (`search`: method, amount range, q; services.payments.payment_search).
    `columns`: the items carry only these fields (a shaper that reads no more)."""
    filters: list[tuple[str, str, Any]] = []
    if status:
        filters.append(("status", "=", check_enum(status, "status", STATUSES)))
    if currency:
        filters.append(("currency", "=", check_enum(currency.upper() if isinstance(currency, str) else currency,
                                                    "currency", CURRENCIES)))
    if provider:
        filters.append(("provider", "=", registry.get(provider, "provider").name))
    if customer:
        filters.append(("customer_id", "=", check_id(customer, "customer")))
    for name, value, op in (("created_gte", created_gte, ">="), ("created_lte", created_lte, "<=")):
        if value not in (None, ""):
            if isinstance(value, str) and value.isdigit():
                value = int(value)
            when: datetime = value if isinstance(value, datetime) else check_datetime(value, name)
            filters.append(("created_at", op, when))
    if search is not None:
        filters += search.filters
        if search.email or search.phones or search.nothing:
            return await payment_search.page(scope=principal.scope, filters=filters, search=search,
                                             limit=check_limit(limit), starting_after=starting_after)
    return await keyset(Payment, scope=principal.scope, filters=filters, limit=check_limit(limit),
                        starting_after=starting_after, counter="payments", columns=columns)


# ---------------------------------------------------------------- money movements

async def _locked(principal: Principal, payment_id: str) -> Payment:
    """The payment row, locked until the end of the caller's transaction (PostgreSQL)."""
    p = (await Payment.filter(id=payment_id, **principal.scope).select_for_update().first()
         if isinstance(payment_id, str) else None)
    if p is None:
        raise NotFound()
    return p


def _refuse(p: Payment, action: str, allowed: str) -> InvalidState:
    return InvalidState(f"Payment {p.id} cannot be {action}: its status is {p.status}; {allowed}",
                        param=None)


async def capture_payment(*, principal: Principal, payment_id: str, data: dict | None = None) -> Payment:
    """Capture an authorized payment, fully or partly (once); the rest of the authorization is released."""
    f = Fields(data or {})
    amount = f.int("amount", min=1)
    f.reject_unknown()
    async with in_transaction():
        p = await _locked(principal, payment_id)
        if p.status != "authorized":
            raise _refuse(p, "captured", "only an authorized payment (created with capture: false) can be captured")
        amount = p.amount if amount is None else amount
        if amount > p.amount:
            raise ValidationError(f"amount must not exceed the authorized amount {p.amount}", param="amount")
        provider = registry.get(p.provider)
        result = await provider.capture(reference=p.provider_reference, amount=amount, currency=p.currency)
        if not result.ok:
            raise InvalidState(f"{p.provider} refused the capture: {result.message}", code="provider_error")
        now = runtime().clock.now()
        fee = fee_of(provider, p, amount)
        changed = await Payment.filter(id=p.id, status="authorized").update(
            status="captured", amount_captured=amount, fee=fee, captured_at=now, updated_at=now)
        if not changed:
            raise InvalidState(f"Payment {p.id} was changed by a concurrent request; read it again")
        p.status, p.amount_captured, p.fee, p.captured_at, p.updated_at = "captured", amount, fee, now, now
        await ledger.post(merchant_id=p.merchant_id, livemode=p.livemode, currency=p.currency, kind="capture",
                          legs=ledger.capture_legs(amount, fee), payment_id=p.id)
        market = await markets.market_of(p.merchant_id)
        await marketplace_splits.on_capture(payment_id=p.id, captured=amount, now=now,
                                            available_on=settlement.settlement_date(market, now))
        await lookup.upsert(analytics.money_rows(p, market, now, captured=amount))
        await events.emit(merchant_id=p.merchant_id, livemode=p.livemode, type="payment.captured",
                          obj=event_object(p))
        await receipts.enqueue_payment(p)
    return p


async def void_payment(*, principal: Principal, payment_id: str, data: dict | None = None) -> Payment:
    Fields(data or {}).reject_unknown()
    async with in_transaction():
        p = await _locked(principal, payment_id)
        if p.status != "authorized":
            raise _refuse(p, "voided", "only an authorized payment can be voided, before capture")
        result = await registry.get(p.provider).void(reference=p.provider_reference)
        if not result.ok:
            raise InvalidState(f"{p.provider} refused the void: {result.message}", code="provider_error")
        now = runtime().clock.now()
        changed = await Payment.filter(id=p.id, status="authorized").update(status="voided", voided_at=now,
                                                                             updated_at=now)
        if not changed:
            raise InvalidState(f"Payment {p.id} was changed by a concurrent request; read it again")
        p.status, p.voided_at, p.updated_at = "voided", now, now
        await marketplace_splits.on_cancel(payment_id=p.id, now=now)
        await events.emit(merchant_id=p.merchant_id, livemode=p.livemode, type="payment.voided", obj=event_object(p))
    return p


@dataclass
class RefundResult:
    payment: Payment
    refund: Refund
    notes: list[dict] = field(default_factory=list)     # the e-invoice notes the refund caused
    split_reversals: list[dict] | None = None           # a split payment's: each line's part (marketplace)


async def refund_payment(*, principal: Principal, payment_id: str, data: dict | None = None) -> RefundResult:
    """Refund all that is left, or `amount`; repeatable until the captured amount is refunded."""
    amount, reason = parse_refund(data, also=marketplace_reversals.REFUND_FIELDS)
    opts = marketplace_reversals.parse_options(data)
    refund_id = new_id("ref")
    async with in_transaction():
        p = await _locked(principal, payment_id)
        if p.status not in REFUNDABLE:
            raise _refuse(p, "refunded", "only a succeeded or captured payment can be refunded")
        amount = refund_amount(what=f"Payment {p.id}", captured=p.amount_captured, refunded=p.amount_refunded,
                               amount=amount, obj=p)
        now = runtime().clock.now()
        # A split payment's sellers first (their reversals), then the provider's refund.
        reversals = await marketplace_reversals.on_refund(payment_id=p.id, payment_amount=p.amount,
                                                          refunded_before=p.amount_refunded,
                                                          refund_amount=amount, refund_id=refund_id, opts=opts,
                                                          now=now)
        reference = await provider_refund(p.provider, p.provider_reference, amount, p.currency)
        changed = await Payment.filter(id=p.id, amount_refunded=p.amount_refunded, status=p.status).update(
            status="refunded", amount_refunded=p.amount_refunded + amount, updated_at=now)
        if not changed:
            raise InvalidState(f"Payment {p.id} was changed by a concurrent request; read it again")
        p.status, p.amount_refunded, p.updated_at = "refunded", p.amount_refunded + amount, now
        refund = await Refund.create(id=refund_id, payment_id=p.id, merchant_id=p.merchant_id,
                                     livemode=p.livemode, amount=amount, currency=p.currency, reason=reason,
                                     status="succeeded", provider_reference=reference, created_at=now)
        await post_refund(p, amount=amount, refund_id=refund.id, now=now, payment_id=p.id)
        await audit.record(merchant_id=p.merchant_id, action="refund.created", principal=principal,
                           object_type="refund", object_id=refund.id,
                           after={"payment_id": p.id, "amount": amount, "currency": p.currency, "reason": reason})
        await events.emit(merchant_id=p.merchant_id, livemode=p.livemode, type="payment.refunded",
                          obj=event_object(p, refund={"id": refund.id, "amount": amount, "reason": reason}))
    notes = await einvoice_refund(p, amount, reason)
    return RefundResult(payment=p, refund=refund, notes=notes, split_reversals=reversals or None)


# The money rules of a refund, shared by `/api` payments (above) and `/v1` intents
# (services.payments.intent_refunds): one request shape, one limit, one provider call, one ledger.

def parse_refund(data: Any, *, also: tuple[str, ...] = ()) -> tuple[int | None, str | None]:
    """`amount` (minor units, at least 1; default: all that is left) and an optional `reason`."""
    f = Fields(data or {})
    amount = f.int("amount", min=1)
    reason = f.str("reason", max_len=200)
    f.reject_unknown(also=also)
    return amount, reason


def refund_amount(*, what: str, captured: int, refunded: int, amount: int | None, obj: Any = None) -> int:
    """What this refund moves: `amount`, or all that is left; never more than captured minus refunded.
    `obj` (a payment or an intent) paid in installments is refunded in full or not at all."""
    remaining = captured - refunded
    if remaining <= 0:
        raise InvalidState(f"{what} is already fully refunded ({refunded} of {captured})")
    amount = remaining if amount is None else amount
    if obj is not None and getattr(obj, "installments", None):
        installments.check_refund(obj, amount, remaining)
    if amount > remaining:
        raise ValidationError(f"amount must not exceed the refundable {remaining} "
                              f"({captured} captured, {refunded} refunded)",
                              param="amount", code="amount_too_large")
    return amount


async def provider_refund(provider: str, reference: str | None, amount: int, currency: str) -> str | None:
    """Ask the provider that captured the money to give `amount` back; its refund reference."""
    result = await registry.get(provider).refund(reference=reference, amount=amount, currency=currency)
    if not result.ok:
        raise InvalidState(f"{provider} refused the refund: {result.message}", code="provider_error")
    return result.reference


async def post_refund(obj: Any, *, amount: int, refund_id: str, now: datetime, payment_id: str | None = None,
                      source_id: str | None = None) -> None:
    """Inside the refund's transaction: the ledger transaction (`refund`: the merchant's balance
    gives back `amount`, fees are kept) and the day's refunded rollup of `obj` (a payment or an
    intent: merchant_id, livemode, currency, provider, id). Paid in installments, the merchant
    gives back its price and the bank's commission is reversed in a transaction of its own."""
    terms = getattr(obj, "installments", None)
    terms = terms if terms and terms.get("total_amount") is not None else None
    await ledger.post(merchant_id=obj.merchant_id, livemode=obj.livemode, currency=obj.currency, kind="refund",
                      legs=ledger.refund_legs(obj.amount if terms else amount), payment_id=payment_id,
                      refund_id=refund_id, source_id=source_id)
    if terms:
        await ledger.post(merchant_id=obj.merchant_id, livemode=obj.livemode, currency=obj.currency,
                          kind=installments.COMMISSION_KIND, payment_id=payment_id, refund_id=refund_id,
                          source_id=source_id, legs=installments.commission_legs(terms, refund=True))
    await lookup.upsert(analytics.money_rows(obj, await markets.market_of(obj.merchant_id), now, refunded=amount))


async def einvoice_refund(p: Any, amount: int, reason: str | None) -> list[dict]:
    """A refund of a payment that paid an e-invoice gets its note (a ZATCA credit note, a GİB
    return, ...), which the refund's answer names. The refund stands whatever happens there: a
    failure is logged, never the refund's error."""
    from services.einvoicing import core

    return await core.notes_for_refund(merchant_id=p.merchant_id, livemode=p.livemode, payment_id=p.id,
                                       currency=p.currency, amount=amount, reason=reason)


async def refunds_of(*, principal: Principal, payment_ids: list[str]) -> dict[str, list[Refund]]:
    """The refunds of these payments (the caller's), oldest first, by payment id: one read."""
    out: dict[str, list[Refund]] = {}
    for r in await Refund.filter(payment_id__in=payment_ids, **principal.scope).order_by("created_at", "id"):
        out.setdefault(r.payment_id, []).append(r)
    return out
