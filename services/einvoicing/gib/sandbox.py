"""The sandbox integrator (özel entegratör), built into Qafila for test mode as the ZATCA
simulator is, and called in-process. It behaves as GİB's integrators document:

- its taxpayer list (GİB's e-Fatura registered users): VKN 1234567808 and 9876543209 are
  registered, with the aliases `urn:mail:defaultpk@<vkn>.sandbox.qafila.dev`; other numbers are not;
- it takes an unsigned UBL-TR document, signs it with its own financial seal (XAdES-BES, see
  signing.py), checks the signed document against GİB's UBL-TR XSDs and schematron (GİB's own
  files, shipped in data/ and run by rules.py) and answers `sent` with the signed XML, or
  `rejected` with the rules' messages (`code` GİB's rule id, `message` GİB's text); a buyer VKN 1111111114 is always refused (GİB's rule
  that the buyer be a known taxpayer), to try a rejection;
- it answers nothing (transient) while a test outage of authority `gib` holds for the merchant
  (POST /api/test-helpers/einvoicing/outage), at the merchant's test-clock time;
- it reports e-Arşiv documents to GİB at the next midnight (Turkey's time) after their issue;
- it cancels an e-Arşiv document (GİB allows it until 7 days after issue).
It keeps no state of its own: Qafila's document rows are the record."""
from __future__ import annotations

import base64
from datetime import datetime, time, timedelta, timezone

from lxml import etree

from services.einvoicing import core
from services.einvoicing.gib import rules, signing, ubl

REGISTERED = {"1234567808": "Örnek Alıcı Ticaret A.Ş.", "9876543209": "Deneme Sanayi Ltd. Şti."}
REFUSED_BUYER = "1111111114"
ALIAS_DOMAIN = "sandbox.qafila.dev"


def alias_of(vkn: str) -> str:
    return f"urn:mail:defaultpk@{vkn}.{ALIAS_DOMAIN}"


def taxpayer(vkn: str) -> dict | None:
    title = REGISTERED.get(vkn)
    if title is None:
        return None
    return {"vkn": vkn, "title": title, "alias": alias_of(vkn), "type": "efatura"}


def report_time(issued_at: datetime) -> datetime:
    """When the sandbox reports an e-Arşiv document to GİB: the next midnight in Turkey."""
    day = ubl.local(issued_at).date() + timedelta(days=1)
    return datetime.combine(day, time(0, 0), tzinfo=ubl.TURKEY).astimezone(timezone.utc)    # stored in UTC


CLOCK_RULE = "TimeCheck-1"      # "IssueDate is not after today", today by the checker's own clock


def check(xml: bytes, *, today=None) -> list[dict]:
    """GİB's rules on a signed document: XSD and schematron errors, as messages. GİB's rule that
    the issue date is not in the future is taken against `today` (the merchant's clock: a test
    clock may run ahead of the real date, which the schematron would use)."""
    out = [m for m in rules.check(xml) if m["code"] != CLOCK_RULE]
    if today is not None:
        issued = ubl.text(etree.fromstring(xml, etree.XMLParser(resolve_entities=False, no_network=True)),
                          "cbc:IssueDate")
        if issued and issued > today.isoformat():
            out.append({"code": CLOCK_RULE, "source": "schematron",
                        "message": f"Geçersiz cbc:IssueDate değeri : '{issued}' cbc:IssueDate alanı günün tarihinden "
                                   f"ileri bir tarih olamaz"})
    return out


