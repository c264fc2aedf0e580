"""Sub-merchants (`smr_`): the platform's sellers, their identity (type, legal name, tax id or
registration number by country), their payout details (an IBAN of their country checked by
`schwifty`, a holder name that is the legal name's words), fees, release and payout schedule,
and what they still owe us (`requirements`)."""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from schwifty import BIC, IBAN
from schwifty import exceptions as iban_errors
from tortoise.transactions import in_transaction

from models.marketplace import SubMerchant
from services import events, scheduler
from services import tax_ids
from services.errors import NotFound, ValidationError
from services.ids import new_id
from services.infra import clock
from services.money import markets
from services.money.marketplace import seller_ledger
from services.pagination import Page, check_limit, paginate
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields, check_str, one_of

TYPES = ("individual", "sole_proprietor", "company")
COUNTRY_CURRENCY = {"SA": "SAR", "AE": "AED", "KW": "KWD", "BH": "BHD", "QA": "QAR", "OM": "OMR", "JO": "JOD",
                    "EG": "EGP", "TR": "TRY"}
COUNTRIES = tuple(COUNTRY_CURRENCY)
TAX_ID_COUNTRIES = ("SA", "TR", "EG")
INTERVALS = ("daily", "weekly", "monthly", "manual")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
STATUSES = ("active", "restricted", "disabled")
DEFAULT_PURPOSE = "SUPP"
PAST_DUE_AFTER = timedelta(days=30)
IBAN_CHANGE_HOLD = timedelta(hours=72)
MAX_RELEASE_DAYS = 90
_PURPOSE = re.compile(r"[A-Z]{4}")
_WORD = re.compile(r"\w+", re.UNICODE)


# ---------------------------------------------------------------- answers

def requirements(s: SubMerchant, now: datetime) -> dict:
    """What the seller still owes: payout details (`payout.iban`, `payout.holder_name`), due from its
    creation (or from a returned payout), past due 30 days later."""
    due: list[str] = []
    payout = s.payout or {}
    if not payout.get("iban") or s.iban_due:
        due.append("payout.iban")
    if not payout.get("holder_name"):
        due.append("payout.holder_name")
    since = s.due_since or s.created_at
    past = bool(due) and now >= since + PAST_DUE_AFTER
    return {"currently_due": due, "past_due": list(due) if past else [],
            "disabled_reason": "requirements.past_due" if past else None}


def status_of(s: SubMerchant, now: datetime) -> str:
    req = requirements(s, now)
    return "disabled" if req["past_due"] else "restricted" if req["currently_due"] else "active"


def payouts_enabled(s: SubMerchant, now: datetime) -> bool:
    return status_of(s, now) == "active" and (s.payout_hold_until is None or now >= s.payout_hold_until)


def sub_merchant_object(s: SubMerchant, now: datetime) -> dict:
    payout = s.payout or {}
    return {"id": s.id, "object": "sub_merchant", "type": s.type, "legal_name": s.legal_name, "email": s.email,
            "country": s.country, "currency": s.currency, "address": s.address, "external_id": s.external_id,
            "tax_id": s.tax_id, "registration_number": s.registration_number,
            "payout": {"iban": payout.get("iban"), "holder_name": payout.get("holder_name"),
                       "bic": payout.get("bic"), "purpose": payout.get("purpose") or DEFAULT_PURPOSE,
                       "hold_until": iso(s.payout_hold_until) if s.payout_hold_until and s.payout_hold_until > now
                       else None},
            "default_fee": s.default_fee, "auto_release_days": s.auto_release_days,
            "payout_schedule": s.payout_schedule, "status": status_of(s, now),
            "payouts_enabled": payouts_enabled(s, now), "requirements": requirements(s, now),
            "livemode": s.livemode, "created_at": iso(s.created_at), "updated_at": iso(s.updated_at)}


# ---------------------------------------------------------------- checks

