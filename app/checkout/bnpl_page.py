"""The BNPL providers' sandbox pages (bnpl_split4, bnpl_split3): checkout pages under pay_url,
as KNET's is, with the checkout's base template and security headers, and the schedule in
Arabic, English or Turkish.

    GET  {p}/{pay_id}/bnpl_split4|bnpl_split3?token=   the schedule; approve, decline, cancel
    POST {p}/{pay_id}/bnpl_split4|bnpl_split3          the buyer's answer -> 303 to return_url

404 for an unknown payment or token, 410 when the payment is finished."""
from __future__ import annotations

from datetime import date

from aiohttp import web

from app.checkout import common, i18n
from services.errors import Conflict
from services.payments import bnpl, methods, pricing

METHOD = r"{method:bnpl_split4|bnpl_split3}"
PAY_ID = r"{id:pay_[0-9A-Za-z]{1,40}}"

LABELS = {
    "en": {"sandbox": "Sandbox: no money moves. Phone +966500000003 is declined when approving.",
           "pay_to": "{amount} to {merchant}, in {n} parts", "due": "Due", "amount": "Amount",
           "today": "Today", "approve": "Approve and pay the first part", "decline": "Decline",
           "cancel": "Cancel and go back", "finished": "This payment is over.", "part": "Part {k}"},
    "ar": {"sandbox": "بيئة تجريبية: لا تنتقل أموال. الرقم ‎+966500000003 يُرفض عند الموافقة.",
           "pay_to": "{amount} إلى {merchant} على {n} دفعات", "due": "تاريخ الاستحقاق", "amount": "المبلغ",
           "today": "اليوم", "approve": "موافقة ودفع الدفعة الأولى", "decline": "رفض",
           "cancel": "إلغاء والعودة", "finished": "انتهت هذه الدفعة.", "part": "الدفعة {k}"},
    "tr": {"sandbox": "Test ortamı: para hareketi olmaz. +966500000003 numarası onayda reddedilir.",
           "pay_to": "{merchant} için {amount}, {n} taksitte", "due": "Vade", "amount": "Tutar",
           "today": "Bugün", "approve": "Onayla ve ilk taksiti öde", "decline": "Reddet",
           "cancel": "İptal et ve geri dön", "finished": "Bu ödeme sona erdi.", "part": "{k}. taksit"},
}
MONTHS = {
    "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December"),
    "ar": ("يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر",
           "ديسمبر"),
    "tr": ("Ocak", "Şubat", "Mart", "Nisan", "Mayıs", "Haziran", "Temmuz", "Ağustos", "Eylül", "Ekim", "Kasım",
           "Aralık"),
}


def _lang(lang: str) -> str:
    return lang if lang in LABELS else "en"


def date_text(iso_date: str, lang: str) -> str:
    """A due date for people: 5 December 2026, 5 Aralık 2026, ٥ ديسمبر ٢٠٢٦."""
    d = date.fromisoformat(iso_date)
    text = f"{d.day} {MONTHS[_lang(lang)][d.month - 1]} {d.year}"
    return text.translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")) if lang == "ar" else text


def schedule_rows(schedule: list[dict], currency: str, lang: str) -> list[dict]:
    lab = LABELS[_lang(lang)]
    return [{"part": lab["part"].format(k=k + 1), "due": lab["today"] if k == 0 else date_text(p["due_date"], lang),
             "due_date": p["due_date"], "amount": pricing.format_localized(p["amount"], currency, lang)}
            for k, p in enumerate(schedule)]


