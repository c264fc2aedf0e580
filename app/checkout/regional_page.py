"""The sandbox pages of the regional redirect rails (services.payments.regional_redirects):
NAPS/QPay, OmanNet and Egypt's mobile wallets, checkout pages under pay_url as KNET's is, with
the checkout's base template, security headers and labels in Arabic, English or Turkish.

    GET  {p}/{pay_id}/naps|omannet|eg_wallet?token=   the page: NAPS bank, card, PIN; OmanNet card
                                                      and expiry, then the one-time code; the
                                                      wallet's PIN and SMS code; cancel
    POST {p}/{pay_id}/naps|omannet|eg_wallet          the answer -> 303 to return_url (OmanNet's
                                                      card step: 303 to its code step)

404 for an unknown payment or token, 410 when the payment is finished. Numbers, PINs and codes
are checked in memory and never stored, logged or put into a URL."""
from __future__ import annotations

from aiohttp import web

from app.checkout import common, i18n
from services.errors import Conflict
from services.payments import local_methods, methods, pricing, regional_redirects

METHOD = r"{method:naps|omannet|eg_wallet}"
PAY_ID = r"{id:pay_[0-9A-Za-z]{1,40}}"

LABELS = {
    "en": {"wallet_pin": "Wallet PIN", "sms_code": "SMS code", "card_expiry": "Expiry (MM/YY)",
           "otp_code": "One-time code", "wallet_for": "Wallet {phone}",
           "otp_sent": "Your bank sent a one-time code to your phone.",
           "values_naps": "Sandbox: card 8888 8800 0000 0001 with PIN 1234 approves; 8888 8800 0000 0002 is declined.",
           "values_omannet": "Sandbox: card 8888 8800 0000 0001 (any future expiry), then code 123456 approves; "
                             "8888 8800 0000 0002 or another code is declined.",
           "values_eg_wallet": "Sandbox: wallet 01010101010 with PIN 123456 and SMS code 123456 pays; "
                               "three wrong answers fail the payment."},
    "ar": {"wallet_pin": "الرقم السري للمحفظة", "sms_code": "رمز الرسالة النصية", "card_expiry": "تاريخ الانتهاء (شهر/سنة)",
           "otp_code": "رمز التحقق لمرة واحدة", "wallet_for": "المحفظة {phone}",
           "otp_sent": "أرسل مصرفك رمز تحقق إلى هاتفك.",
           "values_naps": "تجريبي: البطاقة 8888 8800 0000 0001 مع الرقم السري 1234 مقبولة؛ 8888 8800 0000 0002 مرفوضة.",
           "values_omannet": "تجريبي: البطاقة 8888 8800 0000 0001 (أي تاريخ انتهاء مستقبلي) ثم الرمز 123456 مقبولة؛ "
                             "البطاقة 8888 8800 0000 0002 أو رمز آخر مرفوض.",
           "values_eg_wallet": "تجريبي: المحفظة 01010101010 مع الرقم السري 123456 ورمز الرسالة 123456 تدفع؛ "
                               "ثلاث إجابات خاطئة تُفشل الدفعة."},
    "tr": {"wallet_pin": "Cüzdan PIN'i", "sms_code": "SMS kodu", "card_expiry": "Son kullanma (AA/YY)",
           "otp_code": "Tek kullanımlık kod", "wallet_for": "Cüzdan {phone}",
           "otp_sent": "Bankanız telefonunuza tek kullanımlık bir kod gönderdi.",
           "values_naps": "Test: 8888 8800 0000 0001 kartı ve 1234 PIN onaylanır; 8888 8800 0000 0002 reddedilir.",
           "values_omannet": "Test: 8888 8800 0000 0001 kartı (ileri bir son kullanma tarihi), ardından 123456 kodu "
                             "onaylanır; 8888 8800 0000 0002 ya da başka bir kod reddedilir.",
           "values_eg_wallet": "Test: 01010101010 cüzdanı, 123456 PIN ve 123456 SMS kodu ile öder; üç yanlış yanıt "
                               "ödemeyi başarısız kılar."},
}


def _lang(lang: str) -> str:
    return lang if lang in LABELS else "en"


def _render(page: common.Page, view: local_methods.PageView, method: str, token: str, *, status: int = 200,
            error: str | None = None, error_field: str | None = None) -> web.Response:
    i = view.intent
    d = i.method_details or {}
    phone = d.get("phone")
    html = common.env.get_template("sandbox_regional.html").render({
        **page.base(), "merchant": view.merchant_name, "scheme": methods.get(method).names[page.lang],
        "method": method, "banks": regional_redirects.BANKS.get(method, ()), "token": token,
        "step": d.get("step") or "card", "attempts_left": d.get("attempts_left"),
        "phone_hint": local_methods.phone_hint(phone) if phone else "", "lab": LABELS[_lang(page.lang)],
        "amount_text": pricing.format_localized(i.amount, i.currency, page.lang),
        "action": f"{page.settings['pay_prefix']}/{i.id}/{method}", "error": error, "error_field": error_field,
        "test": not i.livemode})
    return web.Response(text=html, status=status, content_type="text/html", charset="utf-8",
                        headers=common.return_headers(page, i.return_url))


def _finished(page: common.Page) -> web.Response:
    return page.message("gone", 410, page.t.gone_title, page.t.sandbox_finished)


async def _complete(intent_id: str, method: str, token: str, form: dict[str, str]):
    return await local_methods.complete_regional(intent_id=intent_id, method=method, token=token, form=form)


# finished, or (Conflict) another answer on this page got there first
regional_page, regional_submit = common.provider_pages(
    view_of=local_methods.redirect_view, complete=_complete, render=_render, finished=_finished,
    gone=(local_methods.Gone, Conflict))


CHECKOUT_LABELS = {"en": {"eg_wallet_phone": "Wallet mobile number (010, 011, 012, 015…)"},
                   "ar": {"eg_wallet_phone": "رقم هاتف المحفظة (010، 011، 012، 015…)"},
                   "tr": {"eg_wallet_phone": "Cüzdan cep telefonu (010, 011, 012, 015…)"}}


def install(router: web.UrlDispatcher, pay: str) -> None:
    for lang, labels in i18n.STRINGS.items():      # the checkout's wallet phone label (method choice)
        for k, v in CHECKOUT_LABELS.get(lang, CHECKOUT_LABELS["en"]).items():
            labels.setdefault(k, v)
    router.add_get(f"{pay}/{PAY_ID}/{METHOD}", regional_page, name="page:regional")
    router.add_post(f"{pay}/{PAY_ID}/{METHOD}", regional_submit, name="page:regional.submit")
