"""The hosted checkout's local methods (KNET, BenefitPay, Fawry, STC Pay, SADAD, CliQ, Aani, ...): a
link paid with one of them, and the buyer's next step on such an intent (the link on to the scheme's
page, the Fawry or SADAD reference, the STC Pay code form, the CliQ or Aani request to pay). The schemes' own sandbox pages are app/checkout/sandbox.py."""
from __future__ import annotations

from aiohttp import web

from app.checkout import common
from services.errors import ValidationError
from services.payments import checkout, checkout_local, methods


def _local_context(page: common.Page, c, request: web.Request, **extra) -> dict:
    ctx = common.context(page, c, request, **extra)
    i = c.intent
    na = (i.next_action or {}) if i is not None else {}
    ctx["na"] = na
    if na.get("expires_at"):
        ctx["expires_text"] = na["expires_at"].replace("T", " ")[:16] + " UTC"
    ctx["scheme"] = methods.get(c.method).names[page.lang] if c.method in methods.METHODS else ""
    # A bill or a request to pay is paid elsewhere (the bank, the bank's app): the buyer checks the
    # result on the result page (paid: the success panel; still waiting: this panel again).
    ctx["result_path"] = f"{page.settings['pay_prefix']}/{c.id}/result?locale={page.lang}"
    return ctx


def local_panel(request: web.Request, page: common.Page, c, *, status: int = 200, **extra) -> web.Response:
    """An intent waiting for its buyer: the Fawry reference, the STC Pay code form, or the link on
    to the scheme's page."""
    return page.render("checkout.html", status=status, panel="panel_local.html",
                       **_local_context(page, c, request, **extra))


async def local_submit(request: web.Request, page: common.Page, c, form: dict, nonce: str) -> web.Response:
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
        return common.form_error(request, page, c, form, e.message, e.param)
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
        return common.form_error(request, page, fresh, form, message, None, declined=True, status=402)
    raise web.HTTPSeeOther(f"{prefix}/{c.id}?locale={page.lang}")
