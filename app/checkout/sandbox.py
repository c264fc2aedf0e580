"""The sandbox pages of the redirect methods (KNET, BenefitPay): checkout pages under pay_url,
with the checkout's templates, labels and security headers.

    GET  {p}/{pay_id}/knet|benefit?token=   the scheme's page: bank list, card number, PIN, cancel
    POST {p}/{pay_id}/knet|benefit          pay or cancel -> 303 to the intent's return_url

404 for an unknown payment or token, 410 when the payment is finished. The card number and PIN
are checked in memory and never stored, logged or put into a URL. The checkout's own pages do not
need this module (app/checkout/__init__.py installs both); it shares their pieces through
app/checkout/common.py."""
from __future__ import annotations

from aiohttp import web

from app.checkout import common
from services.payments import local_methods, methods, pricing

METHOD = r"{method:knet|benefit}"
PAY_ID = r"{id:pay_[0-9A-Za-z]{1,40}}"


def _render(page: common.Page, view: local_methods.PageView, method: str, token: str, *, status: int = 200,
            error: str | None = None, error_field: str | None = None) -> web.Response:
    i = view.intent
    prefix = page.settings["pay_prefix"]
    html = common.env.get_template("sandbox_bank.html").render({
        **page.base(), "merchant": view.merchant_name, "scheme": methods.get(method).names[page.lang],
        "method": method, "banks": local_methods.BANKS[method], "token": token,
        "amount_text": pricing.format_localized(i.amount, i.currency, page.lang),
        "action": f"{prefix}/{i.id}/{method}", "error": error, "error_field": error_field,
        "test": not i.livemode})
    return web.Response(text=html, status=status, content_type="text/html", charset="utf-8",
                        headers=common.return_headers(page, i.return_url))


def _finished(page: common.Page) -> web.Response:
    return page.message("gone", 410, page.t.gone_title, page.t.sandbox_finished)


async def _complete(intent_id: str, method: str, token: str, form: dict[str, str]):
    return await local_methods.complete_redirect(
        intent_id=intent_id, method=method, token=token, action=form.get("action") or "pay",
        bank=form.get("bank"), card_number=form.get("card_number"), pin=form.get("pin"))


bank_page, bank_submit = common.provider_pages(view_of=local_methods.redirect_view, complete=_complete,
                                               render=_render, finished=_finished, gone=(local_methods.Gone,))


def install(router: web.UrlDispatcher, pay: str) -> None:
    router.add_get(f"{pay}/{PAY_ID}/{METHOD}", bank_page, name="page:sandbox")
    router.add_post(f"{pay}/{PAY_ID}/{METHOD}", bank_submit, name="page:sandbox.submit")
    from app.checkout import bnpl_page          # the BNPL providers' sandbox pages
    bnpl_page.install(router, pay)
    from app.checkout import regional_page      # NAPS, OmanNet, Egypt's mobile wallets
    regional_page.install(router, pay)
