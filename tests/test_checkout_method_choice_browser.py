"""Issue 35 in Chromium (as tests/test_checkout_browser.py), with JavaScript on and off: a link's
choice of method is at the top of the page, one styled set of choices (the local method first
for KWD, BHD and EGP, card first for SAR), the form below follows the choice, and the visible
test-mode notice names the sandbox values of the method chosen, in Arabic, English and Turkish."""
from __future__ import annotations

import os
from urllib.parse import parse_qs, urlsplit

import pytest

from models.payments import Payment
from tests.test_checkout_browser import CHROMIUM, browser, live  # noqa: F401  (fixtures)
from tests.test_checkout_method_choice import AMOUNTS, NAMES, SECOND, TYPES, notice

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is missing")

_LOOK = """() => {
  const nav = document.querySelector('[data-testid="choices"]');
  const panel = document.querySelector('.method-panel:not([hidden])');
  const links = [...document.querySelectorAll('a.method-choice')];
  const button = panel.querySelector('button[type=submit]');
  const pay = document.querySelector('#pay');
  return {
    navAbovePanel: nav.getBoundingClientRect().bottom <= panel.getBoundingClientRect().top,
    firstField: document.querySelector('#panel a, #panel input:not([type=hidden]), #panel button').closest('nav, section').className,
    bullets: getComputedStyle(nav.querySelector('ul')).listStyleType,
    oneRow: new Set(links.map(a => Math.round(a.getBoundingClientRect().top))).size === 1,
    chosenBorder: getComputedStyle(document.querySelector('a.method-choice[aria-current]')).borderColor,
    otherBorder: getComputedStyle(links.find(a => !a.hasAttribute('aria-current'))).borderColor,
    button: getComputedStyle(button).backgroundColor,
    payButton: pay ? getComputedStyle(pay).backgroundColor : null,
  };
}"""


def _state(page) -> dict:
    """What the buyer sees: the choices (name, chosen), the visible form and notices."""
    links = page.locator("a.method-choice")
    return {"names": links.all_inner_texts(),
            "chosen": page.locator('a.method-choice[aria-current="true"]').get_attribute("data-method"),
            "panels": page.locator(".method-panel:visible").evaluate_all("els => els.map(e => e.dataset.method)"),
            "notices": page.locator("p.test-mode:visible").all_inner_texts()}


def choose_in_each_language(page, url: str, second: str) -> dict:
    out = {}
    for lang in ("ar", "en", "tr"):
        page.goto(f"{url}?locale={lang}")
        first = _state(page)
        look = page.evaluate(_LOOK)
        page.evaluate("window.sameDocument = true")
        page.click(f"#method-{second}")
        page.locator(f'[data-testid="panel-{second}"]').wait_for(state="visible")
        then = _state(page)
        then["same_document"] = page.evaluate("window.sameDocument === true")
        query = parse_qs(urlsplit(page.url).query)
        out[lang] = {"first": first, "look": look, "then": then, "query": query,
                     "dir": page.locator("html").get_attribute("dir"),
                     "language_link": page.locator('.languages a[lang="en"]').get_attribute("href")}
    return out


def switch_to_card_and_pay(page, url: str) -> dict:
    page.goto(url + "?locale=ar")
    before = _state(page)
    page.click("#method-card")
    page.locator('[data-testid="panel-card"]').wait_for(state="visible")
    page.fill("#number", "4242 4242 4242 4242")
    page.fill("#expiry", "12/30")
    page.fill("#cvc", "123")
    page.fill("#name", "Fatima Al-Sabah")
    page.click("#pay")
    page.wait_for_selector('[data-testid="success"]')
    return {"before": before, "pay_id": page.locator('[data-testid="payment-id"]').inner_text()}


@pytest.mark.parametrize("js", [True, False])
@pytest.mark.parametrize("currency", ["KWD", "BHD", "EGP", "SAR"])
async def test_the_choice_is_first_and_the_form_and_notice_follow_it(live, currency, js):  # noqa: F811
    status, link = await live.api("POST", "/api/payment-links", {"amount": AMOUNTS[currency], "currency": currency})
    assert status == 200, link
    first, second = TYPES[currency][0], SECOND[currency]
    out = await live.run(choose_in_each_language, link["url"], second, js=js)
    for lang in ("ar", "en", "tr"):
        o = out[lang]
        assert o["dir"] == ("rtl" if lang == "ar" else "ltr")
        assert o["first"] == {"names": NAMES[currency][lang], "chosen": first, "panels": [first],
                              "notices": [notice(first, lang, currency)]}, (lang, o["first"])
        look = o["look"]
        # At the top: above the chosen form, the first thing to fill in or press; one styled set
        # (no bullets, side by side, the chosen one marked), its button the page's own colour.
        assert look["navAbovePanel"] and look["firstField"] == "methods", look
        assert look["bullets"] == "none" and look["oneRow"] and look["chosenBorder"] != look["otherBorder"], look
        assert look["button"] == "rgb(27, 94, 87)", look
        # With JavaScript the form changes in place; without it the choice is a page of its own.
        assert o["then"] == {"names": NAMES[currency][lang], "chosen": second, "panels": [second],
                             "notices": [notice(second, lang, currency)], "same_document": js}, (lang, o["then"])
        assert o["query"]["method"] == [second] and o["language_link"] == f"?locale=en&method={second}"


@pytest.mark.parametrize("js", [True, False])
async def test_a_kwd_buyer_who_picks_card_pays_by_card(live, js):  # noqa: F811
    status, link = await live.api("POST", "/api/payment-links", {"amount": 12_500, "currency": "KWD"})
    out = await live.run(switch_to_card_and_pay, link["url"], js=js)
    assert out["before"]["chosen"] == "knet" and out["before"]["panels"] == ["knet"]
    p = await Payment.get(id=out["pay_id"])
    assert p.amount == 12_500 and p.currency == "KWD" and p.status == "succeeded"
