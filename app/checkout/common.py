"""The page pieces every checkout module shares (the checkout pages, the local methods' steps,
the sandbox bank pages): templates, security headers, the CSRF token, the `Page` of a request, the
form reader, the 404/410 pages and what the checkout's templates see. It imports no other page
module of the package, so none of them import each other through it."""
from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
from aiohttp import web

from app.checkout import i18n, method_choice
from rest_compat.routing import json_response
from services.errors import NotFound, ValidationError
from services.infra.runtime import runtime
from services.payments import checkout, pricing

_HERE = Path(__file__).resolve().parent.parent
TEMPLATES = _HERE / "templates" / "checkout"
CSRF_MAX_AGE = 2 * 3600
LANGUAGE_NAMES = (("en", "English"), ("tr", "Türkçe"), ("ar", "العربية"))
SETTINGS = web.AppKey("checkout_settings", dict)

env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                         undefined=jinja2.ChainableUndefined, trim_blocks=False)


# ---------------------------------------------------------------- security

def _frame_ancestors(settings, embed: bool) -> str:
    if not embed:
        return "'none'"
    origins = [o for o in settings.cors_origins if o != "*"]
    if origins:
        return " ".join(origins)
    return "'none'" if settings.env == "production" else "*"


def _api_origin(settings) -> str:
    """The API's origin when the pages are served on another one: a request to pay's QR image is
    the intent's public `/v1/payments/{id}/qr.png`."""
    api, pay = urlsplit(settings.public_url), urlsplit(settings.pay_url)
    if (api.scheme, api.netloc) == (pay.scheme, pay.netloc) or not api.netloc:
        return ""
    return f" {api.scheme}://{api.netloc}"


def security_headers(settings, *, embed: bool = False) -> dict[str, str]:
    ancestors = _frame_ancestors(settings, embed)
    headers = {
        "Content-Security-Policy": ("default-src 'self'; script-src 'self'; style-src 'self'; "
                                    f"img-src 'self' data:{_api_origin(settings)}; "
                                    "connect-src 'self'; form-action 'self'; base-uri 'none'; object-src 'none'; "
                                    f"frame-ancestors {ancestors}"),
        "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store", "X-Robots-Tag": "noindex",
    }
    if ancestors == "'none'":
        headers["X-Frame-Options"] = "DENY"
    return headers


def _sign(*parts: str) -> str:
    key = runtime().config.secret_key.encode()
    return hmac.new(key, "|".join(("csrf", *parts)).encode(), hashlib.sha256).hexdigest()[:32]


def new_csrf(checkout_id: str) -> str:
    nonce = secrets.token_urlsafe(16)
    issued = str(int(time.time()))
    return f"{nonce}.{issued}.{_sign(checkout_id, nonce, issued)}"


def check_csrf(checkout_id: str, token: str | None) -> str:
    """The token's nonce, if the token was made for this page by this service and is fresh."""
    parts = (token or "").split(".")
    if len(parts) != 3 or not parts[1].isdigit():
        raise CsrfRefused()
    nonce, issued, sig = parts
    if not hmac.compare_digest(sig.encode(), _sign(checkout_id, nonce, issued).encode()):
        raise CsrfRefused()
    if not 0 <= time.time() - int(issued) <= CSRF_MAX_AGE:
        raise CsrfRefused()
    return nonce


class CsrfRefused(Exception):
    pass


# ---------------------------------------------------------------- rendering

