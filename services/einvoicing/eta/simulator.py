"""A simulator of ETA's API for test mode, checking what ETA checks: the OAuth token (client
credentials), a document submission (structure: rejected at once; then validation: the
signature, the issuer's and receiver's registration numbers -- `999999999` is never registered
-- EGS item codes, the arithmetic of every line (in another currency: amountEGP = amountSold x
currencyExchangeRate) and of the totals, a note's references), a document's status, a
cancellation within ETA's window, and a batch of e-receipts (the uuid is the SHA-256 of the
receipt serialized with an empty uuid, the totals add up). Documents it saw live in the
key-value store (a week)."""
from __future__ import annotations

import hashlib
import json
import re
import secrets
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from services.einvoicing.eta import canonical, signing, taxes
from services.infra.runtime import runtime

UNREGISTERED_RIN = "999999999"
CANCEL_WINDOW = timedelta(days=7)      # ETA: an issuer may cancel a valid document within 7 days
TTL = 7 * 24 * 3600 + 3600
MAX_DOCUMENTS = 100                    # ETA: at most 100 documents per submission
MAX_RECEIPTS = 500                     # receipts per submission (decisions: ETA's batch size)
_RIN = re.compile(r"\d{9}")
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"     # Crockford base32, as ETA's document uuids
TOLERANCE = Decimal("0.00001")


def _eta_uuid() -> str:
    n = int.from_bytes(secrets.token_bytes(17), "big")
    return "".join(_ALPHABET[(n >> (5 * i)) & 31] for i in range(26))


def _key(kind: str, ident: str) -> str:
    return f"eta:sim:{kind}:{ident}"


async def _put(kind: str, ident: str, value: dict) -> None:
    await runtime().kv.set(_key(kind, ident), json.dumps(value), ttl=TTL)


async def _get(kind: str, ident: str) -> dict | None:
    raw = await runtime().kv.get(_key(kind, ident))
    return json.loads(raw) if raw else None


def _err(path: str, message: str, code: str = "InvalidValue") -> dict:
    return {"propertyPath": path, "error": message, "errorCode": code}


# ---------------------------------------------------------------- OAuth

async def token(form: dict) -> tuple[int, dict]:
    if form.get("grant_type") != "client_credentials" or not form.get("client_id") or not form.get("client_secret"):
        return 400, {"error": "invalid_client"}
    tok = secrets.token_urlsafe(24)
    await runtime().kv.set(_key("token", tok), str(form["client_id"]), ttl=3600)
    return 200, {"access_token": tok, "expires_in": 3600, "token_type": "Bearer", "scope": "InvoicingAPI"}


async def _authorized(headers: dict) -> bool:
    auth = headers.get("Authorization") or ""
    return auth.startswith("Bearer ") and bool(await runtime().kv.get(_key("token", auth[7:])))


# ---------------------------------------------------------------- arithmetic

def _dec(v: Any) -> Decimal | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        d = Decimal(str(v))
    except InvalidOperation:
        return None
    return d if d.is_finite() and d.as_tuple().exponent >= -5 else None


def _close(a: Decimal | None, b: Decimal) -> bool:
    return a is not None and abs(a - b) <= TOLERANCE


def _q(d: Decimal) -> Decimal:
    return d.quantize(TOLERANCE, rounding="ROUND_HALF_UP")


