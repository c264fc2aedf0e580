"""The CRM interface `/api/...` of crm-api.md, served on its own port: route table and shapers.

Authenticated with CRM access tokens (services.crm.accounts.authenticate); rate-limited per
company by its plan (free 60/min, paid 600/min); public endpoints per client address."""
from __future__ import annotations

from aiohttp import web

from rest_compat.routing import Call, Interface, Route
from rest_compat.shapes import day, page, ts
from services.crm import accounts, customers, deals, members, messaging, reports
from services.errors import DomainError


def render_error(err: DomainError, rid: str) -> dict:
    return {"error": {"type": err.type, "code": err.code, "message": err.message, "param": err.param,
                      **err.extra_fields(), "request_id": rid}}


# ---------------------------------------------------------------- shapes

def user_shape(u) -> dict:
    return {"id": u.id, "object": "user", "email": u.email, "name": u.name, "role": u.role,
            "company_id": u.company_id, "created_at": ts(u.created_at)}


def company_shape(c) -> dict:
    return {"id": c.id, "object": "company", "name": c.name, "plan": c.plan,
            "commission_rate": c.commission_rate, "currency": c.currency, "country": c.country,
            "phone_number_id": c.phone_number_id, "created_at": ts(c.created_at)}


def tokens_shape(t) -> dict:
    return {"access_token": t.access_token, "refresh_token": t.refresh_token, "token_type": "Bearer",
            "expires_in": t.expires_in, "refresh_expires_in": t.refresh_expires_in,
            "user": user_shape(t.user), "company": company_shape(t.company)}


def customer_shape(c) -> dict:
    return {"id": c.id, "object": "customer", "name": c.name, "email": c.email, "phone": c.phone,
            "tags": customers.tags_of(c), "tax_id": c.tax_id, "address": c.address, "created_at": ts(c.created_at),
            "updated_at": ts(c.updated_at)}


def commission_shape(m) -> dict:
    return {"id": m.id, "object": "commission", "deal_id": m.deal_id, "user_id": m.user_id, "cycle": m.cycle,
            "amount": m.amount, "currency": m.currency, "rate": m.rate, "status": m.status,
            "created_at": ts(m.created_at), "reversed_at": ts(m.reversed_at)}


def deal_shape(d, commissions: list | None = None) -> dict:
    out = {"id": d.id, "object": "deal", "title": d.title, "customer_id": d.customer_id, "owner_id": d.owner_id,
           "stage": d.stage, "value": d.value, "currency": d.currency, "probability": d.probability,
           "won_at": ts(d.won_at), "created_at": ts(d.created_at), "updated_at": ts(d.updated_at)}
    if commissions is not None:
        out["commissions"] = [commission_shape(m) for m in commissions]
    return out


def message_shape(m) -> dict:
    return {"id": m.id, "object": "message", "direction": m.direction, "customer_id": m.customer_id,
            "phone": m.phone, "type": m.type, "text": m.body, "status": m.status, "error": m.error,
            "platform_message_id": m.platform_message_id, "read": m.read, "created_at": ts(m.created_at)}


def conversation_shape(c) -> dict:
    return {"object": "conversation", "customer": customer_shape(c.customer) if c.customer else None,
            "customer_id": c.customer.id if c.customer else None, "phone": c.phone,
            "last_message": message_shape(c.last_message), "unread_count": c.unread_count,
            "message_count": c.message_count}


def rate_shape(r) -> dict:
    """A listed rate (reports.ListedRate) or one just set (an ExchangeRate row: the company's)."""
    return {"id": r.id, "object": "exchange_rate", "base": r.base, "quote": r.quote, "rate": r.rate,
            "rate_date": day(r.rate_date), "updated_at": ts(r.updated_at), "source": getattr(r, "source", "company")}


def unconverted_shape(parts) -> list[dict]:
    return [{"currency": u.currency, "deal_count": u.deal_count, "amount": u.amount,
             **({} if u.weighted_amount is None else {"weighted_amount": u.weighted_amount})} for u in parts]