class Page:
    """What every template of one request sees."""

    def __init__(self, request: web.Request, *, explicit: str | None = None, country: str | None = None):
        """`explicit`: the merchant's choice (the intent's, link's or invoice's locale), which wins;
        `country`: the merchant's, whose default language applies when nobody names one (a page
        with no merchant, e.g. 404: English)."""
        self.request = request
        self.settings = request.app[SETTINGS]
        self.embed = request.query.get("embed") == "1"
        self.fixed = explicit in i18n.LOCALES
        form_locale = None
        if request.method == "POST":
            form_locale = request.get("checkout_form", {}).get("locale")
        self.lang = i18n.pick_locale(explicit=explicit, query=request.query.get("locale") or form_locale,
                                     accept_language=request.headers.get("Accept-Language"), country=country)
        self.t = i18n.labels(self.lang)

    @classmethod
    def of(cls, request: web.Request, c: checkout.Checkout) -> Page:
        return cls(request, explicit=c.locale, country=c.merchant_country)

    def base(self) -> dict:
        prefix = self.settings["pay_prefix"]
        return {"lang": self.lang, "dir": "rtl" if self.lang in i18n.RTL else "ltr", "t": self.t,
                "embed": self.embed, "asset": lambda name: f"{prefix}/assets/{name}",
                "languages": () if self.embed or self.fixed else LANGUAGE_NAMES, "merchant": None}

    def render(self, template: str, status: int = 200, **ctx) -> web.Response:
        html = env.get_template(template).render({**self.base(), **ctx})
        return web.Response(text=html, status=status, content_type="text/html", charset="utf-8",
                            headers=security_headers(self.settings["settings"], embed=self.embed))

    def fragment(self, template: str, **ctx) -> str:
        return env.get_template(template).render({**self.base(), **ctx})

    def message(self, kind: str, status: int, heading: str, *lines: str) -> web.Response:
        return self.render("message.html", status=status, kind=kind, heading=heading, lines=lines)


def fetch_requested(request: web.Request) -> bool:
    """The page's script posted the form in the background (it wants JSON)."""
    return request.headers.get("X-Qafila-Fetch") == "1"


def amount_text(amount: int, currency: str, lang: str) -> str:
    return pricing.format_localized(amount, currency, lang)


def _paths(request: web.Request, cid: str) -> dict[str, str]:
    prefix = request.app[SETTINGS]["pay_prefix"]
    embed = "?embed=1" if request.query.get("embed") == "1" else ""
    return {"action": f"{prefix}/{cid}{embed}", "page_url": f"{prefix}/{cid}",
            "challenge_action": f"{prefix}/{cid}/authenticate{embed}", "qr_url": f"{prefix}/{cid}/qr.png",
            "installments_url": f"{prefix}/{cid}/installments"}


def _lock_remaining(c: checkout.Checkout) -> str:
    if c.method != "crypto" or not c.intent or not c.intent.crypto:
        return ""
    until = datetime.fromisoformat(c.intent.crypto["rate_locked_until"].replace("Z", "+00:00"))
    left = max(0, int((until - runtime().clock.now()).total_seconds()))
    return f"{left // 60}:{left % 60:02d}"


def context(page: Page, c: checkout.Checkout, request: web.Request, *, chosen: str | None = None, **extra) -> dict:
    """What the checkout's templates see; `chosen`: the method the buyer picked on a link (the
    form posted for it, else `?method=`), whose form is shown (app/checkout/method_choice.py)."""
    lang = page.lang
    items = [{"name": i["name"], "quantity": i["quantity"],
              "total": amount_text(i["amount"] * i["quantity"], c.currency, lang)} for i in c.items]
    mc = method_choice.of(c, page.t, lang, chosen=chosen or request.query.get("method"))
    return {"c": c, "merchant": c.merchant_name, "amount_text": amount_text(c.amount, c.currency, lang),
            "items": items, "csrf": new_csrf(c.id), "form": {}, "error": None, "error_field": None,
            "declined": False, "lock_remaining": _lock_remaining(c), "mc": mc, "local_flows": checkout.LOCAL_FLOWS,
            "lang_query": f"&method={mc.chosen.type}" if mc.choices else "", **_paths(request, c.id), **extra}


def gone(page: Page, reason: str) -> web.Response:
    t = page.t
    return page.message("gone", 410, t.gone_title, t.get(f"gone_{reason}", ""), t.gone_hint)


def not_found(page: Page) -> web.Response:
    return page.message("notfound", 404, page.t.notfound_title, page.t.notfound_body)


