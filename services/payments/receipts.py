"""Automatic receipts: when a payment (`/api`) or an intent (`/v1`) succeeds, a receipt row is
written in the same transaction (the outbox); after the commit a worker sends it -- through the
messaging platform when the customer has a phone number, else by e-mail -- with retries. The
payment never waits for, or fails because of, the messaging platform or the mail server.

`receipt_url` (`{pay_url}/{pay_id}/receipt/{receipt_token}`) opens the receipt without a key. The
token is random and stored with the payment or intent (`receipt_token`), so knowing a payment id
(it travels in webhooks, logs, e-mails and support tickets) opens nothing; it is compared in
constant time. The same URL is on the API objects, the webhooks, the success page and the message.
"""
from __future__ import annotations

import asyncio
import hmac
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any


from models import _lookup as lookup
from models._rows import new
from models.core import Merchant
from models.intents import PaymentIntent
from models.payments import Customer, Payment
from models.receipts import Receipt
from models.links import PaymentLink
from services.money import markets
from services.payments import installment_text, locales, pricing
from services.ids import new_id, random_token
from services.infra import leases
from services.infra.runtime import runtime

log = logging.getLogger("qafila.receipts")

RETRY_DELAYS = (5, 30, 120, 600, 3600, 6 * 3600)        # seconds after each failed attempt
MAX_ATTEMPTS = 1 + len(RETRY_DELAYS)
# A step claims up to CLAIM_BATCH and sends SEND_CONCURRENCY at a time (at most as many connections
# to the mail server as before): a step's own reads and writes -- the claim, the batch's payments and
# merchants, the attempts -- are shared by 100 receipts, not 20 (issue 48: the worker's CPU per paid
# payment under load). LEASE outlasts the slowest batch: 5 rounds of SEND_TIMEOUT (+5 s) each.
CLAIM_BATCH = 100
SEND_CONCURRENCY = 20
SEND_TIMEOUT = 10.0
LEASE = timedelta(seconds=120)
LOCALES = pricing.LOCALES
TOKEN_LENGTH = 32                                       # 62^32: about 190 random bits
_AR_PHONE = ("+966", "+971", "+965", "+974", "+20", "+964", "+973", "+968", "+962")
PAID = ("succeeded", "captured", "refunded")            # payments a receipt exists for


@dataclass
class ReceiptState:
    channel: str
    sent_to: str
    status: str


def new_token() -> str:
    """A receipt token, stored with the payment or intent it opens."""
    return random_token(TOKEN_LENGTH)


def url_of(payment_id: str, token: str | None) -> str | None:
    """The one receipt_url of a payment or intent (None without a token: not paid)."""
    if not token:
        return None
    return f"{runtime().config.pay_url.rstrip('/')}/{payment_id}/receipt/{token}"


def token_matches(stored: str | None, given: str | None) -> bool:
    """Constant time: the comparison tells nothing about how much of a guess was right."""
    if not stored or not isinstance(given, str):
        return False
    return hmac.compare_digest(stored.encode(), given.encode())


def locale_for(customer: Customer | None, given: str | None = None, fallback: str = "en") -> str:
    """The buyer's language: the merchant's or the checkout page's (`given`), else the customer's
    `locale` metadata, else the phone's country (+90 Turkish, Arab countries Arabic), else
    `fallback` (the merchant's default language)."""
    if given in LOCALES:
        return given
    if customer is not None:
        meta = customer.metadata if isinstance(customer.metadata, dict) else {}
        if meta.get("locale") in LOCALES:
            return meta["locale"]
        phone = (customer.phone or "").replace(" ", "")
        if phone.startswith("+90"):
            return "tr"
        if phone.startswith(_AR_PHONE):
            return "ar"
    return fallback if fallback in LOCALES else "en"


def messaging_configured() -> bool:
    cfg = runtime().config
    return bool(cfg.messaging_phone_number_id and cfg.messaging_access_token)