def check_iban(value: Any, param: str, country: str | None = None) -> str:
    """Spaceless, upper case; 400 `invalid_iban` naming `param` with the reason (length, check
    digits, structure, country)."""
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{param} is required", param=param)
    if len(value) > 64:
        raise ValidationError(f"{param} is not a valid IBAN: too long", param=param, code="invalid_iban")
    try:
        iban = IBAN(value.strip())
    except iban_errors.InvalidLength:
        raise ValidationError(f"{param} is not a valid IBAN: its length is wrong for its country", param=param,
                              code="invalid_iban") from None
    except iban_errors.InvalidChecksumDigits:
        raise ValidationError(f"{param} is not a valid IBAN: its check digits (mod 97) are wrong", param=param,
                              code="invalid_iban") from None
    except iban_errors.InvalidCountryCode:
        raise ValidationError(f"{param} is not a valid IBAN: unknown country code", param=param,
                              code="invalid_iban") from None
    except iban_errors.SchwiftyException as exc:
        raise ValidationError(f"{param} is not a valid IBAN: its format is wrong ({exc})", param=param,
                              code="invalid_iban") from None
    if country is not None and iban.country_code != country:
        raise ValidationError(f"{param} is not a valid IBAN: it is of {iban.country_code}, the sub-merchant's "
                              f"country is {country}", param=param, code="invalid_iban")
    return iban.compact


