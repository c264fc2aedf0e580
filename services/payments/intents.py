"""Payment intents (`/v1`, payment-intents-v1.md): create, confirm, retrieve, list, cancel,
expire, 3-D Secure, crypto, cash on delivery, QR and tap to pay, splits through the ledger.

Both REST (rest_compat/intents_v1.py) and GraphQL (schema/intents.py) call these functions;
`intent_object` is the documented payment object (also the webhook `data.object`).
"""
from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any
from urllib.parse import urlencode, urlsplit

from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models._rows import new
from models.core import ListCount, Merchant
from models.intents import IntentSplit, PaymentIntent
from models.receipts import Receipt
from services import events, idempotency
from services.money import analytics, ledger, markets, settlement
from services.money.marketplace import splits as marketplace_splits
from services.payments import cards, crypto, expiry_due, installments, payments, pricing, receipts, routing
from services.payments import methods as methods_registry
from services.errors import Conflict, DomainError, InvalidState, NotFound, PaymentDeclined, ValidationError
from services.ids import new_id
from services.infra import db
from services.infra.clock import cached_offset_of, overridden
from services.infra.runtime import runtime
from services.pagination import Page, check_limit, keyset
from services.payments.payment_methods import resolve_payment_method
from services.payments.wallets import service as wallets
from services.principal import Principal
from services.payments.providers.base import AuthorizationRequest
from services.timestamps import iso
from services.validation import Fields, MAX_INT, check_int, check_str, one_of

METHODS = methods_registry.TYPES        # the one registry: services.payments.methods
OBJECT_METHODS = METHODS + ("bank_transfer",)
STATUSES = ("requires_payment_method", "requires_confirmation", "requires_action", "processing", "succeeded",
            "failed", "canceled", "refunded", "requires_capture")       # requires_capture: BNPL, authorized
UNPAID = expiry_due.UNPAID         # (defined where the expiry read writes them as literals)
CONFIRMABLE = ("requires_payment_method", "requires_confirmation", "failed")
CANCELABLE = UNPAID + ("failed",)
CANCELLATION_REASONS = ("requested_by_customer", "duplicate", "fraudulent", "abandoned")
CARD_LIKE = ("card", "qr", "tap_to_pay", "mada", "troy", "meeza")
LOCAL_FLOWS = ("knet", "benefit", "fawry", "stcpay") + methods_registry.BNPL_TYPES  # services.payments.local_methods (bnpl)
LOCAL_FLOWS += ("sadad", "cliq", "aani")          # services.payments.bills_rtp
WAITS_TO_EXPIRE = ("fawry", "sadad", "cliq", "aani")   # requires_action until expires_at, then failed: expired
LOCAL_FLOWS += ("eg_wallet", "naps", "omannet")    # services.payments.regional_redirects
WAITS_TO_EXPIRE += ("eg_wallet",)


class _NotInstalled:
    def __getattr__(self, name):
        raise RuntimeError("local payment methods are not installed: the app installs them at start "
                           "(services.payments.local_methods.install)")


# The local methods' flows (mada checks, redirects, references, one-time codes). Installed by
# services.payments.local_methods.install() when the app starts, so this module, which that one
# builds on, imports nothing of it.
_local: Any = _NotInstalled()


def use_local_flows(module: Any) -> None:
    global _local
    _local = module
EXPIRY = timedelta(hours=1)
MAX_SPLITS = 10
EXPIRY_BATCH = 500
_MER_ID = re.compile(r"mer_[0-9A-Za-z]{1,40}")
_COUNTRY = re.compile(r"[A-Z]{2}")
SPLIT_CLEARING = "split_clearing"     # ledger account between a payer's and a receiver's transactions


class InsufficientFunds(DomainError):
    status = 402
    code = "insufficient_funds"
    type = "invalid_request_error"


# ---------------------------------------------------------------- derived values

_KEYED: list = [None, None, None]      # (secret key, its HMAC-SHA256 inner and outer hashes): copied per use


def _keyed(secret: str) -> list:
    """HMAC-SHA256 (RFC 2104) keyed once: the SHA-256 states after the key padded with ipad and
    with opad. A signature then copies the two states (C calls) instead of an `hmac.HMAC`
    (its copy and hexdigest are Python wrappers): 2.0 against 3.5 us. The same bytes as
    `hmac.new(secret, msg, sha256)` (tests/test_intent_shapes.py)."""
    key = secret.encode()
    if len(key) > 64:                     # SHA-256's block: a longer key is hashed first
        key = hashlib.sha256(key).digest()
    key = key.ljust(64, b"\0")
    return [secret, hashlib.sha256(bytes(b ^ 0x36 for b in key)), hashlib.sha256(bytes(b ^ 0x5C for b in key))]


def _sign(purpose: str, intent_id: str, n: int = 24) -> str:
    secret = runtime().config.secret_key
    if _KEYED[0] != secret:
        _KEYED[:] = _keyed(secret)
    inner = _KEYED[1].copy()
    inner.update(f"{purpose}:{intent_id}".encode())
    outer = _KEYED[2].copy()
    outer.update(inner.digest())
    return outer.hexdigest()[:n]


def client_secret_of(intent: PaymentIntent) -> str:
    """Derived, not stored: `{id}_secret_{hmac}` lets a browser act on this one intent."""
    return f"{intent.id}_secret_{_sign('client_secret', intent.id)}"


def checkout_url_of(intent: PaymentIntent) -> str:
    return f"{runtime().config.pay_url.rstrip('/')}/{intent.id}"


def qr_code_url_of(intent: PaymentIntent) -> str:
    return f"{runtime().config.public_url.rstrip('/')}/v1/payments/{intent.id}/qr.png"


def challenge_url_of(intent: PaymentIntent) -> str:
    token = _sign(f"3ds:{intent.version}", intent.id, 32)
    return f"{runtime().config.public_url.rstrip('/')}/v1/payments/{intent.id}/3ds?{urlencode({'token': token})}"


def receipt_url_of(intent: PaymentIntent) -> str | None:
    """The one receipt_url of a paid intent (services.receipts: its own random token, not the id)."""
    return receipts.url_of(intent.id, intent.receipt_token)