def build(*, merchant_id: str, livemode: bool, payment_id: str, source: str, customer: Customer | None,
          locale: str | None = None, market: str | None = None) -> Receipt | None:
    """The outbox row for the caller to write in the transaction of the success; None when the
    customer has no phone number or e-mail address. Phone -> messaging; e-mail only -> e-mail
    (also when messaging is not configured and the customer has both)."""
    if customer is None:
        return None
    phone, email = (customer.phone or "").strip(), (customer.email or "").strip()
    if phone and (messaging_configured() or not email):
        channel, to = "messaging", phone
    elif email:
        channel, to = "email", email
    else:
        return None
    now = runtime().clock.now()
    return new(Receipt, id=new_id("rcp"), merchant_id=merchant_id, livemode=livemode, payment_id=payment_id,
                   source=source, channel=channel, sent_to=to[:254],
                   locale=locale_for(customer, locale, locales.merchant_default(market)),
                   status="pending", attempts=0, next_attempt_at=now, created_at=now, updated_at=now)


async def enqueue_intent(intent: PaymentIntent) -> Receipt | None:
    """Inside the intent's success transaction: the receipt row if its customer can be reached."""
    if not intent.customer_id:
        return None
    customer = await Customer.get_or_none(id=intent.customer_id, merchant_id=intent.merchant_id,
                                          livemode=intent.livemode)
    row = build(merchant_id=intent.merchant_id, livemode=intent.livemode, payment_id=intent.id, source="intent",
                customer=customer, locale=intent.locale if intent.locale in LOCALES else None,
                market=await markets.cached_market_of(intent.merchant_id))
    if row is not None and not await Receipt.filter(payment_id=intent.id).exists():
        await row.save(force_create=True)
        return row
    return None


async def enqueue_payment(p: Payment, locale: str | None = None) -> Receipt | None:
    """Inside a payment's capture transaction (a payment authorized first, captured later)."""
    if not p.customer_id or await Receipt.filter(payment_id=p.id).exists():
        return None
    customer = await Customer.get_or_none(id=p.customer_id)
    row = build(merchant_id=p.merchant_id, livemode=p.livemode, payment_id=p.id, source="payment",
                customer=customer, locale=locale, market=await markets.cached_market_of(p.merchant_id))
    if row is not None:
        await row.save(force_create=True)
    return row


RECEIPT_COLUMNS = ("channel", "sent_to", "status")


def state_from(joined: dict | None) -> ReceiptState | None:
    """The receipt state from a row read with `lookup.first_with(..., Receipt, "payment_id", RECEIPT_COLUMNS)`."""
    return ReceiptState(joined["channel"], joined["sent_to"], joined["status"]) if joined else None


async def states_of(payment_ids: list[str]) -> dict[str, ReceiptState]:
    rows = await Receipt.filter(payment_id__in=list(set(payment_ids))) if payment_ids else []
    return {r.payment_id: ReceiptState(r.channel, r.sent_to, r.status) for r in rows}


# ---------------------------------------------------------------- what a receipt says

@dataclass
class ReceiptView:
    payment_id: str
    merchant_name: str
    amount: int
    currency: str
    method: str                  # card | crypto | cod | qr | tap_to_pay | bank_transfer
    card_brand: str | None
    card_last4: str | None
    paid_at: datetime
    status: str
    description: str | None
    locale: str | None           # the merchant's choice: the intent's or the payment link's `locale`
    livemode: bool
    token: str | None = None     # receipt_token
    country: str | None = None   # the merchant's (its market: the default language, the time zone)
    installments: dict | None = None     # the installment terms (services.payments.installments.as_object)
    reference: str | None = None  # a Fawry intent: its reference code
    channel: str | None = None    # a Fawry intent: where the reference was paid (outlet)
    eta_qr: str | None = None     # an Egyptian e-receipt's QR content: ETA's receipt URL (services.einvoicing.eta)

    @property
    def url(self) -> str | None:
        return url_of(self.payment_id, self.token)

    @property
    def default_locale(self) -> str:
        return locales.merchant_default(self.country)

    def paid_text(self, locale: str) -> str:
        return locales.format_when(self.paid_at, locale, self.country)


