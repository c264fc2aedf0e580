"""Helpers for the GİB tests: a set-up unit, TRY invoices, buyers with a Turkish tax identity,
and GİB's own UBL-TR XSDs and schematron (the `efatura-kontrol` package, test dependency)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from lxml import etree

from services.einvoicing.gib import ubl
from tests.billing_fixtures import call, customer

NS = ubl.XPATH_NS
SETUP = {"vkn": "1234567808", "title": "Qafila Ticaret A.Ş.", "tax_office": "Kadıköy",
         "address": {"street": "Moda Caddesi", "building_number": "12", "district": "Kadıköy", "city": "İstanbul",
                     "postal_code": "34710", "country": "TR"},
         "prefix": "QAF", "website": "https://shop.qafila.com.tr"}
ITEMS = [{"name": "Widget", "amount": 1999, "quantity": 3}, {"name": "Gadget", "amount": 3, "quantity": 1}]
REGISTERED = "9876543209"           # the sandbox's e-Fatura taxpayers: 1234567808, 9876543209
UNREGISTERED = "1111111114"         # a valid VKN the sandbox always refuses


async def setup(client, key, expect: int = 200, **over):
    status, unit = await call(client, "POST", "/api/einvoicing/gib/setup", key, {**SETUP, **over})
    assert status == expect, unit
    return unit


async def buyer(client, key, *, tax_id: dict | None = None, name: str = "Ayşe Yılmaz") -> str:
    """A customer; with `tax_id`, set through the API (PUT /api/customers/:id), as a merchant sets it."""
    cid = await customer(client, key, saved_card=None, name=name)
    if tax_id is not None:
        status, c = await call(client, "PUT", f"/api/customers/{cid}", key, {"tax_id": tax_id})
        assert status == 200 and c["tax_id"]["value"] == tax_id["value"], c
    return cid


def vkn(value: str, tax_office: str = "Beşiktaş") -> dict:
    return {"type": "tr_vkn", "value": value, "country": "TR", "tax_office": tax_office}


async def try_invoice(client, key, cid, *, expect=200, **over):
    body = {"customer_id": cid, "currency": "TRY", "items": ITEMS, "tax_rate": 20, **over}
    status, inv = await call(client, "POST", "/api/invoices", key, body)
    assert status == expect, inv
    return inv


async def mark_paid(client, key, inv_id, expect=200):
    status, inv = await call(client, "PUT", f"/api/invoices/{inv_id}/mark-paid", key)
    assert status == expect, inv
    return inv


async def xml_of(client, key, inv_id, note_id: str | None = None) -> bytes:
    path = f"/api/invoices/{inv_id}/xml" if note_id is None else f"/api/invoices/{inv_id}/notes/{note_id}/xml"
    r = await client.get(path, headers={"Authorization": f"Bearer {key}"})
    assert r.status == 200, await r.text()
    assert r.headers["Content-Type"].startswith("application/xml")
    return await r.read()


def x(xml: bytes, path: str) -> str:
    found = etree.fromstring(xml).xpath(path, namespaces=NS)
    return found[0] if isinstance(found[0], str) else found[0].text


def gib_errors(xml: bytes) -> list[str]:
    """What GİB's UBL-TR XSDs and schematron (efatura-kontrol, GİB's e-Fatura package 29) find wrong."""
    from efatura_kontrol.kontrol import kontrol_et

    report = kontrol_et(xml)
    # All of GİB's rules but one: "the issue date is not after today" takes today from the real
    # date, and the tests' clocks run ahead of it (the sandbox checks it against the merchant's clock).
    return [f"{b.kod}: {b.mesaj}" for b in report.bulgular if b.seviye == "hata" and b.kod != "sch-TimeCheck-1"]


_DAY_ONE = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(autouse=True)
def in_2026(clock):
    """A GİB number carries the Turkish year (QAF2026...), and these tests name theirs; but each
    test's clock starts on a day of its own, years after 2026 late in a full run. So the GİB tests
    run in 2026, each still on a day of its own within the year (the first 300 days)."""
    clock.set(_DAY_ONE + timedelta(days=(clock.now() - _DAY_ONE).days % 300))