def _check_taxes(line: dict, p: str, net: Decimal) -> tuple[list[dict], Decimal | None, list[tuple[str, Decimal]]]:
    """A line's taxableItems as ETA computes them (services.einvoicing.eta.taxes): the types and
    subtypes, each amount (T2 on the net total plus taxable fees and T3, T1 on that plus T2,
    T4 on the net total), totalTaxableFees; (errors, the line's expected total, (type, amount)s)."""
    errors: list[dict] = []
    items = [t if isinstance(t, dict) else {} for t in line.get("taxableItems") or []]
    vat_rate, vat_sub, spec, fixed, seen = Decimal(0), "V009", [], {}, set()
    for k, t in enumerate(items):
        kind, sub, rate = str(t.get("taxType") or ""), str(t.get("subType") or ""), _dec(t.get("rate"))
        if kind in seen:
            errors.append(_err(f"{p}.taxableItems[{k}].taxType", f"{kind} is given twice on the line", "DuplicateTaxType"))
            continue
        seen.add(kind)
        if rate is None or not 0 <= rate <= 100:
            errors.append(_err(f"{p}.taxableItems[{k}].rate", "rate must be a percentage from 0 to 100"))
            continue
        if kind == "T1":
            vat_rate, vat_sub = rate, sub
            continue
        if kind not in taxes.SUBTYPES:
            errors.append(_err(f"{p}.taxableItems[{k}].taxType", f"{kind} is not one of ETA's tax types", "InvalidTaxType"))
            continue
        if sub not in taxes.SUBTYPES[kind]:
            errors.append(_err(f"{p}.taxableItems[{k}].subType", f"{sub} is not a subtype of {kind}", "InvalidTaxSubType"))
            continue
        if rate or kind in taxes.PERCENT:
            spec.append({"type": kind, "subtype": sub, "rate": str(rate)})
        else:               # a fixed amount: as given
            amount = _dec(t.get("amount"))
            spec.append({"type": kind, "subtype": sub, "amount": 0})
            fixed[kind] = amount if amount is not None else Decimal(0)
    if errors:
        return errors, None, []
    expected, fees, _total = taxes.compute(net, vat_rate, vat_sub, spec, fixed=fixed)
    want = {t["taxType"]: t["amount"] for t in expected}
    amounts = []
    for k, t in enumerate(items):
        kind, amount = str(t.get("taxType")), _dec(t.get("amount"))
        if not _close(amount, want[kind]):
            basis = {"T1": "(netTotal + totalTaxableFees + valueDifference + T2 + T3) x rate / 100",
                     "T2": "(netTotal + totalTaxableFees + valueDifference + T3) x rate / 100",
                     "T4": "(netTotal - itemsDiscount) x rate / 100"}.get(kind, "netTotal x rate / 100")
            errors.append(_err(f"{p}.taxableItems[{k}].amount", f"the {kind} amount must be {basis} ({want[kind]})"))
        amounts.append((kind, amount if amount is not None else Decimal(0)))
    if "totalTaxableFees" in line and not _close(_dec(line.get("totalTaxableFees")), fees):
        errors.append(_err(f"{p}.totalTaxableFees", f"totalTaxableFees must be the sum of the line's taxable fees, "
                                                     f"T5 to T12 ({fees})"))
    # the line's total adds up its taxes as given (each checked above)
    total = net + sum((taxes.signed(k, a) for k, a in amounts), Decimal(0))
    return errors, total, amounts


_CURRENCY = re.compile(r"[A-Z]{3}")


def _check_sold(value: dict, p: str) -> list[dict]:
    """A line sold in another currency than EGP: `amountSold` and `currencyExchangeRate` (EGP per
    unit, above 0) given, and amountEGP = amountSold x currencyExchangeRate, half-up to 5 decimals."""
    currency = value.get("currencySold")
    if currency == "EGP":
        return []
    if not isinstance(currency, str) or not _CURRENCY.fullmatch(currency):
        return [_err(f"{p}.unitValue.currencySold", "currencySold must be an ISO 4217 code")]
    sold, rate = _dec(value.get("amountSold")), _dec(value.get("currencyExchangeRate"))
    if sold is None or sold < 0:
        return [_err(f"{p}.unitValue.amountSold", f"amountSold is required for a line sold in {currency}, a number "
                                                   "with at most 5 decimals", "Required")]
    if rate is None or rate <= 0:
        return [_err(f"{p}.unitValue.currencyExchangeRate", f"currencyExchangeRate (EGP per {currency}) is required "
                                                             "for a line sold in another currency, above 0 with at "
                                                             "most 5 decimals", "Required")]
    want = _q(sold * rate)
    if not _close(_dec(value.get("amountEGP")), want):
        return [_err(f"{p}.unitValue.amountEGP", f"amountEGP must be amountSold x currencyExchangeRate ({want})")]
    return []


