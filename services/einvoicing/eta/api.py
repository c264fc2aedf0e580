"""ETA's API as the package calls it: `token`, `submit_documents`, `document_status`,
`cancel`, `submit_receipts`. Test mode goes to the built-in simulator in-process (unreachable
while a test outage of the merchant runs: services.einvoicing.core.unreachable); live mode to
ETA's production hosts over HTTP through the runtime's HTTP sender: the token a form POST to the
identity host, submissions POSTs of ETA's JSON text (numbers as written, so the signature holds),
a document's state a GET, its cancellation a PUT. A unit with its own `base_url` (ETA's preprod,
or the simulator served at /sandbox/eta) speaks HTTP to it for both hosts, in either mode."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote, urlencode

from services.einvoicing import core
from services.einvoicing.eta import canonical, simulator
from services.infra.runtime import runtime

API_URL = "https://api.invoicing.eta.gov.eg"
ID_URL = "https://id.eta.gov.eg"
PORTAL_URL = "https://invoicing.eta.gov.eg"
TEST_PORTAL_URL = "https://preprod.invoicing.eta.gov.eg"
TIMEOUT = 20.0


@dataclass
class Answer:
    status: int                         # 0: no answer
    body: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def transient(self) -> bool:
        return self.status == 0 or self.status >= 500 or self.status in (401, 408, 429)


@dataclass
class Client:
    """Who calls: the merchant (for test outages), the mode, the unit's credentials and POS."""
    merchant_id: str
    livemode: bool
    client_id: str
    client_secret: str
    pos: dict | None = None
    base_url: str | None = None         # both hosts at one base (preprod, the sandbox); None: ETA's production
    _token: str | None = None

    @property
    def over_http(self) -> bool:
        return self.livemode or bool(self.base_url)

    def url(self, host: str, path: str) -> str:
        return (self.base_url.rstrip("/") if self.base_url else host) + path


async def _down(c: Client, when: datetime) -> bool:
    return await core.unreachable(merchant_id=c.merchant_id, livemode=c.livemode, authority="eta", at=when)


async def _http(method: str, url: str, headers: dict, *, body: dict | None = None, form: dict | None = None
                ) -> Answer:
    if form is not None:
        data, ctype = urlencode(form).encode("ascii"), "application/x-www-form-urlencoded"
    elif body is not None:
        data, ctype = canonical.dumps(body).encode("utf-8"), "application/json"
    else:
        data, ctype = None, None
    res = await runtime().http.request(method, url, data=data, content_type=ctype, headers=headers, timeout=TIMEOUT)
    return Answer(res.status, res.body if isinstance(res.body, dict) else {}, res.error)


# name -> (method, path) on ETA's invoicing API
PATHS = {"submit_documents": ("POST", "/api/v1/documentsubmissions"),
         "submit_receipts": ("POST", "/api/v1/receiptsubmissions"),
         "document_status": ("GET", "/api/v1/documents/{uuid}/raw"),
         "cancel": ("PUT", "/api/v1.0/documents/state/{uuid}/state")}


async def _auth(c: Client, when: datetime) -> Answer | None:
    """A bearer token for the client (None when it got one; else the failed answer)."""
    if c._token:
        return None
    form = {"grant_type": "client_credentials", "client_id": c.client_id, "client_secret": c.client_secret}
    if not c.livemode and await _down(c, when):
        return Answer(0, error="ETA is unreachable (test outage)")
    if c.over_http:
        headers = {}
        if c.pos:
            headers = {"posserial": c.pos.get("serial", ""), "pososversion": c.pos.get("os_version", "")}
        ans = await _http("POST", c.url(ID_URL, "/connect/token"), headers, form=form)
    else:
        ans = Answer(*await simulator.token(form))
    if ans.status != 200 or not ans.body.get("access_token"):
        return ans
    c._token = str(ans.body["access_token"])
    return None


async def _call(c: Client, when: datetime, name: str, *args) -> Answer:
    failed = await _auth(c, when)
    if failed is not None:
        return failed
    headers = {"Authorization": f"Bearer {c._token}"}
    if not c.livemode and await _down(c, when):
        return Answer(0, error="ETA is unreachable (test outage)")
    if c.over_http:
        method, path = PATHS[name]
        if "{uuid}" in path:
            path = path.replace("{uuid}", quote(str(args[0]), safe=""))
        body = args[-1] if method != "GET" else None
        return await _http(method, c.url(API_URL, path), headers, body=body)
    fn = getattr(simulator, name)
    if name in ("submit_documents", "submit_receipts"):
        return Answer(*await fn(headers, args[0], when))
    if name == "cancel":
        return Answer(*await fn(headers, args[0], args[1], when))
    return Answer(*await fn(headers, *args))


async def submit_documents(c: Client, when: datetime, documents: list[dict]) -> Answer:
    return await _call(c, when, "submit_documents", {"documents": documents})


async def document_status(c: Client, when: datetime, uuid: str) -> Answer:
    return await _call(c, when, "document_status", uuid)


async def cancel(c: Client, when: datetime, uuid: str, reason: str) -> Answer:
    return await _call(c, when, "cancel", uuid, {"status": "cancelled", "reason": reason})


async def submit_receipts(c: Client, when: datetime, receipts: list[dict]) -> Answer:
    return await _call(c, when, "submit_receipts", {"receipts": receipts})


def errors_of(body: dict) -> list[dict]:
    """ETA's errors, flattened: [{path, code, message}] (a rejection's details or a validation's inner errors)."""
    out: list[dict] = []
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        for d in err.get("details") or []:
            out.append({"path": str(d.get("propertyPath") or d.get("target") or ""), "code": str(d.get("code") or ""),
                        "message": str(d.get("message") or "")})
        if not out:
            out.append({"path": "", "code": str(err.get("code") or ""), "message": str(err.get("message") or "")})
    for step in ((body.get("validationResults") or {}).get("validationSteps") or []) if isinstance(body, dict) else []:
        for e in ((step.get("error") or {}).get("innerError") or []):
            out.append({"path": str(e.get("propertyPath") or ""), "code": str(e.get("errorCode") or ""),
                        "message": str(e.get("error") or "")})
    return out[:50]


def receipt_url(uuid: str, issued: str, *, livemode: bool, total: str, rin: str) -> str:
    """The receipt's QR code (ETA's e-receipt specification: the share URL with the uuid and the
    issue time, then the total and the issuer's RIN)."""
    base = PORTAL_URL if livemode else TEST_PORTAL_URL
    return f"{base}/receipts/search/{uuid}/share/{issued}#Total:{total},IssuerRIN:{rin}"
