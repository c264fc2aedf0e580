"""Hosted checkout pages, served by the service itself under the path of QAFILA_PAY_URL
(`/pay` by default; on another host, the same routes under that URL's path):

    GET  {p}/{id}                 the checkout of a link (lnk_), an intent (pay_) or an invoice (inv_)
    POST {p}/{id}                 pay by card, or confirm crypto / cash on delivery (plain form POST)
    GET  {p}/{id}/authenticate    the 3-D Secure step (sandbox: approve or fail); POST completes it
    GET  {p}/{id}/result          where an intent lands after its challenge
    GET  {p}/{id}/receipt/{token} the receipt of a paid payment or intent (its receipt_url: no key,
                                  the token is the capability; `Accept: text/plain` gets text)
    GET  {p}/{id}/receipt         404: the id alone opens no receipt
    GET  {p}/{id}/qr.png          the QR code of a crypto or QR intent
    GET  {p}/assets/{name}        the pages' CSS and script
    GET  {js}/v1/qafila.js        the browser script (QAFILA_JS_URL, default {public_url}/js)

Templates are Jinja2 files in app/templates/checkout, labels come from app/checkout/i18n.py.
Every page: CSP allowing only the service's own origin (no inline script), no framing (the
3-D Secure step opened by the browser script may be framed by QAFILA_CORS_ORIGINS), no-store.
The form POST carries a signed per-page CSRF token (HMAC with the secret key) whose nonce also
keys the payment's idempotency: a double submit charges once. JavaScript is optional: with it
the forms post in the background (`X-Qafila-Fetch: 1` -> JSON) and the page never reloads.
"""
from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import segno
from aiohttp import web
from markupsafe import Markup

from app.checkout import common, local
from app.checkout import installments as taksit
from rest_compat.routing import json_response
from services.payments import checkout, installments, receipts
from services.errors import DomainError, NotFound, RateLimited, ValidationError

log = logging.getLogger("qafila.checkout")

ASSETS = Path(__file__).resolve().parent.parent / "static" / "checkout"
ASSET_TYPES = {"checkout.css": "text/css", "checkout.js": "text/javascript"}
ID = r"{id:(?:lnk|pay|inv)_[0-9A-Za-z]{1,40}}"
TOKEN = r"{token:[0-9A-Za-z]{16,64}}"          # a receipt token (app.logs writes `{token}` in its place)
# The shared pieces (app/checkout/common.py) under the names this module has always used.
SETTINGS = common.SETTINGS
Page = common.Page
security_headers = common.security_headers
new_csrf = common.new_csrf


# ---------------------------------------------------------------- handlers

async def checkout_page(request: web.Request) -> web.Response:
    cid = request.match_info["id"]
    c = await common.load(Page(request), cid)
    if isinstance(c, web.Response):
        return c
    page = Page.of(request, c)
    if c.state == "requires_action" and c.method in checkout.LOCAL_FLOWS:
        return local.local_panel(request, page, c)
    if c.state == "requires_action":
        return await _challenge_page(request, page, c, c.challenge_token)
    panel = "panel_processing.html" if c.state == "processing" else "panel_pay.html"
    return page.render("checkout.html", panel=panel, **common.context(page, c, request))


def _too_many(page: Page, e: RateLimited) -> web.Response:
    t = page.t
    if common.fetch_requested(page.request):
        resp = json_response({"error": {"message": t.too_many, "field": None}}, status=429,
                             headers=security_headers(page.settings["settings"]))
    else:
        resp = page.message("too-many", 429, t.too_many_title, t.too_many)
    resp.headers.update(e.headers)
    return resp


def _csrf_refused(page: Page, cid: str) -> web.Response:
    if common.fetch_requested(page.request):
        return json_response({"error": {"message": page.t.forbidden_body, "field": None}, "csrf": new_csrf(cid)},
                             status=403, headers=security_headers(page.settings["settings"]))
    return page.message("forbidden", 403, page.t.forbidden_title, page.t.forbidden_body)


async def _admit_post(request: web.Request):
    """A page's form POST: the form, the checkout, the page and the CSRF nonce -- or the answer
    that refuses it (415 not a form, 404/410 no such checkout, 403 a bad CSRF token)."""
    cid = request.match_info["id"]
    try:
        form = await common.read_form(request)
    except ValidationError:
        return web.Response(status=415, text="Send the form as application/x-www-form-urlencoded")
    c = await common.load(Page(request), cid)
    if isinstance(c, web.Response):
        return c
    page = Page.of(request, c)
    try:
        nonce = common.check_csrf(cid, form.get("csrf"))
    except common.CsrfRefused:
        return _csrf_refused(page, cid)
    return cid, form, c, page, nonce


