"""Installments (taksit) on the hosted checkout in a real headless browser (Debian's chromium,
as tests/test_checkout_browser.py, whose fixtures these are): the table appears as the buyer
types the card's first digits, in Turkish formatting, the pick is paid, and the success page
and receipt say `3 taksit x 415,00 TL`. Every request outside the service's origin is blocked
and none is attempted (it works offline)."""
from __future__ import annotations

from models.payments import Payment
from tests.test_checkout_browser import browser, live, pytestmark  # noqa: F401  (fixtures, skip without chromium)

BONUS, FOREIGN = "5549 6000 0000 0004", "4242 4242 4242 4242"


def pay_in_three(page, url: str) -> dict:
    page.goto(url + "?locale=tr")
    page.evaluate("window.__sameDocument = true")
    page.fill("#number", FOREIGN)
    page.wait_for_timeout(300)
    foreign_table = page.locator('[data-testid="installments"]').count()
    page.fill("#number", "")
    page.type("#number", BONUS[:7])          # "5549 60": the first 6 digits, typed
    page.wait_for_selector('[data-testid="installments"]')
    bank = page.locator('[data-testid="inst-bank"]').inner_text()
    rows = page.locator(".inst-table tbody tr").all_inner_texts()
    page.type("#number", BONUS[7:])
    page.check('input[name="installments"][value="3"]')
    page.fill("#expiry", "12/30")
    page.fill("#cvc", "123")
    page.fill("#name", "Ayşe Yılmaz")
    page.click("#pay")
    page.wait_for_selector('[data-testid="success"]')
    out = {"foreign_table": foreign_table, "bank": bank, "rows": rows,
           "same": page.evaluate("window.__sameDocument"),
           "line": page.locator('[data-testid="installments-line"]').inner_text(),
           "pay_id": page.locator('[data-testid="payment-id"]').inner_text()}
    page.click("#receipt-link")
    page.wait_for_selector('[data-testid="receipt"]')
    out["receipt"] = page.locator('[data-testid="receipt-installments"]').inner_text()   # the browser's en-US
    page.goto(page.url + "?locale=tr")
    out["receipt_tr"] = page.locator('[data-testid="receipt-installments"]').inner_text()
    return out


async def test_the_buyer_picks_3_installments_as_they_type(live):
    status, link = await live.api("POST", "/api/payment-links", {"amount": 120000, "currency": "TRY",
                                                                 "description": "Halı"})
    assert status == 200, link
    got = await live.run(pay_in_three, link["url"])
    assert got["foreign_table"] == 0                       # a foreign card: no table
    assert got["bank"] == "Garanti BBVA · Bonus"
    assert [[c.strip() for c in r.split("\t")] for r in got["rows"][:3]] == [["Tek çekim", "1.200,00 TL", "1.200,00 TL"],
                                                         ["2 taksit", "615,00 TL", "1.230,00 TL"],
                                                         ["3 taksit", "415,00 TL", "1.245,00 TL"]]
    assert got["same"] is True                             # paid without leaving the page
    assert got["line"] == "3 taksit x 415,00 TL" and got["receipt_tr"] == "3 taksit x 415,00 TL"
    assert got["receipt"] == "3 installments x 415.00 TRY"
    p = await Payment.get(id=got["pay_id"])
    assert p.installments["count"] == 3 and p.amount_captured == 124500