async def view(payment_id: str) -> ReceiptView | None:
    """The receipt of a succeeded payment or intent, or None (unknown, or not paid)."""
    if not isinstance(payment_id, str):
        return None
    return (await views([payment_id])).get(payment_id)


async def view_by_token(payment_id: str, token: str | None) -> ReceiptView | None:
    """The receipt behind a receipt_url, or None: unknown, not paid, or not its token."""
    v = await view(payment_id)
    if v is None or not token_matches(v.token, token):
        return None
    return v


_PAYMENT_COLUMNS = ("id", "merchant_id", "status", "amount", "amount_captured", "currency", "card_brand", "card_last4",
                    "captured_at", "created_at", "description", "livemode", "payment_link", "receipt_token",
                    "installments", "eta_receipt")
_INTENT_COLUMNS = ("id", "merchant_id", "status", "amount", "amount_received", "currency", "payment_method",
                   "payment_method_ref", "succeeded_at", "created_at", "description", "locale", "livemode",
                   "receipt_token", "installments", "method_details")


async def views(payment_ids: list[str]) -> dict[str, ReceiptView]:
    """The receipts of those of `payment_ids` that are succeeded payments or intents, by id: a few
    reads for any number (the worker reads a whole claimed batch at once), each one statement text
    whatever the number (`lookup.by_ids`)."""
    from models.intents import PaymentMethod
    from services.payments.payment_methods import TEST_METHODS, _test_method

    ids = list(set(payment_ids))
    if not ids:
        return {}
    pays = await lookup.by_ids(Payment, ids, _PAYMENT_COLUMNS)
    rest = list(set(ids) - {p.id for p in pays})
    intents = await lookup.by_ids(PaymentIntent, rest, _INTENT_COLUMNS)
    pays = [p for p in pays if p.status in PAID]
    intents = [i for i in intents if i.status in ("succeeded", "refunded")]
    merchants = {m.id: m for m in await lookup.by_ids(Merchant, list({r.merchant_id for r in (*pays, *intents)}),
                                                       ("id", "name", "email", "country"))}
    link_locales = {link.id: link.locale for link in await lookup.by_ids(
        PaymentLink, list({p.payment_link for p in pays if p.payment_link}), ("id", "locale"))}
    refs = list({i.payment_method_ref for i in intents
                 if i.payment_method_ref and i.payment_method_ref not in TEST_METHODS})
    methods = {pm.id: pm for pm in await PaymentMethod.filter(id__in=refs)} if refs else {}
    out: dict[str, ReceiptView] = {}
    for p in pays:
        m = merchants[p.merchant_id]
        out[p.id] = ReceiptView(p.id, m.name or m.email, p.amount_captured or p.amount, p.currency, "card",
                                p.card_brand, p.card_last4, p.captured_at or p.created_at, p.status, p.description,
                                link_locales.get(p.payment_link), p.livemode, p.receipt_token, m.country,
                                p.installments, eta_qr=(p.eta_receipt or {}).get("qr_url"))
    for i in intents:
        m = merchants[i.merchant_id]
        brand = last4 = None
        ref = i.payment_method_ref
        details = i.method_details or {}
        if ref:
            pm = _test_method(ref) if ref in TEST_METHODS else methods.get(ref)
            if pm is not None:
                brand, last4 = pm.brand, pm.last4
        elif details.get("wallet"):      # Apple Pay / Google Pay: the device number's
            card = details.get("card") or {}
            brand, last4 = card.get("brand"), card.get("last4")
        # What the card was charged, as a payment's amount_captured: total_amount in installments.
        out[i.id] = ReceiptView(i.id, m.name or m.email, i.amount_received or i.amount, i.currency,
                                i.payment_method, brand, last4, i.succeeded_at or i.created_at, i.status,
                                i.description, i.locale, i.livemode, i.receipt_token, m.country, i.installments,
                                *_fawry(i.payment_method, details))
    return out


def _fawry(method: str, details: dict) -> tuple:
    """A Fawry intent's reference and where it was paid, for its receipt."""
    if method != "fawry":
        return None, None
    return details.get("reference"), details.get("channel")


