"""Helpers for the ETA tests: a set-up unit, an eg_rin customer, EGP invoices."""
from __future__ import annotations

from tests.billing_fixtures import call

SETUP = {"rin": "100200300", "name": "Nile Trading SAE",
         "branch": {"id": "0", "address": {"country": "EG", "governate": "Cairo", "region_city": "Nasr City",
                                           "street": "Abbas El Akkad", "building_number": "12"}},
         "activity_code": "4620", "client_id": "erp-client-1", "client_secret": "s3cr3t-erp-secret-value",
         "pos": {"serial": "POS-0001", "os_version": "Android 14"}}
ITEMS = [{"name": "Widget", "amount": 1999, "quantity": 3, "item_code": "W-1"},
         {"name": "Gadget", "amount": 3, "quantity": 1, "item_code": "10001774", "item_type": "GS1", "unit_type": "KGM"}]
ADDRESS = {"eta_governate": "Giza", "eta_region_city": "Dokki", "eta_street": "Tahrir", "eta_building_number": "7"}


async def setup(client, key, expect=200, **over):
    status, unit = await call(client, "POST", "/api/einvoicing/eta/setup", key, {**SETUP, **over})
    assert status == expect, unit
    return unit


async def rin_customer(client, key, rin: str = "200300400", name: str = "Delta Buyers LLC") -> str:
    """A customer with an Egyptian tax id and an address (metadata eta_*)."""
    status, c = await call(client, "POST", "/api/customers", key, {"name": name, "email": "ap@delta.example",
                                                                   "metadata": ADDRESS,
                                                                   "tax_id": {"type": "eg_rin", "value": rin}})
    assert status == 200, c
    assert c["tax_id"]["type"] == "eg_rin" and c["tax_id"]["value"] == rin, c
    return c["id"]


async def egp_invoice(client, key, cid, *, expect=200, items=None, **over):
    body = {"customer_id": cid, "currency": "EGP", "items": items or ITEMS, "tax_rate": 14, **over}
    status, inv = await call(client, "POST", "/api/invoices", key, body)
    assert status == expect, inv
    return inv


async def mark_paid(client, key, inv_id, expect=200):
    status, inv = await call(client, "PUT", f"/api/invoices/{inv_id}/mark-paid", key)
    assert status == expect, inv
    return inv
