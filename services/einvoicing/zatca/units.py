"""Onboarding of the merchant's EGS unit (one per merchant and mode): a secp256k1 key and a CSR,
a compliance CSID for the taxpayer portal's OTP, then a production CSID. The key and the CSID's
secret are stored encrypted with QAFILA_SECRET_KEY and never returned, logged or put in an
event; the answer shows the unit's state, the certificate's serial and expiry."""
from __future__ import annotations

import base64
import re
import uuid
from decimal import Decimal

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.einvoicing import ZatcaUnit
from services.einvoicing.zatca import api, keys, signing, simulator, ubl
from services.errors import DomainError, ServiceUnavailable, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

INVOICE_TYPES = ("1100", "1000", "0100")        # standard + simplified, standard only, simplified only
FIRST_PIH = "NWZlY2ViNjZmZmM4NmYzOGQ5NTI3ODZjNmQ2OTZjNzljMmRiYzIzOWRkNGU5MWI0NjcyOWQ3M2EyN2ZiNTdlOQ=="
_VAT = re.compile(r"3\d{13}3")


class ZatcaRefused(DomainError):
    """ZATCA (or the simulator) refused a request; its messages are in the text."""
    status = 400
    code = "zatca_refused"


def zatca_unavailable() -> ServiceUnavailable:
    return ServiceUnavailable("ZATCA's e-invoicing API could not be reached; try again shortly",
                              code="zatca_unavailable", headers={"Retry-After": "30"})


def check_vat(value: str, param: str) -> str:
    if not _VAT.fullmatch(value):
        raise ValidationError(f"{param} must be a Saudi VAT number: 15 digits, first and last 3", param=param)
    return value


def _address(f: Fields | None) -> dict:
    if f is None:
        return {}
    out = {"street": f.str("street", max_len=127), "building_number": f.str("building_number", max_len=4),
           "district": f.str("district", max_len=127), "city": f.str("city", max_len=127),
           "postal_code": f.str("postal_code", max_len=5)}
    f.reject_unknown()
    if out["building_number"] is not None and not re.fullmatch(r"\d{4}", out["building_number"]):
        raise ValidationError("address.building_number must be 4 digits", param="address.building_number")
    if out["postal_code"] is not None and not re.fullmatch(r"\d{5}", out["postal_code"]):
        raise ValidationError("address.postal_code must be 5 digits", param="address.postal_code")
    return {k: v for k, v in out.items() if v}


def unit_object(u: ZatcaUnit | None, principal: Principal) -> dict:
    if u is None:
        return {"object": "zatca_unit", "id": None, "status": "not_onboarded", "livemode": principal.livemode,
                "vat_number": None, "organization_name": None, "organization_unit": None, "common_name": None,
                "invoice_types": None, "locale": None, "certificate_serial": None, "certificate_expires_at": None, "icv": 0,
                "created_at": None, "updated_at": None}
    return {"object": "zatca_unit", "id": u.id, "status": u.status, "livemode": u.livemode, "vat_number": u.vat_number,
            "organization_name": u.organization_name, "organization_unit": u.organization_unit,
            "common_name": u.common_name, "invoice_types": u.invoice_types, "locale": u.locale,
            "certificate_serial": u.certificate_serial, "certificate_expires_at": iso(u.certificate_expires_at),
            "icv": u.icv, "created_at": iso(u.created_at), "updated_at": iso(u.updated_at)}


async def get_unit(*, principal: Principal) -> ZatcaUnit | None:
    return await lookup.first(ZatcaUnit, merchant_id=principal.merchant_id, livemode=principal.livemode)


def _refused(ans: api.Answer, what: str, param: str | None = None) -> ZatcaRefused:
    texts = "; ".join(f"{m['code']}: {m['message']}" if m["code"] else m["message"] for m in api.messages(ans.body))
    return ZatcaRefused(f"ZATCA refused the {what} (HTTP {ans.status}): {texts or 'no reason given'}", param=param)