def intent_object(intent: PaymentIntent) -> dict[str, Any]:
    """The documented payment object (plus a few documented-as-ours fields)."""
    obj: dict[str, Any] = {
        "id": intent.id, "object": "payment_intent", "status": intent.status, "amount": intent.amount,
        "currency": intent.currency, "amount_received": intent.amount_received,
        "amount_refunded": intent.amount_refunded,
        "payment_method": intent.payment_method, "payment_method_id": intent.payment_method_ref,
        "checkout_url": checkout_url_of(intent), "client_secret": client_secret_of(intent),
        "fee": {"amount": intent.fee_amount, "currency": intent.currency, "rate": intent.fee_rate,
                "breakdown": {"processing": intent.fee_processing,
                              "currency_conversion": intent.fee_conversion, "network": intent.fee_network}},
        "net_amount": intent.net_amount, "settlement_date": intent.settlement_date.isoformat(),
        "merchant_id": intent.merchant_id, "customer_id": intent.customer_id, "order_id": intent.order_id,
        "description": intent.description, "statement_descriptor": intent.statement_descriptor,
        "metadata": intent.metadata or {}, "locale": intent.locale,
        "created_at": iso(intent.created_at), "expires_at": iso(intent.expires_at),
        "succeeded_at": iso(intent.succeeded_at), "canceled_at": iso(intent.canceled_at),
        "cancellation_reason": intent.cancellation_reason, "livemode": intent.livemode,
        "next_action": intent.next_action, "receipt_url": receipt_url_of(intent),
        "failure_code": intent.failure_code, "failure_message": intent.failure_message,
        "split": intent.split or [],
        "installments": installments.as_object(intent.installments),
        "eta_receipt": intent.eta_receipt,
        "invoice_id": intent.invoice_id, "gib": intent.gib,
    }
    if intent.crypto is not None:
        c = intent.crypto
        obj["crypto"] = {"asset": c["asset"], "network": c["network"], "address": c["address"],
                         "amount_crypto": c["amount_crypto"], "rate": c["rate"],
                         "rate_locked_until": c["rate_locked_until"], "qr_code_url": qr_code_url_of(intent),
                         "detected_at": c.get("detected_at"), "confirmed_at": c.get("confirmed_at"),
                         "transaction_hash": c.get("transaction_hash")}
    if intent.payment_method == "qr":
        obj["qr_code_url"] = qr_code_url_of(intent)
    if intent.cod_address is not None:
        obj["cod_address"] = intent.cod_address
        obj["cod_status"] = intent.cod_status
    if intent.method_details is not None:      # a confirmed card or a local method (services.local_methods)
        obj.update(_local.object_fields(intent))
        if "wallet" in intent.method_details:  # Apple Pay / Google Pay: the card inside and the wallet
            obj["payment_method_details"] = wallets.details_object(intent.method_details)
    return obj


# ---------------------------------------------------------------- input checks

def _check_metadata(raw: Any) -> dict[str, str] | None:
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ValidationError("metadata must be an object of string keys to string values", param="metadata")
    if len(raw) > 50:
        raise ValidationError("metadata may hold at most 50 keys", param="metadata")
    out = {}
    for k, v in raw.items():
        if not isinstance(k, str) or not 1 <= len(k) <= 40:
            raise ValidationError("metadata keys must be strings of 1 to 40 characters", param="metadata")
        if not isinstance(v, str):
            raise ValidationError(f"metadata.{k} must be a string", param=f"metadata.{k}")
        if len(v) > 500:
            raise ValidationError(f"metadata.{k} must be at most 500 characters", param=f"metadata.{k}")
        out[k] = v
    return out


def _check_cod_address(f: Fields | None) -> dict[str, str]:
    out = {"line1": f.str("line1", required=True, min_len=1, max_len=200),
           "city": f.str("city", required=True, min_len=1, max_len=100),
           "country": f.str("country", required=True, pattern=_COUNTRY, max_len=2)}
    if f.str("country") not in settlement.MARKETS:
        raise one_of("cod_address.country", settlement.MARKETS)
    postal = f.str("postal_code", max_len=20)
    if postal:
        out["postal_code"] = postal
    f.reject_unknown()
    return out