async def checkout_submit(request: web.Request) -> web.Response:
    admitted = await _admit_post(request)
    if isinstance(admitted, web.Response):
        return admitted
    cid, form, c, page, nonce = admitted
    try:
        if form.get("action") in ("choose", "local"):     # the local methods (app/checkout/local.py)
            return await local.local_submit(request, page, c, form, nonce)
        if form.get("action") == "confirm":
            outcome = await checkout.confirm_offline(checkout_id=cid, client_address=request.remote)
        elif form.get("action") == "installments":
            outcome = await checkout.pay_held(checkout_id=cid, token=form.get("token"), form=form,
                                              client_address=request.remote)
        else:
            outcome = await checkout.pay_card(checkout_id=cid, form=form, locale=page.lang,
                                              idempotency_key=f"checkout_{nonce}",
                                              client_address=request.remote)
    except checkout.Gone as g:
        return common.gone(page, g.reason)
    except RateLimited as e:
        return _too_many(page, e)
    except ValidationError as e:
        if form.get("action") == "installments" and e.param == "installments":
            return await _installments_error(request, page, c, form, e.message)
        return common.form_error(request, page, c, form, e.message, e.param)
    return await _answer(request, page, c, outcome, form)


async def _answer(request: web.Request, page: Page, c: checkout.Checkout, outcome: checkout.Outcome,
                  form: dict) -> web.Response:
    if outcome.kind == "declined":
        message = page.t.decline(outcome.decline_code)
        if request.path.endswith("/authenticate"):
            return _panel(request, page, c, "panel_declined.html", status=402, error=message)
        return common.form_error(request, page, c, form, message, "number", declined=True, status=402)
    if outcome.kind == "challenge":
        if common.fetch_requested(request):
            return await _challenge_page(request, page, c, outcome.challenge_token)
        prefix = request.app[SETTINGS]["pay_prefix"]
        q = {"token": outcome.challenge_token, "locale": page.lang}
        if page.embed:
            q["embed"] = "1"
        raise web.HTTPSeeOther(f"{prefix}/{c.id}/authenticate?{urlencode(q)}")
    if outcome.kind == "processing":
        fresh = await checkout.load(c.id)
        return _panel(request, page, fresh, "panel_processing.html")
    if outcome.kind == "installments":
        return _panel(request, page, c, "panel_installments.html", hold_token=outcome.hold_token,
                      inst=taksit.table(outcome.installments, page.lang, page.t))
    return _panel(request, page, c, "panel_success.html", payment_id=outcome.payment_id,
                  receipt_url=outcome.receipt_url,
                  installments_text=taksit.line(outcome.installments, c.currency, page.lang, page.t))


async def _installments_error(request, page: Page, c, form: dict, message: str) -> web.Response:
    """The installment step again, with what was wrong (a count not offered)."""
    try:
        opts = await checkout.held_options(checkout_id=c.id, token=form.get("token"))
    except ValidationError as e:
        return common.form_error(request, page, c, form, e.message, e.param)
    if common.fetch_requested(request):
        return json_response({"error": {"message": message, "field": "installments"}, "csrf": new_csrf(c.id)},
                             status=400, headers=security_headers(page.settings["settings"]))
    return _panel(request, page, c, "panel_installments.html", status=400, hold_token=form.get("token"),
                  inst=taksit.table(opts.as_dict(), page.lang, page.t), error=message)


async def installments_fragment(request: web.Request) -> web.Response:
    """As the buyer types (the page's script): the installment table for the card's first digits,
    rendered in the page's language; an empty fragment when the card gets count 1 only."""
    page = Page(request)
    headers = security_headers(page.settings["settings"])
    try:
        opts = await checkout.options_for(checkout_id=request.match_info["id"], bin=request.query.get("bin"))
    except (NotFound, checkout.Gone):
        return json_response({"error": {"message": page.t.notfound_title, "field": None}}, status=404,
                             headers=headers)
    except ValidationError as e:
        return json_response({"error": {"message": e.message, "field": "number"}}, status=400, headers=headers)
    if opts is None or len(opts.options) < 2:
        return json_response({"html": "", "counts": [1]}, headers=headers)
    return json_response({"html": page.fragment("_installments_table.html",
                                                inst=taksit.table(opts.as_dict(), page.lang, page.t)),
                          "counts": opts.counts}, headers=headers)