def missing_shape(r) -> dict:
    return {"unconverted": unconverted_shape(r.unconverted),
            "missing_rates": [{"base": m.base, "quote": m.quote} for m in r.missing_rates]}


def revenue_shape(r) -> dict:
    return {"object": "revenue_report", "currency": r.currency, "total": r.total, "total_decimal": r.total_decimal,
            "deal_count": r.deal_count,
            "by_currency": [{"currency": x.currency, "amount": x.amount, "deal_count": x.deal_count,
                             "rate": x.rate, "rate_date": day(x.rate_date), "inverse": x.inverse,
                             "source": x.source, "converted_decimal": x.converted_decimal} for x in r.by_currency],
            **missing_shape(r)}


def pipeline_shape(p) -> dict:
    return {"object": "pipeline_report", "currency": p.currency,
            "stages": [{"stage": s.stage, "count": s.count, "value": s.value, "weighted_value": s.weighted_value,
                        "unconverted": unconverted_shape(s.unconverted)} for s in p.stages],
            "total": {"count": p.count, "value": p.value, "weighted_value": p.weighted_value},
            "rates_used": [{"base": x.base, "quote": x.quote, "rate": x.rate, "rate_date": day(x.rate_date),
                            "inverse": x.inverse, "source": x.source} for x in p.rates_used],
            **missing_shape(p)}


# ---------------------------------------------------------------- accounts

async def auth_signup(call: Call) -> dict:
    return tokens_shape(await accounts.signup(data=await call.body()))


async def auth_login(call: Call) -> dict:
    return tokens_shape(await accounts.login(data=await call.body()))


async def auth_refresh(call: Call) -> dict:
    return tokens_shape(await accounts.refresh(data=await call.body()))


async def auth_logout(call: Call) -> dict:
    session_id = await accounts.logout(data=await call.body(),
                                       authorization=call.request.headers.get("Authorization"))
    return {"object": "session", "id": session_id, "revoked": True}


async def me(call: Call) -> dict:
    company = await accounts.get_company(principal=call.principal)
    users = await accounts.list_users(principal=call.principal)
    user = next(u for u in users if u.id == call.principal.user_id)
    return {"user": user_shape(user), "company": company_shape(company)}


async def company_update(call: Call) -> dict:
    return company_shape(await accounts.update_company(principal=call.principal, data=await call.body()))


async def users_list(call: Call) -> dict:
    users = await accounts.list_users(principal=call.principal)
    return {"object": "list", "data": [user_shape(u) for u in users], "has_more": False}


async def users_create(call: Call) -> dict:
    return user_shape(await accounts.create_user(principal=call.principal, data=await call.body()))


# ---------------------------------------------------------------- customers

async def customers_list(call: Call) -> dict:
    p = await customers.list_customers(principal=call.principal, query=dict(call.query))
    return page([customer_shape(c) for c in p.items], p, object="list", total_count=await p.count(),
                next_cursor=p.next_cursor)


async def customers_create(call: Call) -> dict:
    return customer_shape(await customers.create_customer(principal=call.principal, data=await call.body()))


async def customers_get(call: Call) -> dict:
    return customer_shape(await customers.get_customer(principal=call.principal, customer_id=call.params["id"]))


async def customers_update(call: Call) -> dict:
    return customer_shape(await customers.update_customer(principal=call.principal, customer_id=call.params["id"],
                                                          data=await call.body()))


async def customers_delete(call: Call) -> dict:
    c = await customers.delete_customer(principal=call.principal, customer_id=call.params["id"])
    return {"id": c.id, "object": "customer", "deleted": True}


# ---------------------------------------------------------------- deals

async def deals_list(call: Call) -> dict:
    p = await deals.list_deals(principal=call.principal, query=dict(call.query))
    return page([deal_shape(d) for d in p.items], p, object="list", total_count=await p.count(),
                next_cursor=p.next_cursor)


