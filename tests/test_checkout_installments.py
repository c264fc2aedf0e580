"""Installments (taksit) on the hosted checkout over plain HTTP: the table the page's script
asks for as the buyer types, the step after the card form without a script, the success page
and the receipt (`3 taksit x 415,00 TL`), in Turkish, English and Arabic."""
from __future__ import annotations

import re

import pytest

from models.payments import Payment
from tests.checkout_fixtures import card_form, csrf_of, make_link, open_page, path_of, submit
from tests.intents_fixtures import create
from tests.payments_fixtures import no_exploration  # noqa: F401

BONUS, AXESS, DEBIT, FOREIGN = "5549 6000 0000 0004", "4355 0800 0000 0005", "9792 0000 0000 0003", "4242424242424242"


async def fragment(client, path, bin_, locale="tr"):
    r = await client.get(f"{path}/installments", params={"bin": bin_, "locale": locale})
    return r.status, await r.json()


def rows(html: str) -> list[tuple[str, str, str]]:
    """(count, each, total) of every row of the installment table."""
    out = []
    for m in re.finditer(r'<tr data-count="(\d+)">(.*?)</tr>', html, re.S):
        cells = re.findall(r'<td dir="ltr">(.*?)</td>', m.group(2), re.S)
        out.append((m.group(1), re.sub(r"<br>.*", "", cells[0], flags=re.S).strip(), cells[1].strip()))
    return out


async def test_the_table_for_the_first_digits_in_turkish_formatting(client, merchant):
    link = await make_link(client, merchant.sk, amount=123456)
    path = path_of(link["url"])
    status, body = await fragment(client, path, "554960")
    assert status == 200 and body["counts"] == [1, 2, 3, 6, 9, 12]
    html = body["html"]
    assert "Taksit seçenekleri" in html and "Garanti BBVA · Bonus" in html and "Tek çekim" in html
    got = rows(html)
    assert got[0] == ("1", "1.234,56 TL", "1.234,56 TL")
    assert got[2] == ("3", "426,95 TL", "1.280,86 TL")          # 1,234.56 + 3.75% (46.30) = 1,280.86
    assert "ilk taksit 426,96 TL" in html                        # the first carries the remainder
    _, en = await fragment(client, path, "55496000", locale="en")
    assert "Pay in installments" in en["html"] and "1,280.86 TRY" in en["html"] and "Single payment" in en["html"]
    _, ar = await fragment(client, path, "554960", locale="ar")
    assert "الدفع بالتقسيط" in ar["html"] and "دفعة واحدة" in ar["html"] and "ل.ت" in ar["html"]
    for bin_ in ("979200", "424242"):                       # debit and foreign: nothing to pick
        status, body = await fragment(client, path, bin_)
        assert status == 200 and body == {"html": "", "counts": [1]}
    status, body = await fragment(client, path, "55")
    assert status == 400
    status, body = await fragment(client, "/lnk_doesnotexist", "554960")
    assert status == 404


async def test_a_sar_link_has_no_table(client, merchant):
    link = await make_link(client, merchant.sk, amount=15000, currency="SAR")
    path = path_of(link["url"])
    _, html, _ = await open_page(client, path)
    assert 'id="installments"' not in html
    status, body = await fragment(client, path, "554960")
    assert body == {"html": "", "counts": [1]}


async def test_without_javascript_the_step_after_the_card_form_then_success_and_receipt(client, merchant):
    link = await make_link(client, merchant.sk, amount=124500)
    path = path_of(link["url"])
    _, page, _ = await open_page(client, path + "?locale=tr")
    assert 'id="installments"' in page
    status, html, _ = await submit(client, path + "?locale=tr", card_form(BONUS, locale="tr"))
    assert status == 200 and "Taksit sayısını seçin" in html, html
    assert "5549600000000004" not in html and "5549 6000" not in html
    assert await Payment.filter(payment_link=link["id"]).count() == 0          # nothing charged yet
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    # A count the plan does not offer: the step again, naming the valid counts.
    r = await client.post(path, data={"csrf": csrf_of(html), "action": "installments", "token": token,
                                      "installments": "4", "locale": "tr"})
    again = await r.text()
    assert r.status == 400 and "installments must be one of 1, 2, 3, 6, 9, 12" in again and "Taksit sayısını seçin" in again
    r = await client.post(path, data={"csrf": csrf_of(again), "action": "installments", "token": token,
                                      "installments": "3", "locale": "tr"})
    done = await r.text()
    assert r.status == 200 and "3 taksit x 430,56 TL (ilk taksit 430,57 TL)" in done, done
    pay_id = re.search(r'data-testid="payment-id">(pay_\w+)<', done).group(1)
    p = await Payment.get(id=pay_id)
    assert p.installments["count"] == 3 and p.installments["total_amount"] == 129169 and p.amount_captured == 129169
    assert p.installments["program"] == "bonus"
    status, receipt, _ = await open_page(client, f"/{pay_id}/receipt/{p.receipt_token}?locale=tr")
    assert status == 200 and "3 taksit x 430,56 TL" in receipt
    status, receipt, _ = await open_page(client, f"/{pay_id}/receipt/{p.receipt_token}?locale=en")
    assert "3 installments x 430.56 TRY" in receipt
    # The same token again: the idempotency key of the page answers the same payment.
    r = await client.post(path, data={"csrf": csrf_of(again), "action": "installments", "token": token,
                                      "installments": "3"})
    assert r.status == 200 and await Payment.filter(payment_link=link["id"]).count() == 1


async def test_the_script_posts_the_pick_with_the_card_form(client, merchant):
    link = await make_link(client, merchant.sk, amount=120000)
    path = path_of(link["url"])
    status, body, _ = await submit(client, path, card_form(AXESS, installments="6"), fetch=True)
    assert status == 200 and "6 installments x 214.00 TRY" in body["html"], body
    status, body, _ = await submit(client, path, card_form(AXESS, installments="1"), fetch=True)
    assert status == 200 and "installments x" not in body["html"]
    status, body, _ = await submit(client, path, card_form(FOREIGN), fetch=True)    # no table: paid at once
    assert status == 200 and "Payment successful" in body["html"]
    status, body, _ = await submit(client, path, card_form(FOREIGN, installments="3"), fetch=True)
    assert status == 400 and body["error"]["field"] == "installments" and body["error"]["message"] == "installments must be one of 1"
    status, body, _ = await submit(client, path, card_form(DEBIT), fetch=True)     # debit: no installment step;
    assert status == 200 and 'data-testid="challenge"' in body["html"]              # Troy: always 3-D Secure


@pytest.mark.parametrize("locale,line", [("tr", "2 taksit x 615,00 TL"), ("ar", "2 أقساط × 615.00 ل.ت"),
                                         ("en", "2 installments x 615.00 TRY")])
async def test_an_intent_paid_in_installments_on_its_page(client, merchant, locale, line):
    intent = await create(client, merchant.sk, amount=120000, locale=locale)
    path = path_of(intent["checkout_url"])
    status, html, _ = await submit(client, path, card_form(BONUS))
    assert status == 200 and 'name="installments" value="2"' in html, html
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    r = await client.post(path, data={"csrf": csrf_of(html), "action": "installments", "token": token,
                                      "installments": "2"})
    done = await r.text()
    assert r.status == 200 and line in done, done
    r = await client.get(f"/v1/payments/{intent['id']}", headers={"Authorization": f"Bearer {merchant.sk}"})
    got = await r.json()
    assert got["status"] == "succeeded" and got["installments"]["count"] == 2 and got["amount_received"] == 123000