def check_lines(doc: dict, lines_key: str, issuer_rin: str, *, unit_key: str) -> list[dict]:
    """ETA's arithmetic: each line and the document's totals (invoices: `invoiceLines` with
    `unitValue.amountEGP`, and for a line sold in another currency amountEGP = amountSold x
    currencyExchangeRate; receipts: `itemData` with `unitPrice`)."""
    errors: list[dict] = []
    sales = net = Decimal(0)
    per_type: dict[str, Decimal] = {}
    for n, line in enumerate(doc.get(lines_key) or []):
        p = f"{lines_key}[{n}]"
        q = _dec(line.get("quantity"))
        price = _dec((line.get("unitValue") or {}).get("amountEGP")) if unit_key == "unitValue" else _dec(line.get("unitPrice"))
        if q is None or price is None or q <= 0:
            errors.append(_err(f"{p}.quantity", "quantity and unit value must be numbers with at most 5 decimals"))
            continue
        if line.get("itemType") == "EGS" and not str(line.get("itemCode") or "").startswith(f"EG-{issuer_rin}-"):
            errors.append(_err(f"{p}.itemCode", f"An EGS code must read EG-{issuer_rin}-<code> (the issuer's own code)",
                               "InvalidItemCode"))
        if not line.get("itemCode"):
            errors.append(_err(f"{p}.itemCode", "itemCode is required", "Required"))
        if unit_key == "unitValue":
            sold_errors = _check_sold(line.get("unitValue") or {}, p)
            if sold_errors:
                errors += sold_errors
                continue
        line_sales = _dec(line.get("salesTotal" if unit_key == "unitValue" else "totalSale"))
        if not _close(line_sales, _q(q * price)):
            errors.append(_err(f"{p}.salesTotal", f"salesTotal must be quantity x unit value ({_q(q * price)})"))
            continue
        line_net = _dec(line.get("netTotal" if unit_key == "unitValue" else "netSale"))
        discount = _dec((line.get("discount") or {}).get("amount")) or Decimal(0)
        if not _close(line_net, line_sales - discount):
            errors.append(_err(f"{p}.netTotal", "netTotal must be salesTotal less the discount"))
            continue
        line_errors, line_total, amounts = _check_taxes(line, p, line_net)
        errors += line_errors
        if line_total is None:
            continue
        for kind, amount in amounts:
            per_type[kind] = per_type.get(kind, Decimal(0)) + amount
        if not _close(_dec(line.get("total")), line_total):
            errors.append(_err(f"{p}.total", "total must be netTotal plus the line's taxes and taxable fees, less "
                                             f"withholding (T4) ({line_total})"))
        sales += line_sales
        net += line_net
    if errors:
        return errors
    totals = {"invoiceLines": ("totalSalesAmount", "netAmount", "totalAmount"),
              "itemData": ("totalSales", "netAmount", "totalAmount")}[lines_key]
    if not _close(_dec(doc.get(totals[0])), sales):
        errors.append(_err(totals[0], f"{totals[0]} must be the sum of the lines' sales ({sales})"))
    if not _close(_dec(doc.get(totals[1])), net):
        errors.append(_err(totals[1], f"{totals[1]} must be the sum of the lines' net totals ({net})"))
    given = {str(t.get("taxType")): _dec(t.get("amount")) for t in doc.get("taxTotals") or []}
    for kind, amount in per_type.items():
        if not _close(given.get(kind), amount):
            errors.append(_err("taxTotals", f"taxTotals {kind} must be the sum of the lines' {kind} ({amount})"))
    extra = _dec(doc.get("extraDiscountAmount")) or Decimal(0)
    if not _close(_dec(doc.get(totals[2])), net + sum(taxes.signed(k, a) for k, a in per_type.items()) - extra):
        errors.append(_err(totals[2], f"{totals[2]} must be the net amount plus taxes (less withholding, T4) less "
                                      "the extra discount"))
    return errors


# ---------------------------------------------------------------- documents (e-invoices, notes)