TEXTS = {
    "en": {"subject": "Your receipt from {merchant}", "body": "{merchant}: payment of {amount} received "
           "({payment}). Receipt: {url}", "fallback_merchant": "the merchant"},
    "tr": {"subject": "{merchant} makbuzunuz", "body": "{merchant}: {amount} tutarındaki ödemeniz alındı "
           "({payment}). Makbuz: {url}", "fallback_merchant": "satıcı"},
    "ar": {"subject": "إيصالك من {merchant}", "body": "{merchant}: تم استلام دفعة بقيمة {amount} "
           "({payment}). الإيصال: {url}", "fallback_merchant": "التاجر"},
}


def message_for(v: ReceiptView, locale: str) -> tuple[str, str]:
    t = TEXTS.get(locale, TEXTS["en"])
    merchant = v.merchant_name or t["fallback_merchant"]
    amount = pricing.format_localized(v.amount, v.currency, locale)
    taksit = installment_text.line(v.installments, v.currency, locale)
    if taksit:                  # "1.245,00 ₺ (3 taksit x 415,00 TL)"
        amount = f"{amount} ({taksit})"
    body = t["body"].format(merchant=merchant, amount=amount, payment=v.payment_id, url=v.url)
    return t["subject"].format(merchant=merchant), body


# ---------------------------------------------------------------- the worker's side

async def claim_due(*, owner: str, limit: int = CLAIM_BATCH, merchant_id: str | None = None) -> list:
    """Lease up to `limit` due receipts to `owner` (services.infra.leases: SKIP LOCKED on PostgreSQL,
    so any number of workers): the receipts as leased, read by the claim itself on PostgreSQL.
    `merchant_id` confines the claim to one merchant (tests)."""
    return await leases.claim_due(Receipt, status_field="status", owner=owner, now=runtime().clock.now(),
                                  lease=LEASE, limit=limit, merchant_id=merchant_id, rows=True)


async def _send_messaging(to: str, text: str) -> tuple[bool, str | None, str | None]:
    rt = runtime()
    cfg = rt.config
    if not messaging_configured():
        return False, None, "messaging is not configured (QAFILA_MESSAGING_PHONE_NUMBER_ID, _ACCESS_TOKEN)"
    url = f"{cfg.messaging_graph_url.rstrip('/')}/{cfg.messaging_graph_version}/{cfg.messaging_phone_number_id}/messages"
    payload = {"messaging_product": "whatsapp", "recipient_type": "individual",
               "to": to.lstrip("+").replace(" ", "").replace("-", ""), "type": "text",
               "text": {"preview_url": True, "body": text}}
    res = await rt.http.post_json(url, json=payload, timeout=SEND_TIMEOUT,
                                  headers={"Authorization": f"Bearer {cfg.messaging_access_token}"})
    if 200 <= res.status < 300:
        try:
            return True, str(res.body["messages"][0]["id"])[:128], None
        except (KeyError, IndexError, TypeError):
            return True, None, None
    return False, None, f"HTTP {res.status}" if res.status else f"no answer ({res.error})"


async def _send_email(to: str, subject: str, text: str) -> tuple[bool, str | None, str | None]:
    try:
        async with asyncio.timeout(SEND_TIMEOUT + 5):     # (not wait_for: no task of its own per receipt)
            await runtime().mailer.send(to=to, subject=subject, text=text)
    except Exception as exc:  # noqa: BLE001 - the mail server's failure, retried
        return False, None, f"mail server: {type(exc).__name__}"
    return True, None, None


