"""Messaging through a WhatsApp-Cloud-style platform: webhook verification and signed inbound
webhooks (stored idempotently by the platform's message id, linked to the customer by phone),
the inbox grouped per customer, and sending through the platform's Graph API."""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import orjson
from tortoise.exceptions import IntegrityError
from tortoise.expressions import Q
from tortoise.functions import Count, Max

from models.crm import Company, Customer, Message
from services.crm.accounts import CrmPrincipal
from services.crm.customers import _scope, get_customer, normalize_phone
from services.errors import AuthenticationError, DomainError, PermissionDenied, ServiceUnavailable, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.pagination import Page, check_limit, paginate
from services.validation import Fields, one_of, reject_nul

MAX_TEXT = 4096
STATUS_ORDER = {"sent": 1, "delivered": 2, "read": 3, "failed": 4}


# ---------------------------------------------------------------- webhook

def verify_webhook(*, mode: str | None, token: str | None, challenge: str | None) -> str:
    """GET verification: answer the challenge when the verify token matches."""
    expected = runtime().config.messaging_verify_token
    if (mode != "subscribe" or not expected or not isinstance(token, str)
            or not hmac.compare_digest(token.encode(), expected.encode())):
        raise PermissionDenied("Webhook verification failed", code="verification_failed")
    if not challenge or len(challenge) > 200:
        raise ValidationError("hub.challenge is required", param="hub.challenge")
    return challenge


def check_signature(raw: bytes, signature: str | None) -> None:
    secret = runtime().config.messaging_app_secret
    if not secret or not signature or not signature.startswith("sha256="):
        raise AuthenticationError("Invalid webhook signature", code="invalid_signature")
    expected = hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(signature[len("sha256="):].strip().lower().encode(), expected.encode()):
        raise AuthenticationError("Invalid webhook signature", code="invalid_signature")


@dataclass
class WebhookResult:
    messages: int = 0
    duplicates: int = 0
    statuses: int = 0
    ignored: int = 0


def _text_of(msg: dict) -> str:
    kind = msg.get("type")
    part = msg.get(kind) if isinstance(kind, str) else None
    if kind == "text" and isinstance(part, dict):
        return str(part.get("body", ""))[:MAX_TEXT]
    if isinstance(part, dict):
        return str(part.get("caption") or part.get("body") or "")[:MAX_TEXT]
    return ""


def _when(ts: Any) -> datetime:
    try:
        seconds = int(ts)
        if 0 < seconds < 253402300799:
            return datetime.fromtimestamp(seconds, timezone.utc)
    except (TypeError, ValueError):
        pass
    return runtime().clock.now()


async def _customer_by_phone(company_id: str, phone: str) -> Customer | None:
    return await Customer.filter(company_id=company_id, phone=phone).order_by("created_at", "id").first()


async def receive_webhook(*, raw: bytes, signature: str | None) -> WebhookResult:
    check_signature(raw, signature)
    try:
        payload = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ValidationError("Request body is not valid JSON", code="invalid_json") from None
    reject_nul(payload)
    if not isinstance(payload, dict) or not isinstance(payload.get("entry"), list):
        raise ValidationError("entry must be an array", param="entry")
    result = WebhookResult()
    companies: dict[str, Company | None] = {}
    for entry in payload["entry"]:
        for change in (entry.get("changes") or []) if isinstance(entry, dict) else []:
            value = change.get("value") if isinstance(change, dict) else None
            if not isinstance(value, dict):
                continue
            pnid = str((value.get("metadata") or {}).get("phone_number_id") or "")
            if pnid not in companies:
                companies[pnid] = await Company.get_or_none(phone_number_id=pnid) if pnid else None
            company = companies[pnid]
            items = (value.get("messages") or []) + (value.get("statuses") or [])
            if company is None:
                result.ignored += len(items)        # not one of our numbers: acknowledged, not stored
                continue
            for msg in value.get("messages") or []:
                await _store_inbound(company, msg, result)
            for st in value.get("statuses") or []:
                await _apply_status(company, st, result)
    return result