async def load(page: Page, cid: str) -> checkout.Checkout | web.Response:
    try:
        return await checkout.load(cid)
    except checkout.Gone as g:
        return gone(page, g.reason)
    except NotFound:
        return not_found(page)


async def read_form(request: web.Request) -> dict[str, str]:
    out: dict[str, str] = {}
    if request.content_type not in ("application/x-www-form-urlencoded", "multipart/form-data"):
        raise ValidationError("Send the form as application/x-www-form-urlencoded", param="Content-Type")
    for k, v in (await request.post()).items():
        if isinstance(v, str) and "\x00" not in v and k not in out:
            out[k] = v[:500]
    request["checkout_form"] = out
    return out


# ---------------------------------------------------------------- a provider's sandbox page

def return_headers(page: Page, return_url: str | None) -> dict[str, str]:
    """The checkout's headers for a sandbox provider's page, whose form may also lead (a 303) to
    the merchant's return_url origin."""
    headers = security_headers(page.settings["settings"])
    if return_url:
        parts = urlsplit(return_url)
        headers["Content-Security-Policy"] = headers["Content-Security-Policy"].replace(
            "form-action 'self'", f"form-action 'self' {parts.scheme}://{parts.netloc}")
    return headers


def provider_pages(*, view_of: Callable[..., Awaitable[Any]], complete: Callable[..., Awaitable[Any]],
                   render: Callable[..., web.Response], finished: Callable[[Page], web.Response],
                   gone: tuple[type[Exception], ...]) -> tuple[Callable, Callable]:
    """The GET and POST handlers of a sandbox provider's page (a redirect method's bank page, a
    BNPL provider's page) under `{pay}/{id}/{method}`: `view_of(intent_id=, method=, token=)`
    reads what the page shows, `complete(intent_id, method, token, form)` acts on the buyer's
    answer (its result has `redirect_url`), `render(page, view, method, token, status=, error=,
    error_field=)` draws it. 404 for an unknown payment or token, 410 (`finished`) once one of
    `gone` is raised, the page again with a 400 for a refused answer, else a 303 to where the
    answer leads."""
    async def page_handler(request: web.Request) -> web.Response:
        page = Page(request)
        method, token = request.match_info["method"], request.query.get("token") or ""
        try:
            view = await view_of(intent_id=request.match_info["id"], method=method, token=token)
        except NotFound:
            return not_found(page)
        except gone:
            return finished(page)
        return render(Page(request, explicit=view.intent.locale), view, method, token)

    async def submit_handler(request: web.Request) -> web.Response:
        try:
            form = await read_form(request)
        except ValidationError:
            return web.Response(status=415, text="Send the form as application/x-www-form-urlencoded")
        page = Page(request)
        method, token = request.match_info["method"], form.get("token") or ""
        try:
            r = await complete(request.match_info["id"], method, token, form)
        except NotFound:
            return not_found(page)
        except gone:
            return finished(page)
        except ValidationError as e:
            view = await view_of(intent_id=request.match_info["id"], method=method, token=token)
            return render(Page(request, explicit=view.intent.locale), view, method, token, status=400,
                          error=e.message, error_field=e.param)
        raise web.HTTPSeeOther(r.redirect_url, headers=return_headers(page, r.redirect_url))

    return page_handler, submit_handler


def form_error(request, page: Page, c, form, message: str, field: str | None, *, declined: bool = False,
               status: int = 400) -> web.Response:
    """The pay panel again with what was wrong; the method the form was for stays chosen."""
    if fetch_requested(request):
        return json_response({"error": {"message": message, "field": field}, "declined": declined,
                              "csrf": new_csrf(c.id)}, status=status,
                             headers=security_headers(page.settings["settings"]))
    keep = {k: form.get(k, "") for k in ("expiry", "name", "email", "phone", "alias")}
    chosen = form.get("method") if form.get("action") == "choose" else method_choice.CARD
    return page.render("checkout.html", status=status, panel="panel_pay.html",
                       **{**context(page, c, request, chosen=chosen), "form": keep, "error": message,
                          "error_field": field, "declined": declined})