def _panel(request, page: Page, c, panel: str, status: int = 200, **extra) -> web.Response:
    ctx = {**common.context(page, c, request), **extra}
    if common.fetch_requested(request):
        return json_response({"html": page.fragment(panel, **ctx)}, status=status,
                             headers=security_headers(page.settings["settings"]))
    return page.render("checkout.html", status=status, panel=panel, **ctx)


async def _challenge_page(request, page: Page, c, token: str | None) -> web.Response:
    try:
        ch = await checkout.get_challenge(checkout_id=c.id, token=token)
    except NotFound:
        return common.not_found(page)
    except DomainError:               # the challenge is over (the intent moved on)
        raise web.HTTPSeeOther(f"{request.app[SETTINGS]['pay_prefix']}/{c.id}/result"
                               + ("?embed=1" if page.embed else ""))
    return _panel(request, page, c, "panel_challenge.html", token=token, last4=ch.last4)


async def authenticate_page(request: web.Request) -> web.Response:
    cid = request.match_info["id"]
    c = await common.load(Page(request), cid)
    if isinstance(c, web.Response):
        return c
    return await _challenge_page(request, Page.of(request, c), c, request.query.get("token"))


async def authenticate_submit(request: web.Request) -> web.Response:
    admitted = await _admit_post(request)
    if isinstance(admitted, web.Response):
        return admitted
    cid, form, c, page, _ = admitted
    try:
        outcome = await checkout.complete_challenge(checkout_id=cid, token=form.get("token"),
                                                    outcome=form.get("outcome") or "", client_address=request.remote)
    except NotFound:
        return common.not_found(page)
    except checkout.Gone as g:
        return common.gone(page, g.reason)
    except RateLimited as e:
        return _too_many(page, e)
    except ValidationError as e:
        return page.message("forbidden", 400, page.t.error_title, e.message)
    return await _answer(request, page, c, outcome, form)


async def result_page(request: web.Request) -> web.Response:
    """After an intent's challenge: paid (the success panel), failed, or still in progress."""
    cid = request.match_info["id"]
    page = Page(request)
    try:
        c = await checkout.load(cid)
    except checkout.Gone as g:
        if g.reason == "paid":
            v = await receipts.view(cid)
            if v is not None:
                page = Page(request, explicit=v.locale, country=v.country)
                terms = await installments.terms_of(v.payment_id)
                return page.render("checkout.html", panel="panel_success.html", c=_Shown(v), merchant=v.merchant_name,
                                   amount_text=common.amount_text(v.amount, v.currency, page.lang), items=[],
                                   payment_id=v.payment_id, receipt_url=v.url,
                                   installments_text=taksit.line(terms, v.currency, page.lang, page.t))
        return common.gone(page, g.reason)
    except NotFound:
        return common.not_found(page)
    page = Page.of(request, c)
    if c.intent is not None and c.intent.status == "failed":
        return _panel(request, page, c, "panel_declined.html", status=402,
                      error=page.t.decline(c.intent.failure_code))
    if c.state == "processing":
        return _panel(request, page, c, "panel_processing.html")
    raise web.HTTPSeeOther(f"{request.app[SETTINGS]['pay_prefix']}/{cid}")


class _Shown:
    """The summary of a paid payment (the result page has no open checkout any more)."""

    def __init__(self, v: receipts.ReceiptView):
        self.description, self.kind, self.livemode, self.id = v.description, "intent", v.livemode, v.payment_id


async def receipt_page(request: web.Request) -> web.Response:
    """A receipt_url: the receipt if the token is this payment's (else the same 404 as an unknown
    id), in the merchant's or the buyer's language, dated in the merchant's time zone."""
    v = await receipts.view_by_token(request.match_info["id"], request.match_info["token"])
    if v is None:
        return common.not_found(Page(request))
    page = Page(request, explicit=v.locale, country=v.country)
    t = page.t
    if v.card_brand and v.card_last4:
        method = t.fmt("card_ending", brand=v.card_brand.title(), last4=v.card_last4)
    else:
        method = t.get(f"method_{v.method}", v.method)
    where = t.get(f"fawry_paid_{v.channel}", v.channel) if v.channel else None
    amount, paid = common.amount_text(v.amount, v.currency, page.lang), v.paid_text(page.lang)
    in_installments = taksit.line(await installments.terms_of(v.payment_id), v.currency, page.lang, t)
    if _wants_text(request):
        text = (f"{t.fmt('receipt_from', merchant=v.merchant_name)}\n{t.payment_id}: {v.payment_id}\n"
                f"{t.amount}: {amount}\n"
                + (f"{t.inst_title}: {in_installments}\n" if in_installments else "")
                + f"{t.receipt_date}: {paid}\n{t.receipt_method}: {method}\n"
                + (f"{t.fawry_reference}: {v.reference}\n" if v.reference else "")
                + (f"{t.receipt_paid_where}: {where}\n" if where else "")
                + (f"{t.get('eta_receipt', 'ETA e-receipt')}: {v.eta_qr}\n" if v.eta_qr else ""))
        return web.Response(text=text, content_type="text/plain", charset="utf-8",
                            headers=security_headers(page.settings["settings"]))
    return page.render("receipt.html", r=v, merchant=v.merchant_name, method_text=method, amount_text=amount,
                       paid_iso=v.paid_at.isoformat(), paid_text=paid, paid_where=where,
                       installments_text=in_installments, eta_qr_svg=_qr_svg(v.eta_qr) if v.eta_qr else None)


