"""The sandbox pages of the redirect methods (KNET, BenefitPay): checkout pages under pay_url,
with the checkout's templates, labels and security headers.

    GET  {p}/{pay_id}/knet|benefit?token=   the scheme's page: bank list, card number, PIN, cancel
    POST {p}/{pay_id}/knet|benefit          pay or cancel -> 303 to the intent's return_url

404 for an unknown payment or token, 410 when the payment is finished. The card number and PIN
are checked in memory and never stored, logged or put into a URL."""
from __future__ import annotations

from urllib.parse import urlsplit

from aiohttp import web

from app.checkout import pages
from services.errors import NotFound, ValidationError
from services.payments import checkout, checkout_local, local_methods, methods, pricing

METHOD = r"{method:knet|benefit}"
PAY_ID = r"{id:pay_[0-9A-Za-z]{1,40}}"


def _headers(page: pages.Page, return_url: str | None) -> dict[str, str]:
    """The checkout's headers; the form may also lead (a 303) to the merchant's return_url origin."""
    headers = pages.security_headers(page.settings["settings"])
    if return_url:
        parts = urlsplit(return_url)
        origin = f"{parts.scheme}://{parts.netloc}"
        headers["Content-Security-Policy"] = headers["Content-Security-Policy"].replace(
            "form-action 'self'", f"form-action 'self' {origin}")
    return headers


def _render(page: pages.Page, view: local_methods.PageView, method: str, token: str, *, status: int = 200,
            error: str | None = None, error_field: str | None = None) -> web.Response:
    i = view.intent
    prefix = page.settings["pay_prefix"]
    html = pages._env.get_template("sandbox_bank.html").render({
        **page.base(), "merchant": view.merchant_name, "scheme": methods.get(method).names[page.lang],
        "method": method, "banks": local_methods.BANKS[method], "token": token,
        "amount_text": pricing.format_localized(i.amount, i.currency, page.lang),
        "action": f"{prefix}/{i.id}/{method}", "error": error, "error_field": error_field,
        "test": not i.livemode})
    return web.Response(text=html, status=status, content_type="text/html", charset="utf-8",
                        headers=_headers(page, i.return_url))


def _finished(page: pages.Page) -> web.Response:
    return page.message("gone", 410, page.t.gone_title, page.t.sandbox_finished)


async def bank_page(request: web.Request) -> web.Response:
    page = pages.Page(request)
    method, token = request.match_info["method"], request.query.get("token") or ""
    try:
        view = await local_methods.redirect_view(intent_id=request.match_info["id"], method=method, token=token)
    except NotFound:
        return pages._not_found(page)
    except local_methods.Gone:
        return _finished(page)
    return _render(pages.Page(request, explicit=view.intent.locale), view, method, token)


async def bank_submit(request: web.Request) -> web.Response:
    try:
        form = await pages._form(request)
    except ValidationError:
        return web.Response(status=415, text="Send the form as application/x-www-form-urlencoded")
    page = pages.Page(request)
    method, token = request.match_info["method"], form.get("token") or ""
    try:
        r = await local_methods.complete_redirect(
            intent_id=request.match_info["id"], method=method, token=token, action=form.get("action") or "pay",
            bank=form.get("bank"), card_number=form.get("card_number"), pin=form.get("pin"))
    except NotFound:
        return pages._not_found(page)
    except local_methods.Gone:
        return _finished(page)
    except ValidationError as e:
        view = await local_methods.redirect_view(intent_id=request.match_info["id"], method=method, token=token)
        page = pages.Page(request, explicit=view.intent.locale)
        return _render(page, view, method, token, status=400, error=e.message, error_field=e.param)
    raise web.HTTPSeeOther(r.redirect_url, headers=_headers(page, r.redirect_url))


def install(router: web.UrlDispatcher, pay: str) -> None:
    router.add_get(f"{pay}/{PAY_ID}/{METHOD}", bank_page, name="page:sandbox")
    router.add_post(f"{pay}/{PAY_ID}/{METHOD}", bank_submit, name="page:sandbox.submit")
    from app.checkout import bnpl_page          # the BNPL providers' sandbox pages
    bnpl_page.install(router, pay)


# ---------------------------------------------------------------- the checkout's local methods

def context(c) -> dict:
    """What the pay panel needs for the local methods: the choices of a link, the flows."""
    return {"choices": checkout_local.choices(c), "local_flows": checkout_local.LOCAL_FLOWS}


def _local_context(page: pages.Page, c, request: web.Request, **extra) -> dict:
    ctx = pages._context(page, c, request, **extra)
    i = c.intent
    na = (i.next_action or {}) if i is not None else {}
    ctx["na"] = na
    if na.get("expires_at"):
        ctx["expires_text"] = na["expires_at"].replace("T", " ")[:16] + " UTC"
    ctx["scheme"] = methods.get(c.method).names[page.lang] if c.method in methods.METHODS else ""
    return ctx


def local_panel(request: web.Request, page: pages.Page, c, *, status: int = 200, **extra) -> web.Response:
    """An intent waiting for its buyer: the Fawry reference, the STC Pay code form, or the link on
    to the scheme's page."""
    return page.render("checkout.html", status=status, panel="panel_local.html",
                       **_local_context(page, c, request, **extra))


async def local_submit(request: web.Request, page: pages.Page, c, form: dict, nonce: str) -> web.Response:
    """A plain form POST (with or without JavaScript): choose a local method on a link, or take the
    next step of a local-method intent. Answers with a redirect (POST, then GET)."""
    prefix = page.settings["pay_prefix"]
    key = f"checkout_{nonce}"
    try:
        if form.get("action") == "choose":
            intent_id = await checkout_local.choose(checkout_id=c.id, form=form, idempotency_key=key)
            raise web.HTTPSeeOther(f"{prefix}/{intent_id}?locale={page.lang}")
        step = await checkout_local.act(checkout_id=c.id, form=form, idempotency_key=key)
    except ValidationError as e:
        if c.state == "requires_action":
            return local_panel(request, page, c, status=400, error=e.message, error_field=e.param)
        return pages._form_error(request, page, c, form, e.message, e.param)
    if step.kind == "redirect":
        raise web.HTTPSeeOther(step.url)
    if step.kind == "succeeded":
        raise web.HTTPSeeOther(f"{prefix}/{c.id}/result?locale={page.lang}")
    if step.kind == "declined":
        message = page.t.decline(step.decline_code)
        if step.attempts_left:
            message += " " + page.t.fmt("attempts_left", n=step.attempts_left)
            fresh = await checkout.load(c.id)
            return local_panel(request, page, fresh, status=402, error=message, error_field="otp")
        fresh = await checkout.load(c.id)
        return pages._form_error(request, page, fresh, form, message, None, declined=True, status=402)
    raise web.HTTPSeeOther(f"{prefix}/{c.id}?locale={page.lang}")