def _check_url(value: str, param: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ValidationError(f"{param} must be an http(s) URL", param=param)
    return value


def _amount(f: Fields, currency: str) -> int:
    try:
        amount = f.int("amount", required=True, min=-MAX_INT)
    except ValidationError as e:
        raise ValidationError(e.message, code="invalid_amount", param="amount") from None
    return pricing.check_intent_amount(amount, currency)


def _idem_key(header: str | None, body: Mapping) -> str | None:
    raw = body.get("idempotency_key") if isinstance(body, Mapping) else None
    if raw is not None:
        raw = idempotency.check_key(raw)
    if header and raw and header != raw:
        raise ValidationError("X-Idempotency-Key and idempotency_key differ", param="idempotency_key")
    return header or raw


def _params(body: Mapping) -> dict:
    return {k: v for k, v in body.items() if k != "idempotency_key"} if isinstance(body, Mapping) else body


async def _load(principal: Principal, intent_id: str, *, client_secret: str | None = None,
                for_update: bool = False) -> PaymentIntent:
    if for_update:
        intent = await PaymentIntent.filter(id=intent_id, **principal.scope).select_for_update().first()
    else:
        intent = await lookup.first(PaymentIntent, id=intent_id, **principal.scope)
    if intent is None:
        raise NotFound("No such payment intent", param="id")
    _check_client_secret(principal, intent, client_secret)
    return intent


def _check_client_secret(principal: Principal, intent: PaymentIntent, client_secret: str | None) -> None:
    if principal.kind == "publishable":
        # A publishable key reaches an intent only with that intent's client secret.
        if client_secret is None:
            raise ValidationError("client_secret is required with a publishable key", param="client_secret")
        if not hmac.compare_digest(str(client_secret).encode(), client_secret_of(intent).encode()):   # bytes: any text
            raise NotFound("No such payment intent", param="id")


# ---------------------------------------------------------------- create

@dataclass
class _Split:
    merchant_id: str
    amount: int
    currency: str


async def _check_splits(raw: list | None, *, currency: str, principal: Principal) -> list[_Split]:
    if not raw:
        return []
    if len(raw) > MAX_SPLITS:
        raise ValidationError(f"split may hold at most {MAX_SPLITS} entries", param="split")
    out: list[_Split] = []
    for i, entry in enumerate(raw):
        p = f"split[{i}]"
        f = Fields(entry, p)
        mid = f.str("merchant_id", required=True, pattern=_MER_ID, max_len=44)
        amount = f.int("amount", required=True, min=1)
        cur = f.str("currency", required=True, max_len=3)
        f.reject_unknown()
        pricing.check_currency(cur, f"{p}.currency")
        if cur != currency:
            raise ValidationError(f"{p}.currency must be the payment currency {currency}",
                                  code="invalid_currency", param=f"{p}.currency")
        if mid == principal.merchant_id:
            raise ValidationError(f"{p}.merchant_id must be another merchant", param=f"{p}.merchant_id")
        if any(s.merchant_id == mid for s in out):
            raise ValidationError(f"{p}.merchant_id appears twice", param=f"{p}.merchant_id")
        out.append(_Split(mid, amount, cur))
    found = set(await Merchant.filter(id__in=[s.merchant_id for s in out]).values_list("id", flat=True))
    for i, s in enumerate(out):
        if s.merchant_id not in found:
            raise ValidationError(f"split[{i}].merchant_id is not a merchant", param=f"split[{i}].merchant_id",
                                  code="resource_missing")
    return out


async def _available(principal: Principal, currency: str) -> int:
    bal = await ledger.merchant_balance(merchant_id=principal.merchant_id, livemode=principal.livemode)
    return bal.get(currency, 0)


async def _check_split_funding(principal: Principal, *, net_amount: int, splits_total: int, currency: str) -> None:
    """Splits beyond the net amount are funded from the merchant's available balance."""
    excess = splits_total - net_amount
    if excess > 0 and await _available(principal, currency) < excess:
        raise InsufficientFunds(f"The split exceeds the net amount by {excess} and the available {currency} "
                                f"balance does not cover it", param="split")


async def create_intent(*, principal: Principal, data: Any, idempotency_key: str | None = None) -> PaymentIntent:
    key = _idem_key(idempotency_key, data)
    return await idempotency.run(
        principal=principal, operation="v1.intent.create", key=key, params=_params(data),
        execute=lambda: _create(principal, data), encode=lambda i: i.id,
        decode=lambda iid: _load(principal, iid))


async def _create(principal: Principal, data: Any) -> PaymentIntent:
    if principal.kind == "publishable":
        raise DomainError("A secret key is required to create a payment intent", code="invalid_api_key",
                          status=401)
    f = Fields(data)
    f.seen.add("idempotency_key")
    f.seen.add("currency")
    currency = pricing.check_currency(data.get("currency"))
    amount = _amount(f, currency)
    method = f.enum("payment_method", METHODS, required=True)
    extras = _local.parse_create(f, method=method, currency=currency, amount=amount)
    wallet_value = _wallet_field(f, method)
    asset = f.enum("crypto_asset", crypto.ASSETS)
    network = f.enum("crypto_network", crypto.NETWORKS)
    if method == "crypto":
        if asset is None:
            raise ValidationError("crypto_asset is required for crypto payments", param="crypto_asset")
        if network is None:
            raise ValidationError("crypto_network is required for crypto payments", param="crypto_network")
        crypto.check_pair(asset, network)
    elif asset is not None or network is not None:
        raise ValidationError("crypto_asset and crypto_network are for crypto payments only",
                              param="crypto_asset" if asset is not None else "crypto_network")
    merchant_id = f.str("merchant_id", max_len=44)
    if merchant_id is not None and merchant_id != principal.merchant_id:
        raise ValidationError("merchant_id must be your own merchant id (use split to pay others)",
                              param="merchant_id", code="merchant_id_mismatch")
    customer_id = f.str("customer_id", max_len=64)
    order_id = f.str("order_id", max_len=200)
    description = f.str("description", max_len=1000)
    descriptor = f.str("statement_descriptor", max_len=22)
    f.seen.add("metadata")
    metadata = _check_metadata(data.get("metadata"))
    cod_f = f.obj("cod_address")
    if method == "cod":
        if cod_f is None:
            raise ValidationError("cod_address is required for cash on delivery", param="cod_address")
        cod_address = _check_cod_address(cod_f)
        if pricing.MARKET_CURRENCY[cod_address["country"]] != currency:
            raise one_of("currency", [pricing.MARKET_CURRENCY[cod_address["country"]]],
                         context=f"for cash on delivery in {cod_address['country']}", code="invalid_currency")
    elif cod_f is not None:
        raise ValidationError("cod_address is for cash on delivery only", param="cod_address")
    else:
        cod_address = None
    split_raw = f.list("split", max_items=MAX_SPLITS)
    marketplace_raw = f._get("splits", False) if f.has("splits") else None     # the marketplace's split lines
    locale = f.enum("locale", pricing.LOCALES)
    count = installments.check_count(f._get("installments", False) if f.has("installments") else None)
    eta_receipt = payments.check_eta_receipt(f, currency)
    invoice = f.bool("invoice", default=False)
    f.reject_unknown()
    extras = await _local.complete_create(principal, extras, method=method, customer_id=customer_id)
    if invoice and currency != "TRY":     # the buyer is decided by the job (services.einvoicing.gib.payments)
        raise ValidationError("invoice: true makes a Turkish e-invoice: only a TRY payment intent asks for one",
                              param="invoice")
    wallet_card = None
    if wallet_value is not None:      # read (verified, decrypted, checked) before anything is written
        wallet_card = await wallets.resolve_token(principal=principal, wallet=method, value=wallet_value,
                                                  amount=amount, currency=currency, param=method)
        wallets.check_card_currency(wallet_card, currency, param=f"{method}.token")
        if _wallet_needs_challenge(wallet_card, currency) and extras.return_url is None:
            raise ValidationError("return_url is required: this card needs 3-D Secure", param="return_url",
                                  code="return_url_required")
    if installments.asks(count):
        if method not in ("card", "troy"):       # a Troy credit card pays in installments too
            raise ValidationError("installments are for card payments only", param="installments")
        await installments.check_requested(principal=principal, count=count, amount=amount, currency=currency)
    splits = await _check_splits(split_raw, currency=currency, principal=principal)
    marketplace_lines = await marketplace_splits.parse(marketplace_raw, principal=principal, amount=amount,
                                                       currency=currency)

    market = await markets.cached_market_of(principal.merchant_id)
    now = await now_for(principal)
    fee = pricing.compute_fee(amount=amount, currency=currency, method=method,    # BNPL: its listed fee only
                              home_currency=None if method in methods_registry.BNPL_TYPES else pricing.MARKET_CURRENCY[market],
                              network_fee_usd=crypto.NETWORK_FEE_USD[network] if network else 0)
    net = amount - fee.amount
    splits_total = sum(s.amount for s in splits)
    if splits:
        await _check_split_funding(principal, net_amount=net, splits_total=splits_total, currency=currency)
    crypto_data = None
    if method == "crypto":
        q = crypto.quote(amount=amount, currency=currency, asset=asset, now=now)
        crypto_data = {"asset": asset, "network": network,
                       "address": crypto.new_deposit_address(network, livemode=principal.livemode),
                       "amount_crypto": q.amount_crypto, "rate": f"{q.rate:f}",
                       "rate_locked_until": iso(q.rate_locked_until)}
    intent = new(PaymentIntent,
        id=new_id("pay"), merchant_id=principal.merchant_id, livemode=principal.livemode,
        status="requires_payment_method", amount=amount, currency=currency, payment_method=method,
        customer_id=customer_id, order_id=order_id, description=description, statement_descriptor=descriptor,
        metadata=metadata, locale=locale, fee_amount=fee.amount,
        fee_rate=f"{fee.rate:f}", fee_processing=fee.processing, fee_conversion=fee.currency_conversion,
        fee_network=fee.network, net_amount=net, settlement_date=settlement.settlement_date(market, now),
        crypto=crypto_data, cod_address=cod_address,
        split=[{"merchant_id": s.merchant_id, "amount": s.amount, "currency": s.currency} for s in splits] or None,
        installments={"count": count} if installments.asks(count) else None,    # asked for; terms at confirm
        eta_receipt={"uuid": None, "number": None, "status": "queued"} if eta_receipt else None,
        invoice_requested=invoice,        # the wish, in the intent's own insert: the job makes the invoice
        created_at=now, expires_at=now + EXPIRY, method_details=extras.details, return_url=extras.return_url)
    if wallet_card is not None:       # used from now on, even if the write below fails: never twice
        await wallets.claim(principal=principal, wc=wallet_card, param=f"{method}.token")
    obj = intent_object(intent)
    marketplace_rows, marketplace_new = marketplace_splits.rows_for_create(
        marketplace_lines, merchant_id=intent.merchant_id, livemode=intent.livemode, payment_id=intent.id,
        status="pending", now=now, available_on=None)
    if marketplace_lines:
        marketplace_splits.attach(intent, marketplace_new)
    # The intent, its list count, its splits and its event: written together or not at all (one statement on PostgreSQL).
    await lookup.insert_all([
        intent,
        *marketplace_rows,
        ListCount.added("intents", intent),     # the list's total, kept with the row
        *(new(IntentSplit, id=new_id("spl"), intent_id=intent.id, destination_id=s.merchant_id, amount=s.amount,
                      currency=s.currency, created_at=now) for s in splits),
        *events.rows(merchant_id=intent.merchant_id, livemode=intent.livemode, type="payment.created", obj=obj)])
    intent.__dict__[_CREATED] = obj
    if wallet_card is not None:       # a token given on create pays at once: the answer shows it paid
        intent.__dict__.pop(_CREATED, None)
        return await _confirm_wallet(principal, intent, wallet_card, extras.return_url, now, claimed=True)
    return intent


_CREATED = "_created_object"    # the new intent's object, as its payment.created event carries it


def created_object(intent: PaymentIntent) -> dict[str, Any]:
    """The answer to a create: the object its `payment.created` event was built from, made once
    (an intent is not changed between its write and its answer); an intent read back instead
    (an idempotent replay) is shaped afresh."""
    obj = intent.__dict__.get(_CREATED)
    return obj if obj is not None else intent_object(intent)


async def _emit(intent: PaymentIntent, type_: str) -> None:
    await events.emit(merchant_id=intent.merchant_id, livemode=intent.livemode, type=type_,
                      obj=intent_object(intent))


# ---------------------------------------------------------------- retrieve / list

async def get_intent(*, principal: Principal, intent_id: str, client_secret: str | None = None) -> PaymentIntent:
    intent = await _load(principal, intent_id, client_secret=client_secret)
    if await expire_stale(principal, [intent]):
        intent = await _load(principal, intent_id, client_secret=client_secret)
    return intent


async def get_intent_with_receipt(*, principal: Principal, intent_id: str, client_secret: str | None = None
                                  ) -> tuple[PaymentIntent, receipts.ReceiptState | None]:
    """The intent (read-only: a lookup.RowView) and the state of its receipt, in one read."""
    async def read():
        found = await lookup.first_with(PaymentIntent, Receipt, "payment_id", receipts.RECEIPT_COLUMNS,
                                        as_view=True, id=intent_id, **principal.scope)
        if found is None:
            raise NotFound("No such payment intent", param="id")
        return found
    found = await read()
    _check_client_secret(principal, found[0], client_secret)
    if await expire_stale(principal, [found[0]]):          # read again: now canceled
        found = await read()
    return found[0], receipts.state_from(found[1])


def _unix(query: Mapping, name: str) -> datetime | None:
    raw = query.get(name)
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        if not raw.strip().isdigit():
            raise ValidationError(f"{name} must be a Unix timestamp in seconds", param=name)
        raw = int(raw)
    value = check_int(raw, name, min=0, max=253402300799)
    return datetime.fromtimestamp(value, timezone.utc)


async def list_intents(*, principal: Principal, query: Mapping[str, Any]) -> Page:
    """Filters: status, currency, payment_method, created[gte], created[lte]; newest first."""
    allowed = {"limit", "starting_after", "status", "currency", "payment_method", "created[gte]", "created[lte]"}
    for k in query:
        if k not in allowed:
            raise ValidationError(f"unknown query parameter {k}", param=k)
    limit = check_limit(query.get("limit"))
    filters: list[tuple[str, str, Any]] = []
    if query.get("status"):
        filters.append(("status", "=", check_enum_value(query["status"], "status", STATUSES)))
    if query.get("currency"):
        filters.append(("currency", "=", pricing.check_currency(query["currency"])))
    if query.get("payment_method"):
        filters.append(("payment_method", "=",
                        check_enum_value(query["payment_method"], "payment_method", OBJECT_METHODS)))
    gte, lte = _unix(query, "created[gte]"), _unix(query, "created[lte]")
    if gte is not None:
        filters.append(("created_at", ">=", gte))
    if lte is not None:
        # Inclusive of the whole second named.
        filters.append(("created_at", "<", lte + timedelta(seconds=1)))
    after = query.get("starting_after") or None
    if after is not None:
        after = check_str(after, "starting_after", max_len=44)
    page = await keyset(PaymentIntent, scope=principal.scope, filters=filters, limit=limit, starting_after=after,
                        counter="intents")
    expired = await expire_stale(principal, page.items)
    if expired:       # shown as they are now (a status filter applied to what was stored)
        fresh = {i.id: i for i in await PaymentIntent.filter(id__in=list(expired))}
        page.items = [fresh.get(i.id, i) for i in page.items]
    return page


def check_enum_value(value: Any, param: str, values) -> str:
    if not isinstance(value, str) or value not in values:
        raise one_of(param, values)
    return value


# ---------------------------------------------------------------- confirm

async def confirm_intent(*, principal: Principal, intent_id: str, data: Any,
                         idempotency_key: str | None = None) -> PaymentIntent:
    key = _idem_key(idempotency_key, data)
    return await idempotency.run(
        principal=principal, operation=f"v1.intent.confirm:{intent_id}", key=key, params=_params(data),
        execute=lambda: _confirm(principal, intent_id, data), encode=lambda i: i.id,
        decode=lambda iid: _load(principal, iid))


async def _expire_if_due(intent: PaymentIntent, now: datetime) -> bool:
    """An unpaid intent past expires_at is canceled on the spot (the worker may be behind)."""
    if intent.status in UNPAID + ("failed",) and now >= intent.expires_at:
        await _expire_one(intent.id, now)
        return True
    return False


async def _confirm(principal: Principal, intent_id: str, data: Any) -> PaymentIntent:
    f = Fields(data)
    f.seen.add("idempotency_key")
    pm_id = f.str("payment_method_id", max_len=64)
    return_url = f.str("return_url", max_len=2000)
    secret = f.str("client_secret", max_len=200)
    phone = f._get("phone", False) if f.has("phone") else None
    otp = f.str("otp", max_len=12)
    count = installments.check_count(f._get("installments", False) if f.has("installments") else None)
    given = {w: f._get(w, False) for w in methods_registry.WALLET_TYPES if f.has(w)}
    f.reject_unknown()
    if return_url is not None:
        _check_url(return_url, "return_url")
    now = await now_for(principal)
    intent = await _load(principal, intent_id, client_secret=secret)
    if await _expire_if_due(intent, now):
        raise InvalidState(f"This payment intent expired at {iso(intent.expires_at)} and was canceled",
                           code="payment_intent_expired")
    return_url = return_url or intent.return_url           # given on create
    for w in given:
        if w != intent.payment_method:
            raise ValidationError(f"{w} is for {w} payments; this payment intent's method is "
                                  f"{intent.payment_method}", param=w, code="payment_method_not_used")
    if intent.payment_method in methods_registry.WALLET_TYPES:
        method = intent.payment_method
        if pm_id is not None:
            raise ValidationError(f"payment_method_id is not used with {method} payments: send {method}.token",
                                  param="payment_method_id", code="payment_method_not_used")
        if count is not None and count > 1:
            raise ValidationError(f"installments are for card payments, not {method}", param="installments",
                                  code="payment_method_not_used")
        if phone is not None or otp is not None:
            raise ValidationError(f"{'phone' if phone is not None else 'otp'} is for stcpay payments only",
                                  param="phone" if phone is not None else "otp", code="payment_method_not_used")
        if intent.status not in CONFIRMABLE:
            raise InvalidState(f"A payment intent with status {intent.status} cannot be confirmed")
        if method not in given:
            raise ValidationError(f"{method} is required to confirm a {method} payment: {{\"token\": ...}}",
                                  param=method, code="payment_method_required")
        wc = await wallets.resolve_token(principal=principal, wallet=method, value=given[method],
                                         amount=intent.amount, currency=intent.currency, param=method)
        wallets.check_card_currency(wc, intent.currency, param=f"{method}.token")
        return await _confirm_wallet(principal, intent, wc, return_url, now)
    if intent.payment_method in LOCAL_FLOWS:
        if pm_id is not None:
            raise ValidationError(f"payment_method_id is not used with {intent.payment_method} payments",
                                  param="payment_method_id", code="payment_method_not_used")
        return await _local.confirm(principal, intent, return_url=return_url, phone=phone, otp=otp, now=now)
    if phone is not None or otp is not None:
        raise ValidationError(f"{'phone' if phone is not None else 'otp'} is for stcpay payments only",
                              param="phone" if phone is not None else "otp", code="payment_method_not_used")
    if intent.status not in CONFIRMABLE:
        raise InvalidState(f"A payment intent with status {intent.status} cannot be confirmed")
    method = intent.payment_method
    if method in CARD_LIKE:
        if pm_id is None:
            raise ValidationError(f"payment_method_id is required to confirm a {method} payment",
                                  param="payment_method_id", code="payment_method_required")   # the intent's method decides
        pm = await resolve_payment_method(principal=principal, payment_method_id=pm_id)
        # The installment terms for this card (asked for now, or at create): kept on the intent.
        asked = count if count is not None else (intent.installments or {}).get("count")
        if installments.asks(asked) and method not in ("card", "troy"):      # the intent's method decides
            raise ValidationError("installments are for card payments only", param="installments",
                                  code="payment_method_not_used")
        intent.installments = await installments.terms_for_card(
            principal=principal, issuer=installments.issuer_from(pm.issuer), amount=intent.amount,
            currency=intent.currency, count=asked)
        return await _confirm_card(principal, intent, pm, return_url, now)
    if installments.asks(count):
        raise ValidationError(f"installments are for card payments, not {method}", param="installments",
                              code="payment_method_not_used")       # the intent's method decides
    if pm_id is not None:
        raise ValidationError(f"payment_method_id is not used with {method} payments", param="payment_method_id",
                              code="payment_method_not_used")       # the intent's method decides
    if method == "crypto":
        return await _confirm_crypto(intent, return_url, now)
    return await _confirm_cod(intent, return_url, now)


async def _transition(intent: PaymentIntent, changes: dict, *, events_: tuple[str, ...] = (),
                      ledger_success: bool = False, rollups=None) -> PaymentIntent:
    """Apply `changes` only if nobody changed the intent meanwhile (optimistic version check),
    and write its events (and ledger postings) in the same transaction. A deadlock or
    serialization failure (PostgreSQL) runs the transaction again, never a 500."""
    before = {k: getattr(intent, k) for k in (*changes, "version")}

    async def attempt() -> PaymentIntent:
        for k, v in before.items():           # a failed attempt may have changed the object
            setattr(intent, k, v)
        async with in_transaction():
            updated = await PaymentIntent.filter(id=intent.id, version=intent.version).update(
                **changes, version=intent.version + 1)
            if not updated:
                raise Conflict("The payment intent changed meanwhile; retrieve it and retry", code="conflict")
            for k, v in changes.items():
                setattr(intent, k, v)
            intent.version += 1
            if ledger_success:
                await _post_success(intent)
            if changes.get("status") in ("canceled", "expired"):     # the marketplace's pending split lines
                await marketplace_splits.on_cancel(payment_id=intent.id, now=runtime().clock.now())
            if changes.get("status") == "succeeded":
                await receipts.enqueue_intent(intent)     # the receipt's outbox row (services.receipts)
                eta = payments.eta_receipt_request(intent, asked=bool(intent.eta_receipt), now=runtime().clock.now())
                if eta is not None:                       # an EGP intent's e-receipt, built by the ETA job
                    await eta.save(force_create=True)
            if rollups is not None:                       # the outcome's analytics, in the same transaction
                await lookup.upsert(rollups(intent))
            for t in events_:
                await _emit(intent, t)
        return intent
    return await db.retrying(attempt, what=f"intent {intent.id}")


def _success_changes(intent: PaymentIntent, now: datetime, market: str) -> dict:
    return {"status": "succeeded", "amount_received": installments.charged(intent.amount, intent.installments),
            "succeeded_at": now, "settlement_date": settlement.settlement_date(market, now),
            "receipt_token": intent.receipt_token or receipts.new_token(),      # receipt_url's own secret
            "next_action": None, "failure_code": None, "failure_message": None}


async def _market(merchant_id: str) -> str:
    country = await Merchant.filter(id=merchant_id).values_list("country", flat=True)
    return country[0] if country and country[0] in settlement.MARKETS else "TR"


async def _authorize(intent: PaymentIntent, pm, *, three_ds_passed: bool, card: cards.Card | None = None,
                     wallet=None):
    """`pm`: a payment method (or a wallet's card: its brand decides mada); `card`, `wallet`:
    a wallet token's card (the device number in memory) and its cryptogram for the provider."""
    market = await _market(intent.merchant_id)
    method, country = _local.card_routing(pm, intent.currency, market)     # mada: mada acquirers only
    terms = intent.installments if (intent.installments or {}).get("total_amount") is not None else None
    facts = routing.Facts(amount=intent.amount, currency=intent.currency, country=country, card_brand=pm.brand,
                          payment_method=method, installments=terms["count"] if terms else 1)
    decision = routing.decide(facts=facts)
    card = card or pm.card()
    charge = installments.charged(intent.amount, terms)         # the card is charged total_amount
    return market, await routing.authorize_with_cascade(
        decision=decision,
        request_for=lambda provider, n: AuthorizationRequest(
            payment_id=intent.id, amount=charge, currency=intent.currency, card=card, attempt=n,
            three_d_secure_passed=three_ds_passed, wallet=wallet))


async def _confirm_card(principal: Principal, intent: PaymentIntent, pm, return_url: str | None,
                        now: datetime) -> PaymentIntent:
    if intent.split:
        await _check_split_funding(principal, net_amount=intent.net_amount,
                                   splits_total=sum(s["amount"] for s in intent.split), currency=intent.currency)
    _local.check_card(intent, pm)
    # Tap to pay: the reader verifies the cardholder (contactless CVM), so no 3-D Secure redirect.
    # A mada payment always goes through 3-D Secure.
    needs_3ds = ((pm.behaviour == cards.REQUIRES_3DS or _local.needs_3ds(pm, intent.currency))
                 and intent.payment_method != "tap_to_pay")
    if needs_3ds:
        if return_url is None:
            raise ValidationError("return_url is required: this card needs 3-D Secure", param="return_url",
                                  code="return_url_required")       # the card (its BIN, mada) decides
        changes = {"status": "requires_action", "payment_method_ref": pm.id, "return_url": return_url,
                   "failure_code": None, "failure_message": None, "installments": intent.installments}
        nxt = {"type": "redirect_to_url", "redirect_to_url": {"url": None, "return_url": return_url}}
        changes["next_action"] = nxt
        intent = await _transition(intent, changes)
        # The challenge link is bound to the version the intent now has.
        nxt["redirect_to_url"]["url"] = challenge_url_of(intent)
        await PaymentIntent.filter(id=intent.id, version=intent.version).update(next_action=nxt)
        intent.next_action = nxt
        return intent
    market, cascade = await _authorize(intent, pm, three_ds_passed=intent.payment_method == "tap_to_pay")
    intent = await _finish_card(intent, cascade, market, now, pm_id=pm.id, return_url=return_url,
                                extra=_local.card_changes(intent, pm, market))
    if intent.status == "failed":     # stored failed (payment.failed emitted), then answered 402
        raise PaymentDeclined(f"Payment declined: {intent.failure_code} (payment intent {intent.id} is failed; "
                              "confirm it again with another payment method)",
                              decline_code=intent.failure_code, param="payment_method_id")
    return intent


def _wallet_needs_challenge(wc, currency: str) -> bool:
    return wc.needs_challenge_check and (wc.card.behaviour == cards.REQUIRES_3DS or _local.needs_3ds(wc.card, currency))


async def _confirm_wallet(principal: Principal, intent: PaymentIntent, wc, return_url: str | None,
                          now: datetime, *, claimed: bool = False) -> PaymentIntent:
    """Pay an apple_pay / google_pay intent with a read token (services.payments.wallets): the
    token is marked used, then charged as the card inside it. A cryptogram needs no challenge; a
    PAN_ONLY token is a card and takes the 3-D Secure decision its number would (the challenge
    then runs on a payment method made of the card, without its number)."""
    if intent.split:
        await _check_split_funding(principal, net_amount=intent.net_amount,
                                   splits_total=sum(s["amount"] for s in intent.split), currency=intent.currency)
    card = wc.card
    if _wallet_needs_challenge(wc, intent.currency):
        if return_url is None:
            raise ValidationError("return_url is required: this card needs 3-D Secure", param="return_url",
                                  code="return_url_required")
        if not claimed:
            await wallets.claim(principal=principal, wc=wc, param=f"{wc.wallet}.token")
        pm = await wallets.challenge_method(principal=principal, wc=wc)
        details = {"card": wallets.card_details(wc), "wallet": wc.details()}
        changes = {"status": "requires_action", "payment_method_ref": pm.id, "return_url": return_url,
                   "failure_code": None, "failure_message": None, "method_details": details,
                   "next_action": {"type": "redirect_to_url", "redirect_to_url": {"url": None, "return_url": return_url}}}
        intent = await _transition(intent, changes)
        nxt = {"type": "redirect_to_url", "redirect_to_url": {"url": challenge_url_of(intent), "return_url": return_url}}
        await PaymentIntent.filter(id=intent.id, version=intent.version).update(next_action=nxt)
        intent.next_action = nxt
        return intent
    if not claimed:
        await wallets.claim(principal=principal, wc=wc, param=f"{wc.wallet}.token")
    market, cascade = await _authorize(intent, card, three_ds_passed=bool(wc.cryptogram), card=card,
                                       wallet=wc.authorization())
    extra = _local.card_changes(intent, card, market)
    extra["method_details"] = {"card": wallets.card_details(wc), "wallet": wc.details()}
    intent = await _finish_card(intent, cascade, market, now, pm_id=None, return_url=return_url, extra=extra)
    if intent.status == "failed":
        raise PaymentDeclined(f"Payment declined: {intent.failure_code} (payment intent {intent.id} is failed; "
                              "confirm it again with a new token)", decline_code=intent.failure_code,
                              param=f"{wc.wallet}.token")
    return intent


def _wallet_field(f: Fields, method: str) -> Any:
    """`apple_pay` / `google_pay` (`{token}`) of a create: only with its own method."""
    out = None
    for w in methods_registry.WALLET_TYPES:
        if f.has(w):
            value = f._get(w, False)
            if w != method:
                raise ValidationError(f"{w} is for {w} payments only", param=w, code="payment_method_not_used")
            out = value
    return out


async def _finish_card(intent: PaymentIntent, cascade, market: str, now: datetime, *, pm_id: str | None,
                       return_url: str | None, extra: dict | None = None) -> PaymentIntent:
    result = cascade.final.result
    base = {"payment_method_ref": pm_id, "provider": cascade.final.provider, "return_url": return_url,
            "installments": intent.installments, "installment_count": (intent.installments or {}).get("count", 1),
            "net_amount": intent.amount - intent.fee_amount - installments.merchant_commission(intent.installments),
            **(extra or {})}
    def rollups(i: PaymentIntent) -> list:
        return analytics.intent_rows(i, market, now, approved=result.approved, attempts=cascade.attempts)
    if result.approved:
        changes = {**base, **_success_changes(intent, now, market), "provider_ref": result.reference}
        return await _transition(intent, changes, events_=("payment.succeeded",), ledger_success=True,
                                 rollups=rollups)
    changes = {**base, "status": "failed", "next_action": None,
               "failure_code": result.decline_code or "card_declined",
               "failure_message": result.message or "The card was declined"}
    return await _transition(intent, changes, events_=("payment.failed",), rollups=rollups)


async def _confirm_crypto(intent: PaymentIntent, return_url: str | None, now: datetime) -> PaymentIntent:
    changes: dict[str, Any] = {"status": "processing", "return_url": return_url}
    c = dict(intent.crypto)
    if datetime.fromisoformat(c["rate_locked_until"].replace("Z", "+00:00")) <= now:
        changes["crypto"] = _requote(intent, c, now)
    return await _transition(intent, changes, events_=("payment.processing",))


def _requote(intent: PaymentIntent, c: dict, now: datetime) -> dict:
    """The 15-minute lock lapsed before any deposit: a fresh quote and a fresh lock."""
    q = crypto.quote(amount=intent.amount, currency=intent.currency, asset=c["asset"], now=now)
    return {**c, "amount_crypto": q.amount_crypto, "rate": f"{q.rate:f}", "rate_locked_until": iso(q.rate_locked_until)}


async def _confirm_cod(intent: PaymentIntent, return_url: str | None, now: datetime) -> PaymentIntent:
    changes = {"status": "processing", "cod_status": "assigned", "return_url": return_url}
    return await _transition(intent, changes, events_=("payment.processing", "cod.assigned"))


# ---------------------------------------------------------------- 3-D Secure challenge

def _check_challenge(intent: PaymentIntent | None, token: str | None) -> PaymentIntent:
    if intent is None or not token or not hmac.compare_digest(      # bytes: a str of non-ASCII raises TypeError
            str(token).encode(), _sign(f"3ds:{intent.version}", intent.id, 32).encode()):
        raise NotFound("No such 3-D Secure challenge", param="token")
    if intent.status != "requires_action":
        raise InvalidState(f"This challenge is over: the payment intent is {intent.status}")
    return intent


async def get_challenge(*, intent_id: str, token: str | None) -> PaymentIntent:
    """The intent behind a challenge link (the link's token is the credential)."""
    return _check_challenge(await PaymentIntent.get_or_none(id=intent_id), token)


@dataclass
class ChallengeResult:
    intent: PaymentIntent
    redirect_url: str


async def complete_challenge(*, intent_id: str, token: str | None, outcome: str) -> ChallengeResult:
    """`succeed` authorizes with 3-D Secure passed; `fail` fails the intent. Either way the
    browser returns to `return_url` with `payment_intent` and `redirect_status`."""
    outcome = check_enum_value(outcome, "outcome", ("succeed", "fail"))
    intent = _check_challenge(await PaymentIntent.get_or_none(id=intent_id), token)
    now = await now_for(Principal(merchant_id=intent.merchant_id, livemode=intent.livemode, kind="secret"))
    if await _expire_if_due(intent, now):
        intent = await PaymentIntent.get(id=intent_id)
    elif outcome == "fail":
        intent = await _transition(intent, {"status": "failed", "next_action": None,
                                            "failure_code": "authentication_failed",
                                            "failure_message": "3-D Secure authentication failed"},
                                   events_=("payment.failed",))
    else:
        principal = Principal(merchant_id=intent.merchant_id, livemode=intent.livemode, kind="secret")
        pm = await resolve_payment_method(principal=principal, payment_method_id=intent.payment_method_ref)
        market, cascade = await _authorize(intent, pm, three_ds_passed=True)
        extra = _local.card_changes(intent, pm, market)
        if "wallet" in (intent.method_details or {}):     # a PAN_ONLY wallet token: its details stay
            extra["method_details"] = intent.method_details
        intent = await _finish_card(intent, cascade, market, now, pm_id=pm.id, return_url=intent.return_url,
                                    extra=extra)
    status = {"succeeded": "succeeded", "failed": "failed"}.get(intent.status, intent.status)
    sep = "&" if "?" in (intent.return_url or "") else "?"
    url = f"{intent.return_url}{sep}{urlencode({'payment_intent': intent.id, 'redirect_status': status})}"
    return ChallengeResult(intent=intent, redirect_url=url)


# ---------------------------------------------------------------- money movement

async def _post_success(intent: PaymentIntent) -> None:
    """Inside the success transaction: the capture and fee to the merchant's balance, then
    each split from the merchant to its receiver (two balanced ledger transactions, one per
    merchant, through a clearing account)."""
    await ledger.post(merchant_id=intent.merchant_id, livemode=intent.livemode, currency=intent.currency,
                      kind="intent_capture", legs=ledger.capture_legs(intent.amount, intent.fee_amount),
                      source_id=intent.id)
    if intent.installments and intent.installments.get("commission"):     # the bank's commission, its own line
        await ledger.post(merchant_id=intent.merchant_id, livemode=intent.livemode, currency=intent.currency,
                          kind=installments.COMMISSION_KIND, legs=installments.commission_legs(intent.installments),
                          source_id=intent.id)
    await marketplace_splits.on_capture(payment_id=intent.id, captured=intent.amount, now=runtime().clock.now(),
                                        available_on=intent.settlement_date)
    if not intent.split:
        return
    # Serialize balance checks of this payer (a row lock on PostgreSQL). NO KEY UPDATE: the
    # ledger rows written here (and by concurrent payments) take KEY SHARE locks on the merchants
    # they name, which a plain FOR UPDATE conflicts with -- two split confirms of one payer then
    # deadlocked. The payer is the only row locked, so there is no order to get wrong.
    await Merchant.select_for_update(no_key=True).filter(id=intent.merchant_id).first()
    total = sum(s["amount"] for s in intent.split)
    bal = await ledger.merchant_balance(merchant_id=intent.merchant_id, livemode=intent.livemode)
    if bal.get(intent.currency, 0) < total:
        raise InsufficientFunds(f"The available {intent.currency} balance does not cover the split",
                                param="split")
    for s in intent.split:
        await ledger.post(merchant_id=intent.merchant_id, livemode=intent.livemode, currency=intent.currency,
                          kind="split_out", source_id=intent.id,
                          legs=[ledger.Leg(ledger.MERCHANT_BALANCE, s["amount"]),
                                ledger.Leg(SPLIT_CLEARING, -s["amount"])])
        await ledger.post(merchant_id=s["merchant_id"], livemode=intent.livemode, currency=intent.currency,
                          kind="split_in", source_id=intent.id,
                          legs=[ledger.Leg(SPLIT_CLEARING, s["amount"]),
                                ledger.Leg(ledger.MERCHANT_BALANCE, -s["amount"])])
    await IntentSplit.filter(intent_id=intent.id).update(status="paid")


async def available_balance(*, principal: Principal, currency: str) -> int:
    return await _available(principal, currency)


# ---------------------------------------------------------------- cancel and expiry

async def cancel_intent(*, principal: Principal, intent_id: str, data: Any,
                        idempotency_key: str | None = None) -> PaymentIntent:
    key = _idem_key(idempotency_key, data)
    return await idempotency.run(
        principal=principal, operation=f"v1.intent.cancel:{intent_id}", key=key, params=_params(data),
        execute=lambda: _cancel(principal, intent_id, data), encode=lambda i: i.id,
        decode=lambda iid: _load(principal, iid))


async def _cancel(principal: Principal, intent_id: str, data: Any) -> PaymentIntent:
    f = Fields(data)
    f.seen.add("idempotency_key")
    reason = f.enum("cancellation_reason", CANCELLATION_REASONS, default="requested_by_customer")
    f.reject_unknown()
    intent = await _load(principal, intent_id)
    if intent.status == "requires_capture":         # BNPL: the authorization's rest is released
        return await _local.cancel_authorized(principal, intent, reason)
    if intent.status not in CANCELABLE:
        raise InvalidState(f"A payment intent with status {intent.status} cannot be canceled")
    now = await now_for(principal)
    ev = ("crypto.expired",) if intent.payment_method == "crypto" else ()
    return await _transition(intent, {"status": "canceled", "canceled_at": now, "cancellation_reason": reason,
                                      "next_action": None}, events_=ev)


async def _expire_one(intent_id: str, now: datetime) -> bool:
    intent = await PaymentIntent.get_or_none(id=intent_id)
    if intent is None:
        return False
    if intent.payment_method in WAITS_TO_EXPIRE and intent.status == "requires_action":
        return await _local.expire_reference(intent.id, now)
    if intent.status == "requires_capture":         # BNPL: the authorization's rest is released
        return await _local.expire_authorization(intent.id, now)
    if not expirable(intent) or now < intent.expires_at:
        return False
    ev = ("crypto.expired",) if intent.payment_method == "crypto" else ()
    try:
        await _transition(intent, {"status": "canceled", "canceled_at": now, "cancellation_reason": "expired",
                                   "next_action": None}, events_=ev)
    except Conflict:
        return False
    return True


async def expire_intents(now: datetime | None = None, *, batch: int = EXPIRY_BATCH) -> int:
    """Cancel every unpaid intent past `expires_at` (and crypto intents still waiting for a
    deposit). Returns how many were canceled. Safe to run in several workers at once."""
    now = now or runtime().clock.now()
    n = 0
    for _, iid in await expiry_due.due(now, batch):       # only intents still open for expiry
        n += await _expire_one(iid, now)
    return n


async def now_for(principal: Principal) -> datetime:
    """An intent's time: the real clock in live mode; in test mode the merchant's test clock
    (services.infra.clock), so its expiry, like its creation, follows that clock. A
    scheduled job (running_at) already runs on it."""
    now = runtime().clock.now()
    if principal.livemode or overridden() is not None:
        return now
    return now + await cached_offset_of(principal.merchant_id)


def expirable(intent) -> bool:
    """Unpaid (a failed attempt included), or crypto still waiting for its deposit: canceled
    with reason `expired` once `expires_at` passes. An authorized BNPL payment (requires_capture)
    is released then (services.payments.bnpl)."""
    if intent.status == "failed" and intent.failure_code == "expired":
        return False              # a Fawry reference that ran out: failed for good
    return intent.status in UNPAID + ("failed", "requires_capture") or (
        intent.status == "processing" and intent.payment_method == "crypto"
        and not (intent.crypto or {}).get("detected_at"))


async def expire_stale(principal: Principal, items) -> set[str]:
    """A read never shows an intent past `expires_at` as payable: the ones the worker has not
    reached yet are canceled on the spot. Returns the ids of all those past `expires_at`, to be
    read again: each is canceled now, here or by whoever got to it first (another read, the
    worker) after this read took its row -- or paid just before, which the new read shows."""
    stale = [i for i in items if expirable(i)]
    if not stale:
        return set()
    now = await now_for(principal)
    due = set()
    for i in stale:
        if i.expires_at <= now:
            await _expire_one(i.id, now)
            due.add(i.id)
    return due


# ---------------------------------------------------------------- test helpers (test mode only)

def _test_only(principal: Principal) -> None:
    if principal.livemode:
        raise ValidationError("Test helpers work with test keys only", code="test_mode_only")


async def crypto_deposit(*, principal: Principal, intent_id: str, data: Any) -> PaymentIntent:
    """Simulate the deposit: `stage` `detected` (seen on chain: processing, crypto.detected) or
    `confirmed` (default; enough confirmations: succeeded, crypto.confirmed)."""
    _test_only(principal)
    f = Fields(data)
    stage = f.enum("stage", ("detected", "confirmed"), default="confirmed")
    f.reject_unknown()
    intent = await _load(principal, intent_id)
    if intent.payment_method != "crypto":
        raise InvalidState("This payment intent is not a crypto payment")
    now = await now_for(principal)
    if await _expire_if_due(intent, now):
        raise InvalidState("This payment intent expired and was canceled", code="payment_intent_expired")
    c = dict(intent.crypto)
    if intent.status not in ("requires_payment_method", "requires_confirmation", "processing"):
        raise InvalidState(f"A payment intent with status {intent.status} takes no deposit")
    if not c.get("detected_at"):
        if datetime.fromisoformat(c["rate_locked_until"].replace("Z", "+00:00")) <= now:
            c = _requote(intent, c, now)
        c["detected_at"] = iso(now)
        c["transaction_hash"] = _fake_tx_hash(intent)
        evs = ("crypto.detected",) + (("payment.processing",) if intent.status != "processing" else ())
        intent = await _transition(intent, {"status": "processing", "crypto": c}, events_=evs)
    elif stage == "detected":
        raise InvalidState("The deposit was already detected")
    if stage == "confirmed":
        c = dict(intent.crypto)
        c["confirmed_at"] = iso(now)
        market = await _market(intent.merchant_id)
        intent = await _transition(intent, {**_success_changes(intent, now, market), "crypto": c},
                                   events_=("crypto.confirmed", "payment.succeeded"), ledger_success=True,
                                   rollups=lambda i: analytics.intent_rows(i, market, now, approved=True))
    return intent


def _fake_tx_hash(intent: PaymentIntent) -> str:
    h = hashlib.sha256(f"tx:{intent.id}".encode()).hexdigest()
    return h if intent.crypto["network"] in ("bitcoin", "trc20") else "0x" + h


async def cod_delivered(*, principal: Principal, intent_id: str) -> PaymentIntent:
    """The courier delivered and collected the cash: succeeded, cod.delivered."""
    _test_only(principal)
    intent = await _cod_in_transit(principal, intent_id)
    market = await _market(intent.merchant_id)
    now = await now_for(principal)
    return await _transition(intent, {**_success_changes(intent, now, market), "cod_status": "delivered"},
                             events_=("cod.delivered", "payment.succeeded"), ledger_success=True,
                             rollups=lambda i: analytics.intent_rows(i, market, now, approved=True))


async def cod_returned(*, principal: Principal, intent_id: str) -> PaymentIntent:
    """The customer refused or was not found: failed (`cod_returned`), cod.returned."""
    _test_only(principal)
    intent = await _cod_in_transit(principal, intent_id)
    now = await now_for(principal)
    market = await _market(intent.merchant_id)
    return await _transition(intent, {"status": "failed", "cod_status": "returned", "failure_code": "cod_returned",
                                      "failure_message": "The parcel was returned undelivered"},
                             events_=("cod.returned", "payment.failed"),
                             rollups=lambda i: analytics.intent_rows(i, market, now, approved=False))


async def _cod_in_transit(principal: Principal, intent_id: str) -> PaymentIntent:
    intent = await _load(principal, intent_id)
    if intent.payment_method != "cod":
        raise InvalidState("This payment intent is not cash on delivery")
    if intent.status != "processing" or intent.cod_status != "assigned":
        raise InvalidState(f"A cash-on-delivery intent with status {intent.status} is not out for delivery; "
                           "confirm it first")
    return intent


# ---------------------------------------------------------------- public images

async def qr_image(*, intent_id: str) -> bytes:
    """The QR code of a crypto deposit (payment URI) or of a QR payment (its checkout page).
    Public: the intent id (unguessable) is the capability, as for an <img> tag."""
    intent = await PaymentIntent.get_or_none(id=intent_id)
    rtp = ((intent.next_action or {}).get("qr") or {}).get("payload") if intent is not None else None
    if rtp is not None:                # a request to pay (CliQ, Aani): what the buyer's bank app scans
        return crypto.qr_png(rtp)
    if intent is None or intent.payment_method not in ("crypto", "qr"):
        raise NotFound("No QR code for this id")
    if intent.payment_method == "crypto":
        c = intent.crypto
        return crypto.qr_png(crypto.payment_uri(c["network"], c["address"], c["amount_crypto"]))
    return crypto.qr_png(checkout_url_of(intent))