async def deals_create(call: Call) -> dict:
    d = await deals.create_deal(principal=call.principal, data=await call.body())
    got = await deals.commissions_of(principal=call.principal, deal_ids=[d.id])
    return deal_shape(d, got[d.id])


async def deals_get(call: Call) -> dict:
    d = await deals.get_deal(principal=call.principal, deal_id=call.params["id"])
    got = await deals.commissions_of(principal=call.principal, deal_ids=[d.id])
    return deal_shape(d, got[d.id])


async def deals_update(call: Call) -> dict:
    d = await deals.update_deal(principal=call.principal, deal_id=call.params["id"], data=await call.body())
    got = await deals.commissions_of(principal=call.principal, deal_ids=[d.id])
    return deal_shape(d, got[d.id])


async def commissions_list(call: Call) -> dict:
    p = await deals.list_commissions(principal=call.principal, query=dict(call.query))
    return page([commission_shape(m) for m in p.items], p, object="list", total_count=await p.count(),
                next_cursor=p.next_cursor)


# ---------------------------------------------------------------- messaging

async def messaging_verify(call: Call) -> web.StreamResponse:
    q = call.query
    challenge = messaging.verify_webhook(mode=q.get("hub.mode"), token=q.get("hub.verify_token"),
                                         challenge=q.get("hub.challenge"))
    return web.Response(text=challenge, content_type="text/plain")


async def messaging_webhook(call: Call) -> dict:
    raw = await call.request.read()
    r = await messaging.receive_webhook(raw=raw, signature=call.request.headers.get("X-Hub-Signature-256"))
    return {"received": True, "messages": r.messages, "duplicates": r.duplicates, "statuses": r.statuses,
            "ignored": r.ignored}


async def messaging_inbox(call: Call) -> dict:
    p = await messaging.inbox(principal=call.principal, query=dict(call.query))
    return {"object": "list", "data": [conversation_shape(c) for c in p.items], "has_more": p.has_more,
            "total_count": p.total, "next_cursor": p.next_cursor}


async def messaging_messages(call: Call) -> dict:
    p = await messaging.list_messages(principal=call.principal, query=dict(call.query))
    return page([message_shape(m) for m in p.items], p, object="list", total_count=await p.count(),
                next_cursor=p.next_cursor)


async def messaging_send(call: Call) -> dict:
    return message_shape(await messaging.send_message(principal=call.principal, data=await call.body()))


async def messaging_read(call: Call) -> dict:
    n = await messaging.mark_read(principal=call.principal, data=await call.body())
    return {"object": "read_receipt", "marked": n}


# ---------------------------------------------------------------- reports

async def reports_revenue(call: Call) -> dict:
    return revenue_shape(await reports.revenue(principal=call.principal, query=dict(call.query)))


async def reports_pipeline(call: Call) -> dict:
    return pipeline_shape(await reports.pipeline(principal=call.principal, query=dict(call.query)))


async def reports_rates(call: Call) -> dict:
    rows = await reports.list_rates(principal=call.principal)
    return {"object": "list", "data": [rate_shape(r) for r in rows], "has_more": False}


async def reports_rates_set(call: Call) -> dict:
    return rate_shape(await reports.set_rate(principal=call.principal, data=await call.body()))