def _qr_svg(content: str) -> Markup:
    """An inline SVG QR code (an Egyptian e-receipt's: ETA's receipt URL), printed with the page."""
    return Markup(segno.make(content, error="m").svg_inline(scale=3, title="ETA e-receipt"))


def _wants_text(request: web.Request) -> bool:
    """An API client asking for text/plain (a browser always names text/html)."""
    accept = request.headers.get("Accept", "")
    return "text/plain" in accept and "text/html" not in accept


async def receipt_without_token(request: web.Request) -> web.Response:
    """`{id}/receipt`: the id alone is no capability (ids travel in webhooks, logs, e-mails)."""
    return common.not_found(Page(request))


async def qr_png(request: web.Request) -> web.Response:
    try:
        png = await checkout.qr_png(checkout_id=request.match_info["id"])
    except NotFound:
        raise web.HTTPNotFound()
    return web.Response(body=png, content_type="image/png", headers={"Cache-Control": "private, max-age=300",
                                                                     "X-Content-Type-Options": "nosniff"})


async def asset(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in ASSET_TYPES:
        raise web.HTTPNotFound()
    return web.Response(body=(ASSETS / name).read_bytes(), content_type=ASSET_TYPES[name], charset="utf-8",
                        headers={"Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff"})


def _browser_script(settings) -> bytes:
    src = (ASSETS / "qafila.js").read_text(encoding="utf-8")
    return (src.replace("__QAFILA_API_URL__", settings.public_url.rstrip("/"))
               .replace("__QAFILA_PAY_URL__", settings.pay_url.rstrip("/")).encode())


async def browser_script(request: web.Request) -> web.Response:
    return web.Response(body=request.app[SETTINGS]["script"], content_type="text/javascript", charset="utf-8",
                        headers={"Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*",
                                 "X-Content-Type-Options": "nosniff", "Cross-Origin-Resource-Policy": "cross-origin"})


async def unknown_page(request: web.Request) -> web.Response:
    return common.not_found(Page(request))


# ---------------------------------------------------------------- wiring

def install(app: web.Application, settings) -> str:
    """The checkout's routes; returns the pay prefix (app/checkout/__init__.py adds the sandbox
    pages under it, then `install_unknown`)."""
    pay = urlsplit(settings.pay_url).path.rstrip("/")
    js = urlsplit(settings.js_url).path.rstrip("/")
    app[SETTINGS] = {"pay_prefix": pay, "settings": settings, "script": _browser_script(settings)}
    r = app.router
    r.add_get(f"{js}/v1/qafila.js", browser_script, name="page:qafila.js")
    r.add_get(f"{pay}/assets/{{name}}", asset, name="page:assets")
    r.add_get(f"{pay}/{ID}", checkout_page, name="page:checkout")
    r.add_post(f"{pay}/{ID}", checkout_submit, name="page:checkout.submit")
    r.add_get(f"{pay}/{ID}/authenticate", authenticate_page, name="page:authenticate")
    r.add_post(f"{pay}/{ID}/authenticate", authenticate_submit, name="page:authenticate.submit")
    r.add_get(f"{pay}/{ID}/result", result_page, name="page:result")
    r.add_get(f"{pay}/{ID}/receipt/{TOKEN}", receipt_page, name="page:receipt")
    r.add_get(f"{pay}/{ID}/receipt", receipt_without_token, name="page:receipt.no-token")
    r.add_get(f"{pay}/{ID}/qr.png", qr_png, name="page:qr")
    r.add_get(f"{pay}/{ID}/installments", installments_fragment, name="page:installments")
    return pay


def install_unknown(router: web.UrlDispatcher, pay: str) -> None:
    """Last: under its own prefix, any other path is this service's 404 page."""
    if pay:
        router.add_get(f"{pay}/{{rest:.*}}", unknown_page, name="page:unknown")
