"""ZATCA's e-invoicing API, as the services call it: one `call(path, ...)` that goes over HTTP to
QAFILA_ZATCA_URL, or -- when that is not set and the caller is in test mode -- straight to the
built-in simulator (the same `dispatch` that /sandbox/zatca serves). Live mode without the
setting goes to ZATCA's production core URL."""
from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from services.einvoicing.zatca import simulator
from services.infra.runtime import runtime

PRODUCTION_URL = "https://gw-fatoora.zatca.gov.sa/e-invoicing/core"
TIMEOUT = 15.0


@dataclass
class Answer:
    status: int                 # 0: no answer (ZATCA unreachable, timed out)
    body: dict[str, Any]
    error: str | None = None

    @property
    def transient(self) -> bool:
        """Worth trying again later: no answer, an outage, throttling, or credentials ZATCA did not accept now."""
        return self.status == 0 or self.status >= 500 or self.status in (401, 408, 429)


def basic(token: str, secret: str) -> str:
    return "Basic " + base64.b64encode(f"{token}:{secret}".encode()).decode("ascii")


def dispatch(path: str, *, headers: dict[str, str], body: Any) -> tuple[int, dict]:
    """The simulator's answer to one request (path relative to the API's base)."""
    rt = runtime()
    now = rt.clock.now()
    body = body if isinstance(body, dict) else {}
    secret = rt.config.secret_key
    auth = headers.get("Authorization")
    path = "/" + path.strip("/")
    if path == "/compliance":
        return simulator.compliance_csid(secret_key=secret, otp=headers.get("OTP"), body=body, now=now)
    if path == "/production/csids":
        return simulator.production_csid(secret_key=secret, authorization=auth, body=body, now=now)
    action = {"/compliance/invoices": "compliance", "/invoices/reporting/single": "reporting",
              "/invoices/clearance/single": "clearance"}.get(path)
    if action is None:
        return 404, {"code": "Not-Found", "message": f"No ZATCA endpoint {path}"}
    return simulator.submit(secret_key=secret, authorization=auth, body=body, now=now, action=action)


async def call(path: str, *, livemode: bool, body: dict, otp: str | None = None,
               authorization: str | None = None) -> Answer:
    cfg = runtime().config
    headers = {"Accept-Version": "V2", "Accept-Language": "en"}
    if otp is not None:
        headers["OTP"] = otp
    if authorization is not None:
        headers["Authorization"] = authorization
    base = cfg.zatca_url or ("" if not livemode else PRODUCTION_URL)
    if not base:
        status, out = dispatch(path, headers=headers, body=body)
        return Answer(status, out)
    if path == "/invoices/clearance/single":
        headers["Clearance-Status"] = "1"
    res = await runtime().http.post_json(base.rstrip("/") + path, json=body, headers=headers, timeout=TIMEOUT)
    return Answer(res.status, res.body if isinstance(res.body, dict) else {}, res.error)


def messages(body: dict) -> list[dict]:
    """ZATCA's validation messages, flattened: [{type, code, category, message}] (errors first)."""
    results = body.get("validationResults") if isinstance(body, dict) else None
    out: list[dict] = []
    if isinstance(results, dict):
        for key in ("errorMessages", "warningMessages", "infoMessages"):
            for m in results.get(key) or []:
                if isinstance(m, dict):
                    out.append({k: str(m.get(k) or "") for k in ("type", "code", "category", "message")})
    elif isinstance(body, dict) and body.get("message"):
        out.append({"type": "ERROR", "code": str(body.get("code") or ""), "category": "",
                    "message": str(body["message"])})
    return out[:50]
