"""A payout batch's bank files: ISO 20022 `pain.001.001.09` (one credit-transfer instruction
debiting the platform's `payout_account`, one transaction per payout) and a CSV of the same.
Amounts in the currency's decimals (KWD `8.750`). The XML validates against the ISO schema kept in
data/ (tests/test_marketplace_payouts.py checks every file it builds)."""
from __future__ import annotations

import csv
import io
from pathlib import Path
from xml.etree import ElementTree as ET

from models.marketplace import Payout, PayoutBatch
from services.errors import ValidationError
from services.money.marketplace import settings as mk_settings
from services.money.marketplace.payouts import get_batch, major
from services.principal import Principal
from services.validation import one_of

FORMATS = ("pain.001.001.09", "csv")
NAMESPACE = "urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"
XSD = Path(__file__).parent / "data" / "pain.001.001.09.xsd"
CSV_COLUMNS = ("payout_id", "sub_merchant", "holder_name", "iban", "bic", "amount", "currency", "purpose", "reference")


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    e = ET.SubElement(parent, f"{{{NAMESPACE}}}{tag}", attrs)
    if text is not None:
        e.text = text
    return e


def _agent(parent: ET.Element, tag: str, bic: str | None) -> None:
    fin = _el(_el(parent, tag), "FinInstnId")
    if bic:
        _el(fin, "BICFI", bic)
    else:
        _el(_el(fin, "Othr"), "Id", "NOTPROVIDED")


def _text(value: str, n: int) -> str:
    return value[:n]


def pain001(batch: PayoutBatch, payouts: list[Payout], account: dict) -> bytes:
    ET.register_namespace("", NAMESPACE)
    doc = ET.Element(f"{{{NAMESPACE}}}Document")
    root = _el(doc, "CstmrCdtTrfInitn")
    total = major(sum(p.amount for p in payouts), batch.currency)
    hdr = _el(root, "GrpHdr")
    _el(hdr, "MsgId", batch.id)
    _el(hdr, "CreDtTm", batch.created_at.strftime("%Y-%m-%dT%H:%M:%S"))
    _el(hdr, "NbOfTxs", str(len(payouts)))
    _el(hdr, "CtrlSum", total)
    _el(_el(hdr, "InitgPty"), "Nm", _text(account["name"], 140))
    inf = _el(root, "PmtInf")
    _el(inf, "PmtInfId", batch.id)
    _el(inf, "PmtMtd", "TRF")
    _el(inf, "NbOfTxs", str(len(payouts)))
    _el(inf, "CtrlSum", total)
    _el(_el(inf, "ReqdExctnDt"), "Dt", batch.created_at.date().isoformat())
    _el(_el(inf, "Dbtr"), "Nm", _text(account["name"], 140))
    _el(_el(_el(inf, "DbtrAcct"), "Id"), "IBAN", account["iban"])
    _agent(inf, "DbtrAgt", account.get("bic"))
    for p in payouts:
        tx = _el(inf, "CdtTrfTxInf")
        _el(_el(tx, "PmtId"), "EndToEndId", p.id)
        _el(_el(tx, "Amt"), "InstdAmt", major(p.amount, p.currency), Ccy=p.currency)
        if p.bic:
            _agent(tx, "CdtrAgt", p.bic)
        _el(_el(tx, "Cdtr"), "Nm", _text(p.holder_name, 140))
        _el(_el(_el(tx, "CdtrAcct"), "Id"), "IBAN", p.iban)
        _el(_el(tx, "Purp"), "Cd", p.purpose)
        _el(_el(tx, "RmtInf"), "Ustrd", _text(p.reference, 140))
    return ET.tostring(doc, encoding="utf-8", xml_declaration=True)


def payouts_csv(payouts: list[Payout]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for p in payouts:
        w.writerow([p.id, p.sub_merchant_id, p.holder_name, p.iban, p.bic or "", major(p.amount, p.currency),
                    p.currency, p.purpose, p.reference])
    return buf.getvalue()


async def batch_file(*, principal: Principal, batch_id: str, fmt: str | None) -> tuple[bytes, str, str]:
    """(body, media type, file name) of a batch's file; pain.001 needs the platform's
    `payout_account` (400 payout_account_required)."""
    fmt = fmt or "pain.001.001.09"
    if fmt not in FORMATS:
        raise one_of("format", FORMATS)
    batch, payouts = await get_batch(principal=principal, batch_id=batch_id)
    if fmt == "csv":
        return payouts_csv(payouts).encode(), "text/csv", f"{batch.id}.csv"
    settings = await mk_settings.get_settings(principal=principal)
    account = settings.payout_account if settings else None
    if not account:
        raise ValidationError("The platform's payout_account (PUT /api/marketplace) is the file's debtor: set it first",
                              code="payout_account_required", param="payout_account")
    return pain001(batch, payouts, account), "application/xml", f"{batch.id}.xml"
