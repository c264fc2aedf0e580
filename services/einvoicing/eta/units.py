"""Setting up the merchant's ETA unit (one per merchant and mode, `einvoice_units` with
authority "eta"): the taxpayer (RIN, name, branch and its address, activity code), the ERP
credentials and the signing key (sealed with QAFILA_SECRET_KEY, never returned or logged), the
certificate (test mode: a self-signed one when none is given), the POS for e-receipts and which
payments get one. Answers show the unit and the certificate's serial and expiry."""
from __future__ import annotations

import json
import re
from datetime import datetime
from urllib.parse import urlparse

from cryptography import x509
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.einvoicing import EinvoiceUnit
from services.einvoicing import core
from services.einvoicing.eta import signing
from services.errors import DomainError, ValidationError
from services.ids import new_id
from services.infra import clock
from services.infra.runtime import runtime
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

AUTHORITY = "eta"
RECEIPTS = ("all", "on_request")
_RIN = re.compile(r"\d{9}")
_ACTIVITY = re.compile(r"\d{4}")


class UnitUnreadable(DomainError):
    status = 409
    code = "eta_unit_unreadable"


def _address(f: Fields) -> dict:
    country = f.str("country", required=True, max_len=2)
    if country != "EG":
        raise ValidationError(f"{f.param('country')} must be EG (an Egyptian branch)", param=f.param("country"))
    out = {"country": country,
           "governate": f.str("governate", required=True, min_len=1, max_len=100),
           "region_city": f.str("region_city", required=True, min_len=1, max_len=100),
           "street": f.str("street", required=True, min_len=1, max_len=200),
           "building_number": f.str("building_number", required=True, min_len=1, max_len=100)}
    f.reject_unknown()
    return out


