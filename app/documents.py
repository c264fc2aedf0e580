"""Documents opened without an API key, behind unguessable URLs: an invoice's PDF
(`/invoices/{token}.pdf`, the `pdf_url` of the invoice)."""
from __future__ import annotations

from aiohttp import web

from rest_compat.routing import json_response, request_id
from services.billing import invoices
from services.errors import NotFound


async def invoice_pdf(request: web.Request) -> web.StreamResponse:
    try:
        number, pdf = await invoices.pdf_for_token(request.match_info["token"])
    except NotFound:
        return json_response({"error": {"type": "invalid_request_error", "code": "resource_not_found",
                                        "message": "Resource not found", "param": None,
                                        "request_id": request_id(request)}}, status=404)
    return web.Response(body=pdf, content_type="application/pdf", headers={
        "Content-Disposition": f'inline; filename="{number}.pdf"', "Cache-Control": "private, no-store",
        "X-Robots-Tag": "noindex", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff"})


def install(app: web.Application) -> None:
    app.router.add_get("/invoices/{token}.pdf", invoice_pdf)