def check_bic(value: Any, param: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ValidationError(f"{param} must be a BIC (8 or 11 characters)", param=param)
    try:
        return str(BIC(value.strip()).compact)
    except iban_errors.SchwiftyException:
        raise ValidationError(f"{param} is not a valid BIC (8 or 11 characters: bank, country, location"
                              "[, branch])", param=param, code="invalid_bic") from None


def words(name: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(name.replace("_", " "))]


def check_percent(value: Any, param: str) -> str:
    if not isinstance(value, str) or not re.fullmatch(r"\d{1,3}(\.\d{1,4})?", value.strip()):
        raise ValidationError(f"{param} must be a decimal string from 0 to 100 (up to 4 decimals), e.g. \"2.5\"",
                              param=param)
    try:
        d = Decimal(value.strip())
    except InvalidOperation:
        raise ValidationError(f"{param} must be a decimal string", param=param) from None
    if d > 100:
        raise ValidationError(f"{param} must be at most 100", param=param)
    return format(d.normalize(), "f") if d else "0"


def _address(f: Fields) -> dict:
    out = {"line1": f.str("line1", required=True, min_len=1, max_len=200),
           "line2": f.str("line2", max_len=200), "city": f.str("city", required=True, min_len=1, max_len=100),
           "postal_code": f.str("postal_code", max_len=20)}
    f.reject_unknown()
    return out


def _fee(f: Fields, current: dict | None) -> dict:
    out = dict(current or {"percent": "0", "fixed": 0})
    if f.has("percent"):
        out["percent"] = check_percent(f._get("percent", True), f.param("percent"))
    if f.has("fixed"):
        out["fixed"] = f.int("fixed", min=0)
    f.reject_unknown()
    return out


def _schedule(f: Fields, current: dict | None) -> dict:
    out = dict(current or DEFAULT_SCHEDULE)
    interval = f.enum("interval", INTERVALS)
    if interval is not None:
        out["interval"] = interval
    weekly = f.enum("weekly_anchor", WEEKDAYS)
    if weekly is not None:
        out["weekly_anchor"] = weekly
    monthly = f.int("monthly_anchor", min=1, max=31)
    if monthly is not None:
        out["monthly_anchor"] = monthly
    for k in ("minimum", "reserve"):
        v = f.int(k, min=0)
        if v is not None:
            out[k] = v
    f.reject_unknown()
    return out


DEFAULT_SCHEDULE = {"interval": "daily", "weekly_anchor": "monday", "monthly_anchor": 1, "minimum": 0, "reserve": 0}


def _check_identity(*, kind: str, country: str, tax_id: dict | None, registration_number: str | None) -> None:
    """Per type and country: companies and sole proprietors have a tax id in SA (sa_vat), TR (tr_vkn
    with its tax office, or a sole proprietor's tr_tckn) and EG (eg_rin), a registration number
    elsewhere; a Turkish individual has a tr_tckn."""
    allowed: tuple[str, ...] = ()
    if country == "SA":
        allowed = ("sa_vat",)
    elif country == "TR":
        allowed = {"company": ("tr_vkn",), "sole_proprietor": ("tr_vkn", "tr_tckn"),
                   "individual": ("tr_tckn",)}[kind]
    elif country == "EG":
        allowed = ("eg_rin",)
    needs_tax_id = country in TAX_ID_COUNTRIES and (kind != "individual" or country == "TR")
    if tax_id is not None:
        if country not in TAX_ID_COUNTRIES:
            raise ValidationError(f"tax_id is for sub-merchants of {', '.join(TAX_ID_COUNTRIES)}; in {country} give "
                                  "registration_number", param="tax_id")
        if tax_id["type"] not in allowed:
            raise one_of("tax_id.type", allowed, context=f"for a {kind} of {country}")
        if tax_id["type"] == "tr_vkn" and not tax_id.get("tax_office"):
            raise ValidationError("tax_id.tax_office is required with a tr_vkn", param="tax_id.tax_office")
    elif needs_tax_id:
        raise ValidationError(f"tax_id is required for a {kind} of {country} ({' or '.join(allowed)})",
                              param="tax_id")
    if kind != "individual" and country not in TAX_ID_COUNTRIES and not registration_number:
        raise ValidationError(f"registration_number is required for a {kind} of {country}",
                              param="registration_number")


def _payout(f: Fields, current: dict | None, *, country: str) -> dict:
    out = dict(current or {})
    if f.has("iban"):
        out["iban"] = check_iban(f._get("iban", True), f.param("iban"), country)
    if f.has("holder_name"):
        out["holder_name"] = f.str("holder_name", min_len=1, max_len=140)
    if "bic" in f.data:
        f.seen.add("bic")
        out["bic"] = check_bic(f.data["bic"], f.param("bic"))
    if f.has("purpose"):
        purpose = f.str("purpose", max_len=4)
        if not _PURPOSE.fullmatch(purpose or ""):
            raise ValidationError(f"{f.param('purpose')} must be an ISO 20022 purpose code: 4 capital letters "
                                  "(SUPP, SALA, ...)", param=f.param("purpose"))
        out["purpose"] = purpose
    f.reject_unknown()
    out.setdefault("purpose", DEFAULT_PURPOSE)
    out.setdefault("bic", None)
    if out.get("iban") and not out.get("holder_name"):
        raise ValidationError("payout.holder_name is required with payout.iban", param="payout.holder_name")
    if out.get("holder_name") and not out.get("iban"):
        raise ValidationError("payout.iban is required with payout.holder_name", param="payout.iban")
    return out


def _check_holder(payout: dict | None, legal_name: str) -> None:
    holder = (payout or {}).get("holder_name")
    if holder and words(holder) != words(legal_name):
        raise ValidationError("payout.holder_name must be the legal_name (case, spacing and punctuation aside)",
                              param="payout.holder_name", code="holder_name_mismatch")


# ---------------------------------------------------------------- create, update, read

async def create_sub_merchant(*, principal: Principal, data: Any) -> SubMerchant:
    f = Fields(data)
    kind = f.enum("type", TYPES, required=True)
    legal_name = f.str("legal_name", required=True, min_len=1, max_len=200)
    email = f.email("email", required=True)
    country = f.enum("country", COUNTRIES, required=True)
    address = _address(f.obj("address", required=True))
    external_id = f.str("external_id", max_len=200)
    _, tax_id = tax_ids.read(f)
    registration_number = f.str("registration_number", min_len=1, max_len=64)
    payout_f = f.obj("payout")
    payout = _payout(payout_f, None, country=country) if payout_f is not None else None
    fee_f = f.obj("default_fee")
    fee = _fee(fee_f, None) if fee_f is not None else {"percent": "0", "fixed": 0}
    release_days = f.int("auto_release_days", min=1, max=MAX_RELEASE_DAYS)
    sched_f = f.obj("payout_schedule")
    schedule = _schedule(sched_f, None) if sched_f is not None else dict(DEFAULT_SCHEDULE)
    f.reject_unknown()
    _check_identity(kind=kind, country=country, tax_id=tax_id, registration_number=registration_number)
    _check_holder(payout, legal_name)
    now = await clock.now_for(principal)
    s = SubMerchant(id=new_id("smr"), merchant_id=principal.merchant_id, livemode=principal.livemode, type=kind,
                    legal_name=legal_name, email=email, country=country, currency=COUNTRY_CURRENCY[country],
                    address=address, external_id=external_id, tax_id=tax_id, registration_number=registration_number,
                    payout=payout, default_fee=fee, auto_release_days=release_days, payout_schedule=schedule,
                    due_since=None if payout else now, last_payout_on=await today_of(principal.merchant_id, now), created_at=now,
                    updated_at=now)
    async with in_transaction():
        await s.save(force_create=True)
        await events.emit(merchant_id=s.merchant_id, livemode=s.livemode, type="sub_merchant.updated",
                          obj=sub_merchant_object(s, now))
    return s


async def update_sub_merchant(*, principal: Principal, sub_merchant_id: str, data: Any) -> SubMerchant:
    """PUT: the fields given; `type` and `country` are fixed once set (a different value is a 400).
    A changed IBAN holds payouts for 72 hours."""
    f = Fields(data)
    async with in_transaction():
        s = await SubMerchant.filter(id=sub_merchant_id, **principal.scope).select_for_update().first()
        if s is None:
            raise NotFound()
        kind = f.enum("type", TYPES)
        if kind is not None and kind != s.type:
            raise ValidationError(f"type is fixed once set (it is {s.type})", param="type")
        country = f.enum("country", COUNTRIES)
        if country is not None and country != s.country:
            raise ValidationError(f"country is fixed once set (it is {s.country}): its currency pays the splits",
                                  param="country")
        legal_name = f.str("legal_name", min_len=1, max_len=200) or s.legal_name
        email = f.email("email") or s.email
        address_f = f.obj("address")
        address = _address(address_f) if address_f is not None else s.address
        external_id = f.str("external_id", max_len=200) if "external_id" in f.data else s.external_id
        f.seen.add("external_id")
        given, tax_id = tax_ids.read(f)
        tax_id = tax_id if given else s.tax_id
        registration_number = (f.str("registration_number", min_len=1, max_len=64)
                               if "registration_number" in f.data else s.registration_number)
        f.seen.add("registration_number")
        payout_f = f.obj("payout")
        payout = _payout(payout_f, s.payout, country=s.country) if payout_f is not None else s.payout
        fee_f = f.obj("default_fee")
        fee = _fee(fee_f, s.default_fee) if fee_f is not None else s.default_fee
        if "auto_release_days" in f.data:
            f.seen.add("auto_release_days")
            release_days = f.int("auto_release_days", min=1, max=MAX_RELEASE_DAYS)
        else:
            release_days = s.auto_release_days
        sched_f = f.obj("payout_schedule")
        schedule = _schedule(sched_f, s.payout_schedule) if sched_f is not None else s.payout_schedule
        f.reject_unknown()
        _check_identity(kind=s.type, country=s.country, tax_id=tax_id, registration_number=registration_number)
        _check_holder(payout, legal_name)
        now = await clock.now_for(principal)
        old_iban = (s.payout or {}).get("iban")
        new_iban = (payout or {}).get("iban")
        if old_iban and new_iban and new_iban != old_iban:
            s.payout_hold_until = now + IBAN_CHANGE_HOLD
        if new_iban and s.iban_due and (new_iban != old_iban or payout_f is not None and payout_f.has("iban")):
            s.iban_due = False
        if not new_iban and s.due_since is None:
            s.due_since = now
        (s.legal_name, s.email, s.address, s.external_id, s.tax_id, s.registration_number, s.payout, s.default_fee,
         s.auto_release_days, s.payout_schedule, s.updated_at) = (
            legal_name, email, address, external_id, tax_id, registration_number, payout, fee, release_days,
            schedule, now)
        await s.save()
        await events.emit(merchant_id=s.merchant_id, livemode=s.livemode, type="sub_merchant.updated",
                          obj=sub_merchant_object(s, now))
    return s


async def get_sub_merchant(*, principal: Principal, sub_merchant_id: str) -> SubMerchant:
    s = await SubMerchant.get_or_none(id=sub_merchant_id, **principal.scope) \
        if isinstance(sub_merchant_id, str) else None
    if s is None:
        raise NotFound()
    return s


async def list_sub_merchants(*, principal: Principal, limit=None, starting_after: str | None = None,
                             external_id: str | None = None) -> Page:
    qs = SubMerchant.filter(**principal.scope)
    if external_id:
        qs = qs.filter(external_id=check_str(external_id, "external_id", max_len=200))
    return await paginate(qs, limit=check_limit(limit), starting_after=starting_after)


async def now_for(principal: Principal) -> datetime:
    return await clock.now_for(principal)


async def today_of(merchant_id: str, now: datetime):
    """The platform's local day at `now` (its market's time zone)."""
    return markets.local_date(await markets.market_of(merchant_id), now)


async def balances_of(*, principal: Principal, ids: list[str]) -> dict[str, dict]:
    """The balance objects of several sellers of the caller (GraphQL's SubMerchant.balance loader)."""
    subs = await SubMerchant.filter(id__in=ids, **principal.scope)
    today = await today_of(principal.merchant_id, await now_for(principal))
    found = await seller_ledger.buckets_of(subs, today)
    return {s.id: seller_ledger.balance_object(s, found[s.id]) for s in subs}


async def get_balance(*, principal: Principal, sub_merchant_id: str) -> dict:
    s = await get_sub_merchant(principal=principal, sub_merchant_id=sub_merchant_id)
    today = await today_of(principal.merchant_id, await now_for(principal))
    return seller_ledger.balance_object(s, await seller_ledger.buckets(s, today))


# ---------------------------------------------------------------- past due (a scheduler job)

async def _due_past(scope: scheduler.Scope, until: datetime, limit: int) -> list[tuple[datetime, str]]:
    rows = await (scope.apply(SubMerchant.filter(due_since__lte=until - PAST_DUE_AFTER,
                                                 past_due_notified_at__isnull=True))
                  .order_by("due_since").limit(limit).values_list("due_since", "id"))
    return [(since + PAST_DUE_AFTER, sid) for since, sid in rows]


async def notify_past_due(sub_merchant_id: str, due: datetime) -> str | None:
    """A seller's payout details became past due: it is disabled now, `sub_merchant.updated` says so
    (once per due period; none when the details came in meanwhile)."""
    async with in_transaction():
        s = await SubMerchant.filter(id=sub_merchant_id).select_for_update(skip_locked=True).first()
        if s is None or s.past_due_notified_at is not None or s.due_since is None \
                or s.due_since + PAST_DUE_AFTER > due:
            return None
        await SubMerchant.filter(id=s.id).update(past_due_notified_at=due)
        if not requirements(s, due)["past_due"]:
            return f"{s.id}: nothing past due"
        await events.emit(merchant_id=s.merchant_id, livemode=s.livemode, type="sub_merchant.updated",
                          obj=sub_merchant_object(s, due))
    return f"{s.id}: disabled, requirements past due"


def register_jobs() -> None:
    scheduler.register(scheduler.JobKind("marketplace.past_due", _due_past, notify_past_due))
