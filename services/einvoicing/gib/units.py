"""The merchant's GİB unit (one per merchant and mode, `EinvoiceUnit` with authority `gib`): the
seller as its documents name it (VKN or TCKN, ünvan, vergi dairesi, address), the number prefix,
the e-Arşiv web address, the KDV rate of payments that ask for an invoice, the e-Fatura profile,
and the integrator (özel entegratör) that signs and sends: `sandbox` in test mode (built in, see
sandbox.py), or `{url, username, password}`, whose credentials are sealed with QAFILA_SECRET_KEY
and never shown, logged or put in an event."""
from __future__ import annotations

import json
import re
from decimal import Decimal
from urllib.parse import urlparse

from cryptography.exceptions import InvalidTag
from tortoise.transactions import in_transaction

from models import _lookup as lookup
from models.einvoicing import EinvoiceUnit
from services.einvoicing import core
from services.einvoicing.gib import ids, integrator
from services.errors import DomainError, ServiceUnavailable, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

AUTHORITY = "gib"
PROFILES = ("TICARIFATURA", "TEMELFATURA")
KDV_RATES = (20, 10, 1, 0)
_PREFIX = re.compile(r"[A-Z0-9]{3}")
_POSTAL = re.compile(r"\d{5}")


class UnitUnreadable(DomainError):
    status = 409
    code = "gib_unit_unreadable"


def _address(f: Fields | None) -> dict:
    if f is None:
        raise ValidationError("address is required", param="address")
    out = {"street": f.str("street", required=True, min_len=1, max_len=127),
           "building_number": f.str("building_number", max_len=16),
           "district": f.str("district", required=True, min_len=1, max_len=127),
           "city": f.str("city", required=True, min_len=1, max_len=127),
           "postal_code": f.str("postal_code", required=True, max_len=5),
           "country": f.str("country", default="TR", max_len=2)}
    f.reject_unknown()
    if not _POSTAL.fullmatch(out["postal_code"]):
        raise ValidationError("address.postal_code must be 5 digits", param="address.postal_code")
    if out["country"] != "TR":
        raise ValidationError("address.country must be TR (a Turkish seller)", param="address.country")
    return {k: v for k, v in out.items() if v}


def _integrator(raw, livemode: bool) -> tuple[dict, dict]:
    """(public description, secrets) of the integrator setting."""
    if raw is None or raw == "sandbox":
        if livemode:
            raise ValidationError("integrator must be your integrator's {url, username, password} in live mode "
                                  "(the sandbox is for test mode)", param="integrator")
        return {"kind": "sandbox"}, {}
    if not isinstance(raw, dict):
        raise ValidationError('integrator must be "sandbox" or {url, username, password}', param="integrator")
    f = Fields(raw, "integrator")
    url = f.str("url", required=True, max_len=500)
    username = f.str("username", required=True, min_len=1, max_len=200)
    password = f.str("password", required=True, min_len=1, max_len=500, strip=False)
    f.reject_unknown()
    parsed = urlparse(url)
    if parsed.scheme not in (("https",) if livemode else ("https", "http")) or not parsed.netloc:
        raise ValidationError("integrator.url must be an https:// URL (http:// too in test mode)",
                              param="integrator.url")
    return {"kind": "integrator", "url": url, "username": username}, {"password": password}


def parse_setup(data, livemode: bool) -> tuple[dict, dict]:
    f = Fields(data)
    vkn, tckn = f.str("vkn", max_len=10), f.str("tckn", max_len=11)
    if vkn and tckn:
        raise ValidationError("give vkn (a company) or tckn (a sole trader), not both", param="tckn")
    if not vkn and not tckn:
        raise ValidationError("vkn is required (or tckn, for a sole trader)", param="vkn")
    if vkn:
        ids.check_vkn(vkn, "vkn")
    else:
        ids.check_tckn(tckn, "tckn")
    title = f.str("title", required=True, min_len=1, max_len=200)
    tax_office = f.str("tax_office", required=True, min_len=1, max_len=100)
    address = _address(f.obj("address", required=True))
    prefix = f.str("prefix", required=True, max_len=3)
    if not _PREFIX.fullmatch(prefix):
        raise ValidationError("prefix must be 3 upper-case letters or digits, e.g. QAF", param="prefix")
    website = f.str("website", max_len=200)
    if website is not None:
        p = urlparse(website if "://" in website else "https://" + website)
        if p.scheme not in ("http", "https") or "." not in (p.netloc or ""):
            raise ValidationError("website must be a web address, e.g. https://shop.example.com.tr", param="website")
    f.seen.add("kdv_rate")
    rate = data.get("kdv_rate")
    rate = 20 if rate is None else rate                  # null: not given, as every optional field
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or Decimal(str(rate)) not in KDV_RATES:
        raise ValidationError("kdv_rate must be one of 20, 10, 1, 0 (percent)", param="kdv_rate")
    profile = f.enum("efatura_profile", PROFILES, default="TICARIFATURA")
    f.seen.add("integrator")
    public, secrets = _integrator(data.get("integrator"), livemode)
    f.reject_unknown()
    settings = {"vkn": vkn, "tckn": tckn, "title": title, "tax_office": tax_office, "address": address,
                "prefix": prefix, "website": website, "kdv_rate": int(Decimal(str(rate))),
                "efatura_profile": profile, "integrator": public}
    return settings, secrets