async def _store_inbound(company: Company, msg: Any, result: WebhookResult) -> None:
    if not isinstance(msg, dict) or not isinstance(msg.get("id"), str) or not msg.get("from"):
        result.ignored += 1
        return
    pmid = msg["id"][:128]
    if await Message.filter(company_id=company.id, platform_message_id=pmid).exists():
        result.duplicates += 1
        return
    try:
        phone = normalize_phone(str(msg["from"]), "from")
    except ValidationError:
        result.ignored += 1
        return
    customer = await _customer_by_phone(company.id, phone)
    try:
        await Message.create(id=new_id("msg"), company_id=company.id, customer_id=customer.id if customer else None,
                             platform_message_id=pmid, direction="inbound", phone=phone,
                             type=str(msg.get("type") or "text")[:16], body=_text_of(msg), status="received",
                             created_at=_when(msg.get("timestamp")))
        result.messages += 1
    except IntegrityError:            # the same delivery, concurrently: stored once
        result.duplicates += 1


async def _apply_status(company: Company, st: Any, result: WebhookResult) -> None:
    if not isinstance(st, dict) or st.get("status") not in STATUS_ORDER or not isinstance(st.get("id"), str):
        result.ignored += 1
        return
    msg = await Message.get_or_none(company_id=company.id, platform_message_id=st["id"], direction="outbound")
    if msg is None:
        result.ignored += 1
        return
    if STATUS_ORDER[st["status"]] > STATUS_ORDER.get(msg.status, 0):     # statuses only move forward
        await Message.filter(id=msg.id).update(status=st["status"])
    result.statuses += 1


# ---------------------------------------------------------------- inbox

@dataclass
class Conversation:
    key: str
    customer: Customer | None
    phone: str
    last_message: Message
    unread_count: int
    message_count: int
    last_at: datetime


def _offset(v: Any) -> int:
    if v in (None, ""):
        return 0
    if not str(v).isdigit() or int(v) > 10**6:
        raise ValidationError("starting_after must be the next_cursor of the previous page", param="starting_after")
    return int(v)


async def inbox(*, principal: CrmPrincipal, query: dict) -> Page:
    """Conversations, newest activity first: one per customer (or per phone with no customer),
    with the last message and the number of unread inbound messages."""
    scope = _scope(principal)
    limit = check_limit(query.get("limit"))
    offset = _offset(query.get("starting_after"))
    unread = query.get("unread")
    if unread not in (None, "1", "true", "0", "false"):
        raise one_of("unread", ("1", "true", "0", "false"))
    only_unread = unread in ("1", "true")
    rows = await (Message.filter(**scope).annotate(last_at=Max("created_at"), n=Count("id"),
                                                   unread=Count("id", _filter=Q(read=False, direction="inbound")))
                  .group_by("customer_id", "phone").values("customer_id", "phone", "last_at", "n", "unread"))
    groups: dict[str, dict] = {}
    for r in rows:
        key = r["customer_id"] or f"phone:{r['phone']}"
        g = groups.setdefault(key, {"customer_id": r["customer_id"], "phone": r["phone"], "last_at": r["last_at"],
                                    "n": 0, "unread": 0})
        g["n"] += r["n"]
        g["unread"] += r["unread"] or 0
        if r["last_at"] > g["last_at"]:
            g["last_at"], g["phone"] = r["last_at"], r["phone"]
    ordered = sorted(groups.items(), key=lambda kv: (kv[1]["last_at"], kv[0]), reverse=True)
    if only_unread:
        ordered = [kv for kv in ordered if kv[1]["unread"]]
    window = ordered[offset:offset + limit]
    customer_ids = [g["customer_id"] for _, g in window if g["customer_id"]]
    found = {c.id: c for c in await Customer.filter(id__in=customer_ids, **scope)} if customer_ids else {}
    items = []
    for key, g in window:
        q = Message.filter(**scope)
        q = q.filter(customer_id=g["customer_id"]) if g["customer_id"] else q.filter(customer_id=None, phone=g["phone"])
        last = await q.order_by("-created_at", "-id").first()
        customer = found.get(g["customer_id"]) if g["customer_id"] else None
        items.append(Conversation(key=key, customer=customer, phone=customer.phone if customer and customer.phone
                                  else g["phone"], last_message=last, unread_count=g["unread"],
                                  message_count=g["n"], last_at=g["last_at"]))
    has_more = offset + limit < len(ordered)
    return Page(items=items, has_more=has_more, total=len(ordered),
                next_cursor=str(offset + limit) if has_more else None)