async def _send(r: Any, v: ReceiptView | None) -> tuple[Any, dict]:
    """Send one claimed receipt (a Receipt row as the claim gave it: a RowView on PostgreSQL, an
    instance elsewhere; `v`: its payment's receipt, None when there is none any more):
    the attempt's changes to its row, for `_record` to write with the batch's others."""
    if v is None:          # refunded away or gone: nothing to send
        ok, mid, error = False, None, "the payment has no receipt"
        final = True
    else:
        subject, text = message_for(v, r.locale)
        if r.channel == "messaging":
            ok, mid, error = await _send_messaging(r.sent_to, text)
        else:
            ok, mid, error = await _send_email(r.sent_to, subject, text + "\n")
        final = False
    now = runtime().clock.now()
    number = r.attempts + 1
    changes: dict = {"attempts": number, "lease_owner": None, "lease_until": None, "updated_at": now,
                     "last_error": (error or "")[:200] or None}
    if ok:
        changes.update(status="sent", sent_at=now, next_attempt_at=None, message_id=mid)
    elif final or number >= MAX_ATTEMPTS:
        changes.update(status="failed", next_attempt_at=None)
    else:
        changes.update(next_attempt_at=now + timedelta(seconds=RETRY_DELAYS[number - 1]))
    if not ok:
        log.warning("receipt %s (%s) attempt %d failed: %s", r.id, r.channel, number, changes["last_error"])
    return r, changes


# A claimed batch's attempts in one statement on PostgreSQL (one commit for the batch, not one
# per receipt: a third of the database's work per paid payment under load, issue 48). A column
# an attempt leaves as it was is given as NULL and kept (status, sent_at, message_id).
_RECORD_SQL = """UPDATE "receipts" AS r SET "attempts" = v.attempts, "lease_owner" = NULL, "lease_until" = NULL,
    "updated_at" = v.updated_at, "last_error" = v.last_error, "next_attempt_at" = v.next_attempt_at,
    "status" = COALESCE(v.status, r."status"), "sent_at" = COALESCE(v.sent_at, r."sent_at"),
    "message_id" = COALESCE(v.message_id, r."message_id")
FROM unnest($1::text[], $2::int[], $3::timestamptz[], $4::text[], $5::timestamptz[], $6::text[], $7::timestamptz[],
            $8::text[]) AS v(id, attempts, updated_at, last_error, next_attempt_at, status, sent_at, message_id)
WHERE r."id" = v.id AND r."lease_owner" = $9"""


async def _record(sent: list[tuple[Any, dict]], *, owner: str) -> None:
    """Write each attempt onto its receipt, if the lease is still `owner`'s."""
    if not sent:
        return
    db = Receipt._meta.db
    if db.capabilities.dialect == "postgres":
        columns = [[changes.get(name) for _, changes in sent] for name in
                   ("attempts", "updated_at", "last_error", "next_attempt_at", "status", "sent_at", "message_id")]
        await lookup.fetch_custom_plan(Receipt, _RECORD_SQL, [[r.id for r, _ in sent], *columns, owner])
    else:
        for r, changes in sent:
            names = tuple(changes)
            await lookup.execute(Receipt, 'UPDATE "receipts" SET ' + ", ".join(f'"{n}" = {{}}' for n in names)
                                 + ' WHERE "id" = {} AND "lease_owner" = {}',
                                 [*(lookup.db_value(Receipt, n, changes[n]) for n in names), r.id, owner])
    for r, changes in sent:
        for k, v_ in changes.items():
            setattr(r, k, v_)


@dataclass
class RunStats:
    claimed: int = 0
    sent: int = 0
    failed: int = 0


async def run_once(*, owner: str, limit: int = CLAIM_BATCH, merchant_id: str | None = None) -> RunStats:
    """One worker step: claim what is due and send it concurrently."""
    held = await claim_due(owner=owner, limit=limit, merchant_id=merchant_id)
    stats = RunStats(claimed=len(held))
    if not held:
        return stats
    said = await views([r.payment_id for r in held])        # what the batch says: a few reads
    gate = asyncio.Semaphore(SEND_CONCURRENCY)

    async def send(r: Any) -> tuple[Any, dict]:
        async with gate:
            return await _send(r, said.get(r.payment_id))
    results = await asyncio.gather(*(send(r) for r in held), return_exceptions=True)
    sent = []
    for res in results:
        if isinstance(res, BaseException):
            log.error("receipt send crashed: %s", type(res).__name__, exc_info=res)
        else:
            sent.append(res)
    await _record(sent, owner=owner)
    for r, _ in sent:
        stats.sent += r.status == "sent"
        stats.failed += r.status != "sent"
    return stats