async def onboard(*, principal: Principal, data: dict) -> ZatcaUnit:
    f = Fields(data)
    otp = f.str("otp", required=True, max_len=6)
    if not re.fullmatch(r"\d{6}", otp):
        raise ValidationError("otp must be the 6-digit one-time password from the Fatoora portal", param="otp")
    vat = check_vat(f.str("vat_number", required=True, max_len=15), "vat_number")
    org = f.str("organization_name", required=True, min_len=1, max_len=200)
    org_unit = f.str("organization_unit", required=True, min_len=1, max_len=200)
    common_name = f.str("common_name", required=True, min_len=1, max_len=200)
    types = f.enum("invoice_types", INVOICE_TYPES, default="1100")
    industry = f.str("industry", default="Retail", min_len=1, max_len=100)
    address = _address(f.obj("address"))
    locale = f.str("locale", default="ar-SA", max_len=35)
    if not re.fullmatch(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*", locale):
        raise ValidationError("locale must be a BCP 47 language tag, e.g. ar-SA or ar-SA-u-nu-arab", param="locale")
    f.reject_unknown()

    rt = runtime()
    key = keys.new_private_key()
    egs_uuid = str(uuid.uuid4())
    serial = f"1-{keys.SOLUTION}|2-{keys.MODEL}|3-{egs_uuid}"
    csr = keys.make_csr(key, common_name=common_name, vat_number=vat, organization=org,
                        organization_unit=org_unit, invoice_types=types, serial=egs_uuid, location=address.get("city") or "Riyadh", industry=industry,
                        environment="production" if principal.livemode else "sandbox")
    ans = await api.call("/compliance", livemode=principal.livemode, otp=otp, body={"csr": keys.csr_base64(csr)})
    if ans.status == 0 or ans.status >= 500:
        raise zatca_unavailable()
    if ans.status != 200 or not ans.body.get("binarySecurityToken"):
        raise _refused(ans, "onboarding", param="otp" if ans.body.get("code") == "Invalid-OTP" else None)
    compliance_auth = api.basic(ans.body["binarySecurityToken"], str(ans.body.get("secret") or ""))
    await _compliance_checks(key, ans.body["binarySecurityToken"], compliance_auth, livemode=principal.livemode,
                             types=types, vat=vat, organization=org, address=address, now=rt.clock.now())
    prod = await api.call("/production/csids", livemode=principal.livemode, authorization=compliance_auth,
                          body={"compliance_request_id": str(ans.body.get("requestID"))})
    if prod.status == 0 or prod.status >= 500:
        raise zatca_unavailable()
    if prod.status != 200 or not prod.body.get("binarySecurityToken"):
        raise _refused(prod, "production CSID request")
    token = prod.body["binarySecurityToken"]
    try:
        cert = simulator.certificate_of(token)
    except (ValueError, TypeError):
        raise ZatcaRefused("ZATCA's answer carried no readable certificate") from None
    if cert.public_key().public_numbers() != key.public_key().public_numbers():
        raise ZatcaRefused("ZATCA's certificate is not for this unit's key")
    now = rt.clock.now()
    async with in_transaction():
        unit = await ZatcaUnit.filter(merchant_id=principal.merchant_id, livemode=principal.livemode) \
            .select_for_update().first()
        unit_id = unit.id if unit else new_id("egs")
        fields = dict(status="onboarded", vat_number=vat, organization_name=org, organization_unit=org_unit,
                      common_name=common_name, invoice_types=types, egs_serial=serial, address=address,
                      industry=industry, locale=locale, certificate=_b64_der(cert), certificate_serial=format(cert.serial_number, "x"),
                      certificate_expires_at=cert.not_valid_after_utc, token=token,
                      secret_enc=keys.encrypt(rt.config.secret_key, str(prod.body.get("secret") or "").encode(),
                                              context=unit_id),
                      private_key_enc=keys.encrypt(rt.config.secret_key, keys.private_pem(key), context=unit_id),
                      updated_at=now)
        if unit is None:        # a new chain: ICV 0, PIH the hash of "0"
            unit = await ZatcaUnit.create(id=unit_id, merchant_id=principal.merchant_id, livemode=principal.livemode,
                                          icv=0, last_hash=FIRST_PIH, created_at=now, **fields)
        else:                   # a renewal: a new key and certificate, the same chain
            await ZatcaUnit.filter(id=unit.id).update(**fields)
            for k, v in fields.items():
                setattr(unit, k, v)
    return unit


def compliance_samples(*, types: str, vat: str, organization: str, address: dict, now) -> list[ubl.Document]:
    """The documents ZATCA wants checked before it issues a production CSID: an invoice, a credit
    note and a debit note of each type the unit issues (standard: types[0] == "1", simplified:
    types[1] == "1"). They are not part of the unit's chain."""
    out: list[ubl.Document] = []
    seller = ubl.Party(organization, vat, ubl.Address(**address))
    kinds = [k for k, on in ((False, types[0] == "1"), (True, types[1] == "1")) if on]
    for simplified in kinds:
        buyer = ubl.Party("Compliance check") if simplified else ubl.Party("Compliance check", "311111111111113")
        for n, kind in enumerate(("invoice", "credit_note", "debit_note"), start=1):
            out.append(ubl.Document(
                number=f"COMPLIANCE-{n}", uuid=str(uuid.uuid4()), issued_at=now, kind=kind, simplified=simplified,
                currency="SAR", icv=n, pih=FIRST_PIH, seller=seller, buyer=buyer,
                lines=[ubl.Line("Compliance check", 1, 10000, 10000)], subtotal=10000, tax=1500, total=11500,
                tax_rate=Decimal(15), billing_reference="COMPLIANCE-1" if kind != "invoice" else None,
                reason="Compliance check" if kind != "invoice" else None))
    return out


async def _compliance_checks(key, token: str, auth: str, *, livemode: bool, types: str, vat: str,
                             organization: str, address: dict, now) -> None:
    try:
        cert = simulator.certificate_of(token)
    except (ValueError, TypeError):
        raise ZatcaRefused("ZATCA's compliance CSID carried no readable certificate") from None
    for doc in compliance_samples(types=types, vat=vat, organization=organization, address=address, now=now):
        signed = signing.sign(doc, private_key=key, cert=cert, signing_time=now)
        ans = await api.call("/compliance/invoices", livemode=livemode, authorization=auth,
                             body={"invoiceHash": signed.hash, "uuid": doc.uuid,
                                   "invoice": base64.b64encode(signed.xml).decode("ascii")})
        if ans.status == 0 or ans.status >= 500:
            raise zatca_unavailable()
        if ans.status != 200:
            raise _refused(ans, f"compliance check of a {'simplified' if doc.simplified else 'standard'} "
                                f"{doc.kind.replace('_', ' ')}")


def _b64_der(cert: x509.Certificate) -> str:
    return base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode("ascii")