async def setup(*, principal: Principal, data) -> EinvoiceUnit:
    settings, secrets = parse_setup(data, principal.livemode)
    now = await core.now_of(principal.merchant_id, principal.livemode)
    rt = runtime()
    async with in_transaction():
        unit = await EinvoiceUnit.filter(merchant_id=principal.merchant_id, livemode=principal.livemode,
                                         authority=AUTHORITY).select_for_update().first()
        unit_id = unit.id if unit else new_id("eiu")
        sealed = core.seal(rt.config.secret_key, json.dumps(secrets).encode(), context=unit_id) if secrets else ""
        if unit is None:
            unit = await EinvoiceUnit.create(id=unit_id, merchant_id=principal.merchant_id,
                                             livemode=principal.livemode, authority=AUTHORITY, status="active",
                                             settings=settings, secrets_enc=sealed, seq=0, created_at=now,
                                             updated_at=now)
        else:                       # new settings, the same numbering
            await EinvoiceUnit.filter(id=unit.id).update(settings=settings, secrets_enc=sealed, status="active",
                                                         updated_at=now)
            unit.settings, unit.secrets_enc, unit.status, unit.updated_at = settings, sealed, "active", now
    return unit


def secrets_of(unit: EinvoiceUnit) -> dict:
    if not unit.secrets_enc:
        return {}
    try:
        return json.loads(core.unseal(runtime().config.secret_key, unit.secrets_enc, context=unit.id))
    except (InvalidTag, ValueError):
        raise UnitUnreadable("The GİB unit's integrator credentials cannot be read with the current "
                             "QAFILA_SECRET_KEY (was it changed?): set the unit up again "
                             "(POST /api/einvoicing/gib/setup)") from None


async def get_unit(*, principal: Principal) -> EinvoiceUnit | None:
    return await lookup.first(EinvoiceUnit, merchant_id=principal.merchant_id, livemode=principal.livemode,
                              authority=AUTHORITY)


def number_of(prefix: str, year: int, seq: int) -> str:
    return f"{prefix}{year}{seq:09d}"


def next_number(unit: EinvoiceUnit, year: int) -> str:
    seq = unit.seq + 1 if unit.seq_year == year else 1
    return number_of(unit.settings["prefix"], year, seq)


def unit_object(u: EinvoiceUnit | None, principal: Principal, *, year: int | None = None) -> dict:
    if u is None:
        return {"object": "gib_unit", "id": None, "status": "not_set_up", "livemode": principal.livemode,
                "vkn": None, "tckn": None, "title": None, "tax_office": None, "address": None, "prefix": None,
                "website": None, "kdv_rate": None, "efatura_profile": None, "integrator": None, "next_number": None,
                "created_at": None, "updated_at": None}
    s = u.settings
    integ = s["integrator"]
    shown = "sandbox" if integ["kind"] == "sandbox" else {"url": integ["url"], "username": integ["username"]}
    return {"object": "gib_unit", "id": u.id, "status": u.status, "livemode": u.livemode, "vkn": s.get("vkn"),
            "tckn": s.get("tckn"), "title": s["title"], "tax_office": s["tax_office"], "address": s["address"],
            "prefix": s["prefix"], "website": s.get("website"), "kdv_rate": s["kdv_rate"],
            "efatura_profile": s["efatura_profile"], "integrator": shown,
            "next_number": next_number(u, year) if year else None,
            "created_at": iso(u.created_at), "updated_at": iso(u.updated_at)}


async def unit_view(*, principal: Principal) -> dict:
    from services.einvoicing.gib import ubl

    unit = await get_unit(principal=principal)
    now = await core.now_of(principal.merchant_id, principal.livemode)
    return unit_object(unit, principal, year=ubl.local(now).year)


def taxpayer_object(vkn: str, found: dict | None) -> dict:
    return {"object": "gib_taxpayer", "vkn": vkn, "registered": bool(found),
            "title": (found or {}).get("title"), "alias": (found or {}).get("alias"),
            "type": "efatura" if found else None}


async def taxpayer(*, principal: Principal, vkn: str) -> dict:
    """Whether `vkn` (or a TCKN) is registered for e-Fatura, as the unit's integrator answers
    (the sandbox in test mode without a unit)."""
    ids.check_number(vkn, "vkn")
    unit = await get_unit(principal=principal)
    if unit is None and principal.livemode:
        raise ValidationError("Set the GİB unit up first (POST /api/einvoicing/gib/setup): the taxpayer list is "
                              "your integrator's", param="vkn", code="gib_not_set_up")
    try:
        found = await integrator.lookup(unit, vkn, livemode=principal.livemode,
                                        secrets=secrets_of(unit) if unit else {})
    except integrator.Unreachable:
        raise ServiceUnavailable("The GİB integrator could not be reached; try again shortly",
                                 code="gib_unavailable", headers={"Retry-After": "60"}) from None
    return taxpayer_object(vkn, found)
