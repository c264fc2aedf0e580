"""The printed copy of a GİB e-document, as the app serves it (pdf_url): GİB's logo text, the
number, the ETTN, Turkish amounts and the QR code of the document's GİB fields."""
from __future__ import annotations

import json

from models.einvoicing import EinvoiceDocument
from services.einvoicing.gib import documents
from models.billing import Invoice
from tests.gib_fixtures import in_2026  # noqa: F401
from tests.gib_fixtures import REGISTERED, buyer, mark_paid, setup, try_invoice, vkn
from tests.test_billing_invoices import pdf_text
from tests.test_billing_pdf import qr_image, qr_matches


async def test_earsiv_pdf_shows_the_gib_fields_and_qr(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk)
    items = [{"name": "Halı", "amount": 123456, "quantity": 1}]
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid, items=items))["id"])
    text, _ = await pdf_text(client, inv["pdf_url"])
    assert "e-Arşiv Fatura" in text and inv["gib"]["number"] in text and inv["gib"]["uuid"] in text
    assert "EARSIVFATURA" in text and "ETTN" in text
    assert "1.481,47" in text                    # 1234.56 + 20% KDV 246.91 = 1481.47, in Turkish format
    info = await documents.print_info(await Invoice.get(id=inv["id"]))
    qr = json.loads(info["qr"])
    assert (qr["no"], qr["ettn"], qr["vkntckn"], qr["avkntckn"], qr["senaryo"]) == \
        (inv["gib"]["number"], inv["gib"]["uuid"], "1234567808", "11111111111", "EARSIVFATURA")
    assert (qr["malhizmettoplam"], qr["hesaplanankdv(20)"], qr["odenecek"]) == ("1234.56", "246.91", "1481.47")
    images = qr_image(await (await client.get("/" + inv["pdf_url"].split("://", 1)[1].split("/", 1)[1])).read())
    assert any(qr_matches(img.image, info["qr"]) for img in images)


async def test_efatura_pdf_title(client, merchant):
    await setup(client, merchant.sk)
    cid = await buyer(client, merchant.sk, tax_id=vkn(REGISTERED))
    inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    text, _ = await pdf_text(client, inv["pdf_url"])
    assert "e-Fatura" in text and "e-Arşiv" not in text and "TICARIFATURA" in text
    assert await EinvoiceDocument.filter(invoice_id=inv["id"]).count() == 1