def _render(page: common.Page, view: bnpl.PageView, method: str, token: str, *, status: int = 200,
            error: str | None = None, error_field: str | None = None) -> web.Response:
    i = view.intent
    lang = _lang(page.lang)
    lab = LABELS[lang]
    html = common.env.get_template("sandbox_bnpl.html").render({
        **page.base(), "merchant": view.merchant_name, "provider": methods.get(method).names[lang],
        "method": method, "token": token, "lab": lab, "test": not i.livemode, "error": error,
        "summary": lab["pay_to"].format(amount=pricing.format_localized(i.amount, i.currency, lang),
                                        merchant=view.merchant_name, n=len(view.schedule)),
        "rows": schedule_rows(view.schedule, i.currency, lang),
        "action": f"{page.settings['pay_prefix']}/{i.id}/{method}"})
    return web.Response(text=html, status=status, content_type="text/html", charset="utf-8",
                        headers=common.return_headers(page, i.return_url))


def _finished(page: common.Page) -> web.Response:
    return page.message("gone", 410, page.t.gone_title, LABELS[_lang(page.lang)]["finished"])


async def _complete(intent_id: str, method: str, token: str, form: dict[str, str]):
    return await bnpl.complete_page(intent_id=intent_id, method=method, token=token, action=form.get("action"))


# finished, or (Conflict) another answer on this page got there first
provider_page, provider_submit = common.provider_pages(view_of=bnpl.page_view, complete=_complete, render=_render,
                                                       finished=_finished, gone=(bnpl.Gone, Conflict))


# The hosted checkout's labels for BNPL (added to the checkout's own at start, kept here).
CHECKOUT_LABELS = {
    "en": {"bnpl_in_parts": "Pay in {n} interest-free parts:", "bnpl_buyer": "Your details and delivery address",
           "bnpl_name": "Full name", "bnpl_line1": "Address", "bnpl_city": "City", "bnpl_country": "Country (SA, AE…)",
           "bnpl_postal_code": "Postal code",
           "bnpl_approved": "Approved. The merchant is paid now; you pay the parts as scheduled."},
    "ar": {"bnpl_in_parts": "ادفع على {n} دفعات بدون فوائد:", "bnpl_buyer": "بياناتك وعنوان التوصيل",
           "bnpl_name": "الاسم الكامل", "bnpl_line1": "العنوان", "bnpl_city": "المدينة",
           "bnpl_country": "الدولة (SA، AE…)", "bnpl_postal_code": "الرمز البريدي",
           "bnpl_approved": "تمت الموافقة. يُدفع للتاجر الآن وتدفع أنت الدفعات في مواعيدها."},
    "tr": {"bnpl_in_parts": "{n} faizsiz taksitte öde:", "bnpl_buyer": "Bilgileriniz ve teslimat adresi",
           "bnpl_name": "Ad soyad", "bnpl_line1": "Adres", "bnpl_city": "Şehir", "bnpl_country": "Ülke (SA, AE…)",
           "bnpl_postal_code": "Posta kodu",
           "bnpl_approved": "Onaylandı. Satıcıya şimdi ödenir; siz taksitleri vadesinde ödersiniz."},
}


def checkout_rows(c, lang: str, method: str | None = None) -> list[dict]:
    """The schedule rows of a BNPL intent's checkout, or of a link paid with `method` from today
    (templates: `bnpl_rows(c, lang[, method])`)."""
    if c.intent is not None:
        return schedule_rows(bnpl.preview(c.intent, c.merchant_country), c.currency, lang)
    if method is None:
        return []
    return schedule_rows(bnpl.link_preview(method, c.amount, c.merchant_country), c.currency, lang)


def install_labels() -> None:
    for lang, labels in i18n.STRINGS.items():
        for t in bnpl.TYPES:
            labels.setdefault(f"method_{t}", methods.get(t).names.get(lang, methods.get(t).names["en"]))
        for k, v in CHECKOUT_LABELS.get(lang, CHECKOUT_LABELS["en"]).items():
            labels.setdefault(k, v)
    common.env.globals["bnpl_rows"] = checkout_rows


def install(router: web.UrlDispatcher, pay: str) -> None:
    install_labels()
    router.add_get(f"{pay}/{PAY_ID}/{METHOD}", provider_page, name="page:bnpl")
    router.add_post(f"{pay}/{PAY_ID}/{METHOD}", provider_submit, name="page:bnpl.submit")
