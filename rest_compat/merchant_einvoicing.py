"""E-invoicing routes of the merchant interface `/api`: ZATCA's EGS unit (onboarding, state),
credit and debit notes; for any authority, an invoice's e-document, its notes and their documents,
and the test-mode outage helper."""
from __future__ import annotations

from aiohttp import web

from rest_compat.merchant_billing import invoice_shape
from rest_compat.routing import Call, Route
from services.einvoicing import core
from services.einvoicing.gib import documents as gib_documents, units as gib_units
from services.einvoicing.eta import documents as eta_documents, receipts as eta_receipts, units as eta_units
from services.einvoicing.zatca import documents, units


async def zatca_onboard(call: Call) -> dict:
    unit = await units.onboard(principal=call.principal, data=await call.body())
    return units.unit_object(unit, call.principal)


async def zatca_get(call: Call) -> dict:
    return units.unit_object(await units.get_unit(principal=call.principal), call.principal)


async def _note(call: Call, kind: str) -> dict:
    data = await call.body()            # the body is read (and refused) before anything is looked up
    if await eta_documents.is_eta(principal=call.principal, invoice_id=call.params["id"]):
        return eta_documents.note_object(await eta_documents.issue_note(
            principal=call.principal, invoice_id=call.params["id"], kind=kind, data=data))
    return documents.note_object(await documents.issue_note(principal=call.principal, invoice_id=call.params["id"],
                                                            kind=kind, data=data))


async def invoices_credit_note(call: Call) -> dict:
    return await _note(call, "credit_note")


async def invoices_debit_note(call: Call) -> dict:
    return await _note(call, "debit_note")


# ---------------------------------------------------------------- ETA (services.einvoicing.eta)

async def eta_setup(call: Call) -> dict:
    unit = await eta_units.setup(principal=call.principal, data=await call.body())
    return eta_units.unit_object(unit, call.principal)


async def eta_get(call: Call) -> dict:
    return eta_units.unit_object(await eta_units.get_unit(principal=call.principal), call.principal)


async def invoices_eta(call: Call) -> dict:
    return await eta_documents.document_json(principal=call.principal, invoice_id=call.params["id"])


async def payments_eta_receipt(call: Call) -> dict:
    return await eta_receipts.receipt_of(principal=call.principal, payment_id=call.params["id"])


async def invoices_cancel_einvoice(call: Call) -> dict:
    return invoice_shape(await core.cancel_einvoice(principal=call.principal, invoice_id=call.params["id"],
                                                    data=await call.body()))


# ---------------------------------------------------------------- any authority (services.einvoicing.core)

async def invoices_notes(call: Call) -> dict:
    notes = await core.notes_of(principal=call.principal, invoice_id=call.params["id"])
    return {"object": "list", "data": notes}


def _document(found: tuple[str, str, bytes]) -> web.Response:
    name, media, body = found
    return web.Response(body=body, content_type=media, charset="utf-8",
                        headers={"Content-Disposition": f'inline; filename="{name}"'})


async def invoices_document(call: Call) -> web.Response:
    return _document(await core.document_of(principal=call.principal, invoice_id=call.params["id"]))


async def invoices_note_document(call: Call) -> web.Response:
    return _document(await core.document_of(principal=call.principal, invoice_id=call.params["id"],
                                            note_id=call.params["note_id"]))


async def test_einvoicing_outage(call: Call) -> dict:
    return await core.set_outage(principal=call.principal, data=await call.body())



_UNIT = ("id", "status", "vat_number", "certificate_serial", "certificate_expires_at", "icv")
_NOTE = ("id", "kind", "invoice_id", "number", "amount", "tax", "type", "uuid", "icv", "hash", "status", "messages")

ROUTES: list[Route] = [
    Route("POST", "/einvoicing/zatca/onboard", zatca_onboard,
          summary="Onboard the EGS unit with ZATCA (OTP from the Fatoora portal)",
          request_fields=("otp", "vat_number", "organization_name", "organization_unit", "common_name",
                          "invoice_types", "industry", "address", "locale"), response_fields=_UNIT),
    Route("GET", "/einvoicing/zatca", zatca_get, summary="The ZATCA EGS unit of this mode", response_fields=_UNIT),
    Route("GET", "/invoices/{id}/xml", invoices_document, summary="The e-invoice's UBL XML (signed, or as ZATCA cleared it)"),
    Route("POST", "/invoices/{id}/credit-notes", invoices_credit_note, summary="Issue a ZATCA credit note (381)",
          request_fields=("amount", "reason"), response_fields=_NOTE),
    Route("POST", "/invoices/{id}/debit-notes", invoices_debit_note, summary="Issue a ZATCA debit note (383)",
          request_fields=("amount", "reason"), response_fields=_NOTE),
]