async def send(xml: bytes, *, merchant_id: str, livemode: bool, when: datetime, alias: str | None) -> dict:
    """{status: sent|rejected|unreachable, messages, signed (base64)}."""
    if await core.unreachable(merchant_id=merchant_id, livemode=livemode, authority="gib", at=when):
        return {"status": "unreachable", "messages": []}
    root = etree.fromstring(xml, etree.XMLParser(resolve_entities=False, no_network=True))
    number = ubl.text(root, "cbc:ID") or ""
    key, cert = signing.sandbox_seal()
    signed = signing.sign(xml, key=key, cert=cert, signing_time=when, number=number)
    messages = check(signed, today=ubl.local(when).date())
    buyer = ubl.text(root, "cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID")
    if buyer == REFUSED_BUYER:
        messages.append({"code": "sandbox-refused-buyer", "source": "gib",
                         "message": f"Alıcı VKN {REFUSED_BUYER} GİB'de kayıtlı bir mükellef değil: the buyer's VKN "
                                    f"is not a known taxpayer (sandbox: always refused)"})
    profile = ubl.text(root, "cbc:ProfileID")
    if profile != "EARSIVFATURA" and not alias:
        messages.append({"code": "sandbox-no-alias", "source": "gib",
                         "message": "An e-Fatura needs the buyer's alias (posta kutusu etiketi)"})
    if messages:
        return {"status": "rejected", "messages": messages}
    return {"status": "sent", "messages": [], "signed": base64.b64encode(signed).decode("ascii"),
            "alias": alias}


async def report(*, merchant_id: str, livemode: bool, issued_at: datetime, when: datetime) -> dict:
    """The e-Arşiv report: {status: reported|sent|unreachable}."""
    if await core.unreachable(merchant_id=merchant_id, livemode=livemode, authority="gib", at=when):
        return {"status": "unreachable"}
    return {"status": "reported" if when >= report_time(issued_at) else "sent"}


async def cancel(*, merchant_id: str, livemode: bool, when: datetime) -> dict:
    if await core.unreachable(merchant_id=merchant_id, livemode=livemode, authority="gib", at=when):
        return {"status": "unreachable"}
    return {"status": "canceled"}


async def dispatch(path: str, *, authorization: str | None, body: dict, now: datetime) -> tuple[int, dict]:
    """The sandbox over HTTP (app/gib_sandbox.py, /sandbox/gib): the integrator protocol that live
    units speak (services.einvoicing.gib.integrator), with basic auth of any non-empty user and
    password. It knows no merchant, so no test outage applies here."""
    try:
        user, _, password = base64.b64decode((authorization or "")[6:], validate=True).decode().partition(":") \
            if (authorization or "").startswith("Basic ") else ("", "", "")
    except (ValueError, UnicodeDecodeError):
        user = password = ""
    if not user or not password:
        return 401, {"status": "unauthorized", "messages": [{"code": "unauthorized",
                                                             "message": "Basic credentials required"}]}
    path = "/" + path.strip("/")
    try:                    # the caller's clock (a test clock), when it says it
        now = datetime.fromisoformat(str(body["at"])) if body.get("at") else now
    except ValueError:
        return 400, {"status": "unknown", "messages": [{"code": "at", "message": "at must be an ISO 8601 time"}]}
    if path == "/taxpayers/lookup":
        return 200, taxpayer(str(body.get("vkn") or "")) or {}
    if path == "/documents":
        try:
            xml = base64.b64decode(str(body.get("xml") or ""), validate=True)
            etree.fromstring(xml, etree.XMLParser(resolve_entities=False, no_network=True))
        except (ValueError, etree.XMLSyntaxError):
            return 400, {"status": "rejected", "messages": [{"code": "xml", "message": "xml is not base64 of XML"}]}
        return 200, await send(xml, merchant_id="", livemode=True, when=now, alias=body.get("alias"))
    if path == "/documents/status":
        try:
            issued = datetime.fromisoformat(str(body.get("issued_at")))
        except ValueError:
            return 400, {"status": "unknown", "messages": [{"code": "issued_at", "message": "issued_at is required"}]}
        return 200, await report(merchant_id="", livemode=True, issued_at=issued, when=now)
    if path == "/documents/cancel":
        return 200, await cancel(merchant_id="", livemode=True, when=now)
    return 404, {"status": "unknown", "messages": [{"code": "not_found", "message": f"No endpoint {path}"}]}
