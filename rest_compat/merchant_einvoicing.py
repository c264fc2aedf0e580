"""E-invoicing routes of the merchant interface `/api` (ZATCA phase 2): the EGS unit's
onboarding and state, an invoice's XML, credit and debit notes."""
from __future__ import annotations

from aiohttp import web

from rest_compat.routing import Call, Route
from services.einvoicing.zatca import documents, units


async def zatca_onboard(call: Call) -> dict:
    unit = await units.onboard(principal=call.principal, data=await call.body())
    return units.unit_object(unit, call.principal)


async def zatca_get(call: Call) -> dict:
    return units.unit_object(await units.get_unit(principal=call.principal), call.principal)


async def invoices_xml(call: Call) -> web.Response:
    number, xml = await documents.xml_of(principal=call.principal, invoice_id=call.params["id"])
    return web.Response(body=xml, content_type="application/xml", charset="utf-8",
                        headers={"Content-Disposition": f'inline; filename="{number}.xml"'})


async def invoices_credit_note(call: Call) -> dict:
    return documents.note_object(await documents.issue_note(principal=call.principal, invoice_id=call.params["id"],
                                                            kind="credit_note", data=await call.body()))


async def invoices_debit_note(call: Call) -> dict:
    return documents.note_object(await documents.issue_note(principal=call.principal, invoice_id=call.params["id"],
                                                            kind="debit_note", data=await call.body()))


_UNIT = ("id", "status", "vat_number", "certificate_serial", "certificate_expires_at", "icv")
_NOTE = ("id", "kind", "invoice_id", "number", "amount", "tax", "type", "uuid", "icv", "hash", "status", "messages")

ROUTES: list[Route] = [
    Route("POST", "/einvoicing/zatca/onboard", zatca_onboard,
          summary="Onboard the EGS unit with ZATCA (OTP from the Fatoora portal)",
          request_fields=("otp", "vat_number", "organization_name", "organization_unit", "common_name",
                          "invoice_types", "industry", "address", "locale"), response_fields=_UNIT),
    Route("GET", "/einvoicing/zatca", zatca_get, summary="The ZATCA EGS unit of this mode", response_fields=_UNIT),
    Route("GET", "/invoices/{id}/xml", invoices_xml, summary="The e-invoice's UBL XML (signed, or as ZATCA cleared it)"),
    Route("POST", "/invoices/{id}/credit-notes", invoices_credit_note, summary="Issue a ZATCA credit note (381)",
          request_fields=("amount", "reason"), response_fields=_NOTE),
    Route("POST", "/invoices/{id}/debit-notes", invoices_debit_note, summary="Issue a ZATCA debit note (383)",
          request_fields=("amount", "reason"), response_fields=_NOTE),
]