def _structure(doc: Any) -> list[dict]:
    if not isinstance(doc, dict):
        return [_err("", "a document must be a JSON object", "InvalidStructure")]
    out = []
    for key in ("issuer", "receiver", "documentType", "documentTypeVersion", "dateTimeIssued",
                "taxpayerActivityCode", "internalID", "invoiceLines", "totalAmount", "signatures"):
        if key not in doc:
            out.append(_err(key, f"{key} is required", "Required"))
    if out:
        return out
    if doc["documentType"] not in ("I", "C", "D"):
        out.append(_err("documentType", "documentType must be I, C or D"))
    if doc["documentTypeVersion"] != "1.0":
        out.append(_err("documentTypeVersion", "documentTypeVersion must be 1.0 (signed documents)"))
    if not re.fullmatch(r"\d{4}", str(doc["taxpayerActivityCode"])):
        out.append(_err("taxpayerActivityCode", "taxpayerActivityCode must be 4 digits"))
    if not isinstance(doc["invoiceLines"], list) or not doc["invoiceLines"]:
        out.append(_err("invoiceLines", "a document needs at least one line"))
    return out


async def _validate(doc: dict, serialized: str) -> list[dict]:
    errors: list[dict] = []
    sigs = [s for s in doc.get("signatures") or [] if isinstance(s, dict) and s.get("signatureType") == "I"]
    if not sigs:
        errors.append(_err("signatures", "the issuer's signature (signatureType I) is missing", "SignatureMissing"))
    else:
        problems, _cert = signing.verify(serialized, str(sigs[0].get("value") or ""))
        errors += [_err("signatures[0].value", p, "InvalidSignature") for p in problems]
    issuer, receiver = doc.get("issuer") or {}, doc.get("receiver") or {}
    if not _RIN.fullmatch(str(issuer.get("id") or "")):
        errors.append(_err("issuer.id", "the issuer's registration number must be 9 digits"))
    if receiver.get("type") == "B":
        rid = str(receiver.get("id") or "")
        if not _RIN.fullmatch(rid) or rid == UNREGISTERED_RIN:
            errors.append(_err("receiver.id", f"Receiver registration number {rid} is not a registered, active "
                                               "taxpayer", "ReceiverNotRegistered"))
        if (receiver.get("address") or {}).get("country") != "EG":
            errors.append(_err("receiver.address.country", "a business receiver's address is in EG"))
    errors += check_lines(doc, "invoiceLines", str(issuer.get("id") or ""), unit_key="unitValue")
    if doc.get("documentType") in ("C", "D"):
        refs = doc.get("references") or []
        if not refs:
            errors.append(_err("references", "a credit or debit note refers to its original document", "Required"))
        for n, ref in enumerate(refs):
            orig = await _get("doc", str(ref))
            if orig is None or orig.get("issuer") != issuer.get("id") or orig.get("status") != "Valid":
                errors.append(_err(f"references[{n}]", f"{ref} is not a valid document of this issuer"))
    return errors


async def submit_documents(headers: dict, body: dict, now: datetime) -> tuple[int, dict]:
    if not await _authorized(headers):
        return 401, {"error": "unauthorized"}
    docs = body.get("documents") if isinstance(body, dict) else None
    if not isinstance(docs, list) or not 1 <= len(docs) <= MAX_DOCUMENTS:
        return 400, {"error": {"code": "BadStructure", "message": f"documents: 1 to {MAX_DOCUMENTS} documents"}}
    submission = _eta_uuid()
    accepted, rejected = [], []
    for raw in docs:
        doc = raw if isinstance(raw, dict) else {}
        problems = _structure(raw)
        if problems:
            rejected.append({"internalId": str(doc.get("internalID") or ""),
                             "error": {"code": "BadStructure", "message": "Document structure is invalid",
                                       "details": [{"code": p["errorCode"], "target": p["propertyPath"],
                                                    "propertyPath": p["propertyPath"], "message": p["error"]}
                                                   for p in problems]}})
            continue
        unsigned = {k: v for k, v in doc.items() if k != "signatures"}
        serialized = canonical.serialize(unsigned)
        errors = await _validate(doc, serialized)
        uuid = _eta_uuid()
        long_id = hashlib.sha256((uuid + serialized).encode("utf-8")).hexdigest()[:40].upper()
        await _put("doc", uuid, {"status": "Invalid" if errors else "Valid", "errors": errors, "longId": long_id,
                                 "issuer": str((doc.get("issuer") or {}).get("id")), "submissionId": submission,
                                 "received": now.isoformat()})
        accepted.append({"uuid": uuid, "longId": long_id, "internalId": str(doc.get("internalID"))})
    return 202, {"submissionId": submission, "acceptedDocuments": accepted, "rejectedDocuments": rejected}


