"""The integrator as the GİB package calls it: the built-in sandbox in test mode (in-process),
or the merchant's integrator over HTTPS in live mode (Qafila's integrator protocol: JSON over
basic auth, the same answers as the sandbox's: see docs/decisions.md "Turkish e-invoices")."""
from __future__ import annotations

import base64
from datetime import datetime

from models.einvoicing import EinvoiceUnit
from services.einvoicing.gib import sandbox
from services.infra.runtime import runtime

TIMEOUT = 15.0


class Unreachable(Exception):
    """The integrator did not answer a question whose answer decides something (the taxpayer list)."""


def _sandboxed(unit: EinvoiceUnit | None) -> bool:
    return unit is None or unit.settings["integrator"]["kind"] == "sandbox"


async def _post(unit: EinvoiceUnit, secrets: dict, path: str, body: dict, when: datetime | None = None) -> dict:
    """One call; `at` tells the integrator our clock's time (the sandbox over HTTP takes a test
    clock's time from it; a live integrator keeps its own)."""
    integ = unit.settings["integrator"]
    if when is not None:
        body = {**body, "at": when.isoformat()}
    auth = base64.b64encode(f"{integ['username']}:{secrets.get('password', '')}".encode()).decode()
    res = await runtime().http.post_json(integ["url"].rstrip("/") + path, json=body,
                                         headers={"Authorization": f"Basic {auth}"}, timeout=TIMEOUT)
    if res.status == 0 or res.status >= 500 or res.status in (408, 429):
        return {"status": "unreachable", "messages": []}
    return res.body if isinstance(res.body, dict) else {"status": "unreachable", "messages": []}


async def lookup(unit: EinvoiceUnit | None, vkn: str, *, livemode: bool, secrets: dict) -> dict | None:
    if _sandboxed(unit):
        return sandbox.taxpayer(vkn)
    out = await _post(unit, secrets, "/taxpayers/lookup", {"vkn": vkn})
    if out.get("status") == "unreachable":
        raise Unreachable("the integrator's taxpayer list did not answer")
    return out if out.get("alias") else None


async def send(unit: EinvoiceUnit, xml: bytes, *, secrets: dict, when: datetime, alias: str | None) -> dict:
    if _sandboxed(unit):
        return await sandbox.send(xml, merchant_id=unit.merchant_id, livemode=unit.livemode, when=when, alias=alias)
    return await _post(unit, secrets, "/documents", {"xml": base64.b64encode(xml).decode("ascii"), "alias": alias},
                       when)


async def report(unit: EinvoiceUnit, *, secrets: dict, uuid: str, issued_at: datetime, when: datetime) -> dict:
    if _sandboxed(unit):
        return await sandbox.report(merchant_id=unit.merchant_id, livemode=unit.livemode, issued_at=issued_at,
                                    when=when)
    return await _post(unit, secrets, "/documents/status", {"uuid": uuid, "issued_at": issued_at.isoformat()},
                       when)


async def cancel(unit: EinvoiceUnit, *, secrets: dict, uuid: str, when: datetime) -> dict:
    if _sandboxed(unit):
        return await sandbox.cancel(merchant_id=unit.merchant_id, livemode=unit.livemode, when=when)
    return await _post(unit, secrets, "/documents/cancel", {"uuid": uuid}, when)