async def list_messages(*, principal: CrmPrincipal, query: dict) -> Page:
    qs = Message.filter(**_scope(principal))
    if query.get("customer_id"):
        c = await get_customer(principal=principal, customer_id=query["customer_id"], param="customer_id")
        qs = qs.filter(customer_id=c.id)
    elif query.get("phone"):
        qs = qs.filter(phone=normalize_phone(query["phone"]))
    return await paginate(qs, limit=check_limit(query.get("limit")), starting_after=query.get("starting_after"))


async def mark_read(*, principal: CrmPrincipal, data: dict) -> int:
    f = Fields(data)
    customer_id = f.str("customer_id", max_len=40)
    phone = f.str("phone", max_len=32)
    f.reject_unknown()
    qs = Message.filter(**_scope(principal), direction="inbound", read=False)
    if phone:
        phone = normalize_phone(phone)          # checked even beside customer_id, which wins
    if customer_id:
        c = await get_customer(principal=principal, customer_id=customer_id, param="customer_id")
        qs = qs.filter(customer_id=c.id)
    elif phone:
        qs = qs.filter(customer_id=None, phone=phone)
    else:
        raise ValidationError("customer_id or phone is required", param="customer_id")
    return await qs.update(read=True)


# ---------------------------------------------------------------- send

class MessagingFailed(DomainError):
    status = 502
    code = "messaging_send_failed"
    type = "api_error"


def _platform_error(body: Any) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        err = body["error"]
        return str(err.get("message") or err.get("type") or "error")[:200]
    return "error"


async def send_message(*, principal: CrmPrincipal, data: dict) -> Message:
    scope = _scope(principal)
    f = Fields(data)
    customer_id = f.str("customer_id", max_len=40)
    to = f.str("to", max_len=32)
    text = f.str("text", required=True, min_len=1, max_len=MAX_TEXT, strip=False)
    f.reject_unknown()
    if not text.strip():
        raise ValidationError("text must not be empty", param="text")
    if customer_id:
        customer = await get_customer(principal=principal, customer_id=customer_id, param="customer_id")
        if not customer.phone:
            raise ValidationError("This customer has no phone number", param="customer_id", code="customer_has_no_phone")
        phone = customer.phone
    elif to:
        phone = normalize_phone(to, "to")
        customer = await _customer_by_phone(principal.company_id, phone)
    else:
        raise ValidationError("customer_id or to is required", param="customer_id")
    rt = runtime()
    cfg = rt.config
    company = await Company.get(id=principal.company_id)
    pnid = company.phone_number_id or cfg.messaging_phone_number_id
    if not pnid or not cfg.messaging_access_token:
        raise ServiceUnavailable("Messaging is not configured: set the phone number id and access token",
                                 code="messaging_not_configured")
    url = f"{cfg.messaging_graph_url.rstrip('/')}/{cfg.messaging_graph_version}/{pnid}/messages"
    payload = {"messaging_product": "whatsapp", "recipient_type": "individual", "to": phone.lstrip("+"),
               "type": "text", "text": {"preview_url": False, "body": text}}
    res = await rt.http.post_json(url, json=payload, headers={"Authorization": f"Bearer {cfg.messaging_access_token}"})
    pmid, error = None, None
    ok = 200 <= res.status < 300
    if ok:
        try:
            pmid = str(res.body["messages"][0]["id"])[:128]
        except (KeyError, IndexError, TypeError):
            ok, error = False, "the platform answered without a message id"
    else:
        error = (f"HTTP {res.status}: {_platform_error(res.body)}" if res.status else
                 f"no answer from the platform ({res.error})")
    msg = await Message.create(id=new_id("msg"), customer_id=customer.id if customer else None,
                               platform_message_id=pmid, direction="outbound", phone=phone, type="text", body=text,
                               status="sent" if ok else "failed", error=error, read=True,
                               created_at=rt.clock.now(), **scope)
    if not ok:
        raise MessagingFailed(f"The messaging platform did not accept the message ({error}); "
                              f"recorded as {msg.id} with status failed", param=None)
    return msg