ROUTES: list[Route] = [
    Route("POST", "/auth/signup", auth_signup, auth="public", status=201, summary="Create an account and company",
          request_fields=("email", "password", "name", "company_name", "currency"),
          response_fields=("access_token", "refresh_token", "expires_in", "user", "company")),
    Route("POST", "/auth/login", auth_login, auth="public", summary="Sign in with e-mail and password",
          request_fields=("email", "password"), response_fields=("access_token", "refresh_token", "user")),
    Route("POST", "/auth/refresh", auth_refresh, auth="public", summary="Rotate the refresh token",
          request_fields=("refresh_token",), response_fields=("access_token", "refresh_token")),
    Route("POST", "/auth/logout", auth_logout, auth="public", summary="End the session",
          request_fields=("refresh_token",), response_fields=("id", "revoked")),
    Route("GET", "/me", me, summary="The signed-in user and company", response_fields=("user", "company")),
    Route("PUT", "/company", company_update, summary="Update the company (admin)",
          request_fields=("name", "commission_rate", "currency", "phone_number_id"),
          response_fields=("id", "plan", "commission_rate")),
    Route("GET", "/users", users_list, summary="List the company's users", response_fields=("data",)),
    Route("POST", "/users", users_create, status=201, summary="Add a user to the company (admin)",
          request_fields=("email", "password", "name", "role"), response_fields=("id", "role")),
    Route("GET", "/customers", customers_list, summary="List customers",
          response_fields=("data", "has_more", "total_count")),
    Route("POST", "/customers", customers_create, status=201, summary="Create a customer",
          request_fields=("name", "email", "phone", "tags", "tax_id", "address"),
          response_fields=("id", "name", "tax_id", "address")),
    Route("GET", "/customers/{id}", customers_get, summary="Get a customer", response_fields=("id", "name")),
    Route("PUT", "/customers/{id}", customers_update, summary="Update a customer",
          request_fields=("name", "email", "phone", "tags", "tax_id", "address"),
          response_fields=("id", "name", "tax_id", "address")),
    Route("DELETE", "/customers/{id}", customers_delete, summary="Delete a customer with its deals and messages",
          response_fields=("id", "deleted")),
    Route("GET", "/deals", deals_list, summary="List deals", response_fields=("data", "has_more", "total_count")),
    Route("POST", "/deals", deals_create, status=201, summary="Create a deal",
          request_fields=("title", "customer_id", "owner_id", "stage", "value", "currency", "probability"),
          response_fields=("id", "stage", "value", "currency")),
    Route("GET", "/deals/{id}", deals_get, summary="Get a deal with its commissions",
          response_fields=("id", "stage", "commissions")),
    Route("PUT", "/deals/{id}", deals_update, summary="Update a deal; a move to won triggers commissions",
          request_fields=("title", "customer_id", "owner_id", "stage", "value", "currency", "probability"),
          response_fields=("id", "stage", "commissions")),
    Route("GET", "/commissions", commissions_list, summary="List commissions", response_fields=("data",)),
    Route("GET", "/messaging/webhook", messaging_verify, auth="public", summary="Webhook verification",
          response_fields=("hub.challenge",)),
    Route("POST", "/messaging/webhook", messaging_webhook, auth="public", summary="Inbound platform webhook",
          response_fields=("received",), content_type=None),     # signed raw bytes, parsed by the service
    Route("GET", "/messaging/inbox", messaging_inbox, summary="Conversations per customer",
          response_fields=("data", "has_more")),
    Route("GET", "/messaging/messages", messaging_messages, summary="Messages of a conversation",
          response_fields=("data", "has_more")),
    Route("POST", "/messaging/send", messaging_send, status=201, summary="Send a message",
          request_fields=("customer_id", "to", "text"), response_fields=("id", "status")),
    Route("POST", "/messaging/read", messaging_read, summary="Mark a conversation read",
          request_fields=("customer_id", "phone"), response_fields=("marked",)),
    Route("GET", "/reports/revenue", reports_revenue, summary="Won revenue in a target currency",
          response_fields=("currency", "total", "by_currency")),
    Route("GET", "/reports/pipeline", reports_pipeline, summary="Open funnel weighted by probability",
          response_fields=("currency", "stages")),
    Route("GET", "/reports/rates", reports_rates, summary="Configured exchange rates", response_fields=("data",)),
    Route("PUT", "/reports/rates", reports_rates_set, summary="Set an exchange rate (admin)",
          request_fields=("base", "quote", "rate", "rate_date"), response_fields=("base", "quote", "rate")),
]


def interface() -> Interface:
    return Interface(name="crm", prefix="/api", routes=ROUTES, render_error=render_error,
                     rate_rule=accounts.PUBLIC_RULE, authenticate=members.authenticate,
                     rate_rule_for=accounts.rate_rule_for, cookies=True)