def parse(data: dict, *, livemode: bool) -> tuple[dict, dict, tuple[str, str] | None]:
    """(public settings, secrets, (certificate PEM, key PEM) or None), or a 400 naming the field."""
    f = Fields(data)
    rin = f.str("rin", required=True, max_len=9)
    if not _RIN.fullmatch(rin):
        raise ValidationError("rin must be the taxpayer's registration number: 9 digits", param="rin")
    name = f.str("name", required=True, min_len=1, max_len=200)
    bf = f.obj("branch", required=True)
    branch_id = bf.str("id", default="0", max_len=20)
    if not re.fullmatch(r"\d{1,20}", branch_id):
        raise ValidationError("branch.id must be the branch's number at ETA (digits; 0 for the head office)",
                              param="branch.id")
    af = bf.obj("address", required=True)
    address = _address(af)
    bf.reject_unknown()
    activity = f.str("activity_code", required=True, max_len=4)
    if not _ACTIVITY.fullmatch(activity):
        raise ValidationError("activity_code must be ETA's taxpayerActivityCode: 4 digits", param="activity_code")
    client_id = f.str("client_id", required=True, min_len=1, max_len=200)
    client_secret = f.str("client_secret", required=True, min_len=1, max_len=500)
    cert_pem = f.str("certificate", max_len=20000, strip=False)
    key_pem = f.str("private_key", max_len=20000, strip=False)
    pf = f.obj("pos")
    pos = None
    if pf is not None:
        pos = {"serial": pf.str("serial", required=True, min_len=1, max_len=100),
               "os_version": pf.str("os_version", required=True, min_len=1, max_len=100)}
        pf.reject_unknown()
    receipts = f.enum("receipts", RECEIPTS, default="on_request")
    default_code = f.str("default_item_code", min_len=1, max_len=100, pattern=re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*"))
    base_url = f.str("base_url", min_len=1, max_len=500)
    f.reject_unknown()
    if base_url is not None:
        parsed = urlparse(base_url)
        if parsed.scheme not in (("https",) if livemode else ("https", "http")) or not parsed.netloc \
                or parsed.query or parsed.fragment:
            raise ValidationError("base_url must be an https:// URL (http:// too in test mode) serving ETA's identity "
                                  "and invoicing API paths", param="base_url")
        base_url = base_url.rstrip("/")
    if (cert_pem is None) != (key_pem is None):
        missing = "private_key" if key_pem is None else "certificate"
        raise ValidationError(f"{missing} is required with {'certificate' if missing == 'private_key' else 'private_key'}",
                              param=missing)
    if cert_pem is None and livemode:
        raise ValidationError("certificate is required in live mode (the taxpayer's signing certificate, PEM)",
                              param="certificate")
    if receipts == "all" and pos is None:
        raise ValidationError("pos is required for e-receipts (receipts: all)", param="pos")
    settings = {"rin": rin, "name": name, "branch": {"id": branch_id, "address": address},
                "activity_code": activity, "pos": pos, "receipts": receipts,
                "default_item_code": default_code, "base_url": base_url}
    secrets = {"client_id": client_id, "client_secret": client_secret}
    return settings, secrets, (cert_pem, key_pem) if cert_pem is not None else None


def unit_object(u: EinvoiceUnit | None, principal: Principal) -> dict:
    s = (u.settings or {}) if u is not None else {}
    return {"object": "eta_unit", "id": u.id if u else None, "status": u.status if u else "not_set_up",
            "livemode": principal.livemode, "rin": s.get("rin"), "name": s.get("name"), "branch": s.get("branch"),
            "activity_code": s.get("activity_code"), "pos": s.get("pos"), "receipts": s.get("receipts"),
            "default_item_code": s.get("default_item_code"), "base_url": s.get("base_url"),
            "certificate_serial": s.get("certificate_serial"),
            "certificate_expires_at": s.get("certificate_expires_at"),
            "certificate_self_signed": s.get("certificate_self_signed"),
            "documents_issued": u.seq if u else 0, "receipts_issued": u.receipt_seq if u else 0,
            "created_at": iso(u.created_at) if u else None, "updated_at": iso(u.updated_at) if u else None}


async def get_unit(*, principal: Principal) -> EinvoiceUnit | None:
    return await lookup.first(EinvoiceUnit, merchant_id=principal.merchant_id, livemode=principal.livemode,
                              authority=AUTHORITY)


async def setup(*, principal: Principal, data: dict) -> EinvoiceUnit:
    settings, secrets, given = parse(data, livemode=principal.livemode)
    now = await clock.now_for(principal)
    if given is None:
        material = signing.self_signed(rin=settings["rin"], name=settings["name"], now=now)
        settings["certificate_self_signed"] = True
    else:
        try:
            material = signing.load(*given)
        except (ValueError, TypeError):
            raise ValidationError("certificate and private_key must be a PEM X.509 certificate and its RSA key "
                                  "(unencrypted PKCS#8 or PKCS#1)", param="private_key") from None
        if material.certificate.not_valid_after_utc <= now:
            raise ValidationError("certificate has expired", param="certificate")
        settings["certificate_self_signed"] = False
    cert = material.certificate
    settings.update(certificate=signing.certificate_pem(cert), certificate_serial=format(cert.serial_number, "x"),
                    certificate_expires_at=iso(cert.not_valid_after_utc))
    secrets["private_key"] = signing.private_pem(material.private_key)
    key = runtime().config.secret_key
    async with in_transaction():
        unit = await EinvoiceUnit.filter(merchant_id=principal.merchant_id, livemode=principal.livemode,
                                         authority=AUTHORITY).select_for_update().first()
        unit_id = unit.id if unit else new_id("eiu")
        sealed = core.seal(key, json.dumps(secrets).encode("utf-8"), context=unit_id)
        if unit is None:
            unit = await EinvoiceUnit.create(id=unit_id, merchant_id=principal.merchant_id,
                                             livemode=principal.livemode, authority=AUTHORITY, status="active",
                                             settings=settings, secrets_enc=sealed, created_at=now, updated_at=now)
        else:           # new credentials or certificate: the same chains go on
            await EinvoiceUnit.filter(id=unit.id).update(settings=settings, secrets_enc=sealed, status="active",
                                                         updated_at=now)
            unit.settings, unit.secrets_enc, unit.status, unit.updated_at = settings, sealed, "active", now
    return unit


def secrets_of(unit: EinvoiceUnit) -> dict:
    try:
        return json.loads(core.unseal(runtime().config.secret_key, unit.secrets_enc, context=unit.id))
    except Exception:  # noqa: BLE001 - a changed QAFILA_SECRET_KEY or a damaged row: set up again
        raise UnitUnreadable("This ETA unit's secrets cannot be read (was QAFILA_SECRET_KEY changed?); "
                             "set the unit up again") from None


def material_of(unit: EinvoiceUnit) -> signing.Material:
    return signing.load(unit.settings["certificate"], secrets_of(unit)["private_key"])


def certificate_of(unit: EinvoiceUnit) -> x509.Certificate:
    return x509.load_pem_x509_certificate(unit.settings["certificate"].encode("ascii"))


def expires(unit: EinvoiceUnit) -> datetime:
    return certificate_of(unit).not_valid_after_utc