async def document_status(headers: dict, uuid: str) -> tuple[int, dict]:
    if not await _authorized(headers):
        return 401, {"error": "unauthorized"}
    doc = await _get("doc", uuid)
    if doc is None:
        return 404, {"error": {"code": "NotFound", "message": f"No document {uuid}"}}
    steps = [{"name": "Document validation", "status": "Invalid" if doc["errors"] else "Valid",
              "error": {"error": "Validation failed", "errorCode": "ValidationError",
                        "innerError": doc["errors"]} if doc["errors"] else None}]
    return 200, {"uuid": uuid, "longId": doc["longId"], "submissionUUID": doc["submissionId"],
                 "status": doc["status"], "validationResults": {"status": doc["status"], "validationSteps": steps}}


async def cancel(headers: dict, uuid: str, body: dict, now: datetime) -> tuple[int, dict]:
    if not await _authorized(headers):
        return 401, {"error": "unauthorized"}
    doc = await _get("doc", uuid)
    if doc is None:
        return 404, {"error": {"code": "NotFound", "message": f"No document {uuid}"}}
    if body.get("status") != "cancelled" or not str(body.get("reason") or "").strip():
        return 400, {"error": {"code": "BadRequest", "message": "status 'cancelled' and a reason are required"}}
    if doc["status"] != "Valid":
        return 400, {"error": {"code": "IncorrectState", "message": f"Only a valid document can be cancelled ({doc['status']})"}}
    if now > datetime.fromisoformat(doc["received"]) + CANCEL_WINDOW:
        return 400, {"error": {"code": "CancellationPeriodExpired",
                               "message": "A document can be cancelled within 7 days of its validation"}}
    doc["status"] = "Cancelled"
    await _put("doc", uuid, doc)
    return 200, {}


# ---------------------------------------------------------------- e-receipts

async def submit_receipts(headers: dict, body: dict, now: datetime) -> tuple[int, dict]:
    if not await _authorized(headers):
        return 401, {"error": "unauthorized"}
    receipts = body.get("receipts") if isinstance(body, dict) else None
    if not isinstance(receipts, list) or not 1 <= len(receipts) <= MAX_RECEIPTS:
        return 400, {"error": {"code": "BadStructure", "message": f"receipts: 1 to {MAX_RECEIPTS} receipts"}}
    submission = _eta_uuid()
    accepted, rejected = [], []
    for r in receipts:
        header = (r.get("header") or {}) if isinstance(r, dict) else {}
        uuid = str(header.get("uuid") or "")
        errors = []
        blank = {**r, "header": {**header, "uuid": ""}}
        if canonical.digest(blank) != uuid:
            errors.append(_err("header.uuid", "uuid must be the SHA-256 of the receipt serialized with an empty uuid",
                               "InvalidUUID"))
        seller = r.get("seller") or {}
        if not _RIN.fullmatch(str(seller.get("rin") or "")):
            errors.append(_err("seller.rin", "the seller's registration number must be 9 digits"))
        if header.get("currency") != "EGP":
            errors.append(_err("header.currency", "receipts are in EGP"))
        errors += check_lines(r, "itemData", str(seller.get("rin") or ""), unit_key="unitPrice")
        entry = {"uuid": uuid, "receiptNumber": str(header.get("receiptNumber") or "")}
        if errors:
            rejected.append({**entry, "error": {"code": "ValidationError", "message": "Receipt is invalid",
                                                "details": [{"propertyPath": e["propertyPath"], "message": e["error"],
                                                             "code": e["errorCode"]} for e in errors]}})
        else:
            await _put("receipt", uuid, {"status": "Valid", "submissionId": submission, "received": now.isoformat()})
            accepted.append(entry)
    return 202, {"submissionId": submission, "acceptedDocuments": accepted, "rejectedDocuments": rejected}