_ETA_UNIT = ("id", "status", "rin", "activity_code", "receipts", "certificate_serial", "certificate_expires_at")
ROUTES += [
    Route("POST", "/einvoicing/eta/setup", eta_setup,
          summary="Set up the merchant's ETA unit (e-invoices and e-receipts, Egypt)",
          request_fields=("rin", "name", "branch", "activity_code", "client_id", "client_secret", "certificate",
                          "private_key", "pos", "receipts", "default_item_code", "base_url"),
          response_fields=_ETA_UNIT),
    Route("GET", "/einvoicing/eta", eta_get, summary="The ETA unit of this mode", response_fields=_ETA_UNIT),
    Route("GET", "/invoices/{id}/eta", invoices_eta, summary="The invoice's ETA document as submitted (signed)",
          response_fields=("object", "invoice_id", "uuid", "long_id", "status", "document", "notes")),
    Route("GET", "/payments/{id}/eta-receipt", payments_eta_receipt,
          summary="The payment's ETA e-receipt as submitted, its QR code URL, and its return receipts",
          response_fields=("object", "payment_id", "uuid", "number", "status", "qr_url", "receipt", "returns")),
]

ROUTES += [
    Route("GET", "/invoices/{id}/notes", invoices_notes, summary="List the invoice's notes (credit, debit, returns)",
          response_fields=("object", "data")),
    Route("GET", "/invoices/{id}/notes/{note_id}/xml", invoices_note_document,
          summary="A note's own e-document XML"),
    Route("POST", "/test-helpers/einvoicing/outage", test_einvoicing_outage,
          summary="Make a tax authority's simulator unreachable for N minutes of the test clock (test mode only)",
          request_fields=("authority", "minutes"), response_fields=("object", "authority", "minutes", "until", "livemode")),
]


# ---------------------------------------------------------------- GİB (services.einvoicing.gib)

async def gib_setup(call: Call) -> dict:
    await gib_units.setup(principal=call.principal, data=await call.body())
    return await gib_units.unit_view(principal=call.principal)


async def gib_get(call: Call) -> dict:
    return await gib_units.unit_view(principal=call.principal)


async def gib_taxpayer(call: Call) -> dict:
    return await gib_units.taxpayer(principal=call.principal, vkn=call.params["vkn"])


async def invoices_return(call: Call) -> dict:
    return await gib_documents.return_for(principal=call.principal, invoice_id=call.params["id"],
                                          data=await call.body())


async def test_gib_respond(call: Call) -> dict:
    return invoice_shape(await gib_documents.respond(principal=call.principal, data=await call.body()))


_GIB_UNIT = ("object", "id", "status", "vkn", "tckn", "prefix", "integrator", "next_number")
_INVOICE = ("id", "object", "number", "status", "gib", "eta", "notes")

ROUTES += [
    Route("POST", "/einvoicing/gib/setup", gib_setup, summary="Set up Turkish e-invoices (GİB) through an integrator",
          request_fields=("vkn", "tckn", "title", "tax_office", "address", "prefix", "website", "kdv_rate",
                          "efatura_profile", "integrator"), response_fields=_GIB_UNIT),
    Route("GET", "/einvoicing/gib", gib_get, summary="The GİB unit of this mode", response_fields=_GIB_UNIT),
    Route("GET", "/einvoicing/gib/taxpayers/{vkn}", gib_taxpayer,
          summary="Whether a VKN/TCKN is registered for e-Fatura (the integrator's taxpayer list)",
          response_fields=("object", "vkn", "registered", "title", "alias", "type")),
    Route("POST", "/invoices/{id}/returns", invoices_return, summary="Issue a GİB IADE (return) invoice",
          request_fields=("amount", "reason"), response_fields=("id", "kind", "number", "amount", "tax", "gib")),
    Route("POST", "/invoices/{id}/cancel-einvoice", invoices_cancel_einvoice,
          summary="Cancel the invoice's e-document (GİB e-Arşiv within 7 days; a valid ETA e-invoice, with a reason)",
          request_fields=("reason",), response_fields=_INVOICE),
    Route("POST", "/test-helpers/gib/respond", test_gib_respond,
          summary="The buyer accepts or rejects a TICARIFATURA e-Fatura (test mode only)",
          request_fields=("invoice_id", "response"), response_fields=_INVOICE),
]
