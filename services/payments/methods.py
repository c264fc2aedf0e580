"""The one registry of payment method types: for each, the currencies it serves, its flow
(card, redirect, reference, otp, ...), display names (ar, en, tr), the fee it costs the
merchant (basis points + fixed part, capped, per currency), its amount limits, the providers
that carry it and its sandbox values.

REST (`GET /v1/payment_method_types`), GraphQL (`paymentMethodTypes`), the `/v1` intents, the
`/api` payments, pricing, routing, the hosted checkout and the client libraries read this
table; none keeps a list of its own. Configuration replaces fees and limits (`configure`).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from services.errors import ValidationError
from services.validation import one_of
from services.money import currencies as money
from services.money.currencies import AmountLimit, CURRENCIES


@dataclass(frozen=True)
class MethodFee:
    """What a method costs the merchant: `bps` of the amount plus `fixed[currency]` (minor
    units), at most `cap[currency]` (minor units) when the currency has a cap."""
    bps: int
    fixed: dict[str, int] = field(default_factory=dict)
    cap: dict[str, int] = field(default_factory=dict)

    @property
    def rate(self) -> Decimal:
        return Decimal(self.bps) / 10_000


@dataclass(frozen=True)
class Method:
    type: str
    flow: str                          # card | card_present | redirect | reference | otp | request_to_pay | crypto | cod | qr | wallet | bnpl
    currencies: tuple[str, ...]
    names: dict[str, str]              # ar, en, tr
    fee: MethodFee
    limits: dict[str, AmountLimit] = field(default_factory=dict)   # tighter than the currency's, if any
    country: str | None = None         # the scheme's home country (routing eligibility), None: any
    api: bool = False                  # /api/payments/create takes it (no buyer step)
    checkout: bool = False             # the hosted checkout offers it
    checkout_first: tuple[str, ...] = ()   # currencies whose checkout offers it first (most buyers pay so)
    sandbox: dict[str, Any] = field(default_factory=dict)
    # BNPL (services.payments.bnpl): how the order is split ({"installments", "interval",
    # "interval_count"}) and the BNPL provider that carries it (not a card acquirer of the routing)
    schedule: dict[str, Any] | None = None
    provider: str | None = None

    def limit(self, currency: str) -> AmountLimit:
        base = money.LIMITS[currency]
        own = self.limits.get(currency)
        if own is None:
            return base
        return AmountLimit(max(base.minimum, own.minimum), min(base.maximum, own.maximum))

    @property
    def needs_buyer(self) -> bool:
        """The buyer has a step of their own (a bank page, a kiosk, a one-time code)."""
        return self.flow in ("redirect", "reference", "otp", "bnpl", "request_to_pay")


_ALL = CURRENCIES
_WALLET_CURRENCIES = tuple(c for c in CURRENCIES if c != "IQD")
_CARD_FIXED = {"TRY": 25, "SAR": 25, "AED": 25, "QAR": 25, "KWD": 25, "EGP": 100, "IQD": 250,
               "BHD": 25, "OMR": 25, "JOD": 25, "USD": 10}

DEFAULT_METHODS: tuple[Method, ...] = (
    Method("card", "card", _ALL, {"ar": "بطاقة", "en": "Card", "tr": "Kart"},
           MethodFee(290, dict(_CARD_FIXED)), api=True, checkout=True,
           sandbox={"cards": {"approved": "4242424242424242", "declined": "4000000000000002",
                              "three_d_secure": "4000002500003155"}}),
    Method("crypto", "crypto", _ALL, {"ar": "عملات رقمية", "en": "Crypto", "tr": "Kripto"}, MethodFee(100)),
    Method("cod", "cod", ("TRY", "SAR", "AED", "KWD", "QAR", "EGP", "IQD"),
           {"ar": "الدفع عند الاستلام", "en": "Cash on delivery", "tr": "Kapıda ödeme"},
           MethodFee(350, {"TRY": 500, "SAR": 500, "AED": 500, "QAR": 500, "KWD": 500, "EGP": 2000, "IQD": 5000})),
    Method("qr", "qr", _ALL, {"ar": "رمز QR", "en": "QR code", "tr": "QR kod"}, MethodFee(150)),
    Method("tap_to_pay", "card_present", _ALL, {"ar": "الدفع باللمس", "en": "Tap to pay", "tr": "Temassız ödeme"},
           MethodFee(249, {"TRY": 10, "SAR": 10, "AED": 10, "QAR": 10, "KWD": 10, "EGP": 50, "IQD": 100,
                           "BHD": 10, "OMR": 10, "JOD": 10, "USD": 5})),
    Method("mada", "card", ("SAR",), {"ar": "مدى", "en": "mada", "tr": "mada"},
           MethodFee(80, {}, {"SAR": 20_000}), country="SA", api=True, checkout=True,
           sandbox={"cards": {"approved": "5888450000000003", "approved_co_badged_visa": "4464040000000007",
                              "insufficient_funds": "9682010000000005"}}),
    # Troy (Turkey's scheme): a Troy card paying TRY (Troy acquirers, Troy's fee, always 3-D Secure).
    # Which numbers are Troy: the Turkish BIN table (services.payments.card_bins).
    Method("troy", "card", ("TRY",), {"ar": "تروي", "en": "Troy", "tr": "Troy"},
           MethodFee(190, {"TRY": 25}), country="TR", api=True, checkout=True,
           sandbox={"cards": {"approved_credit_axess": "9792072000017956",
                              "approved_credit_cardfinans": "9792030000000000",
                              "approved_debit": "9792020000000001", "approved_prepaid": "9792395412651264",
                              "approved_global_credit_world": "6501700194147183",
                              "approved_global_debit": "6500528865390837"}}),
    # Meeza (Egypt's scheme): EGP only, purchase only (no separate capture), always 3-D Secure.
    Method("meeza", "card", ("EGP",), {"ar": "ميزة", "en": "Meeza", "tr": "Meeza"},
           MethodFee(150, {"EGP": 100}), country="EG", api=True, checkout=True,
           sandbox={"cards": {"approved": "5078036246600381", "approved_2": "5078086700053445",
                              "insufficient_funds": "5078036231985581", "expired_card": "5078036242783546"}}),
    Method("knet", "redirect", ("KWD",), {"ar": "كي نت", "en": "KNET", "tr": "KNET"},
           MethodFee(100, {"KWD": 100}, {"KWD": 2_000}), limits={"KWD": AmountLimit(100, 3_000_000)},
           country="KW", checkout=True, checkout_first=("KWD",),
           sandbox={"cards": {"approved": "8888880000000001", "declined": "8888880000000002"}, "pin": "1234"}),
    Method("benefit", "redirect", ("BHD",), {"ar": "بنفت باي", "en": "BenefitPay", "tr": "BenefitPay"},
           MethodFee(100, {"BHD": 100}, {"BHD": 2_000}), country="BH", checkout=True, checkout_first=("BHD",),
           sandbox={"cards": {"approved": "8888880000000001", "declined": "8888880000000002"}, "pin": "1234"}),
    Method("fawry", "reference", ("EGP",), {"ar": "فوري", "en": "Fawry", "tr": "Fawry"},
           MethodFee(200, {"EGP": 250}, {"EGP": 3_000}), limits={"EGP": AmountLimit(500, 5_000_000)},
           country="EG", checkout=True, checkout_first=("EGP",),
           sandbox={"pay": "POST /api/test-helpers/fawry/pay {\"reference\"}", "expires_in_hours": 48}),
    # Regional redirects (services.payments.regional_redirects): the scheme's page, then return_url.
    Method("eg_wallet", "redirect", ("EGP",), {"ar": "محفظة الهاتف المحمول", "en": "Mobile wallet",
                                               "tr": "Mobil cüzdan"},
           MethodFee(150, {"EGP": 100}, {"EGP": 2_500}), limits={"EGP": AmountLimit(100, 6_000_000)},
           country="EG", checkout=True, checkout_first=("EGP",),
           sandbox={"phone": "01010101010", "pin": "123456", "otp": "123456", "attempts": 3,
                    "expires_in_hours": 3}),
    Method("naps", "redirect", ("QAR",), {"ar": "نابس (كيو باي)", "en": "NAPS (QPay)", "tr": "NAPS (QPay)"},
           MethodFee(100, {"QAR": 100}, {"QAR": 2_000}), limits={"QAR": AmountLimit(100, 5_000_000)},
           country="QA", checkout=True, checkout_first=("QAR",),
           sandbox={"cards": {"approved": "8888880000000001", "declined": "8888880000000002"}, "pin": "1234"}),
    Method("omannet", "redirect", ("OMR",), {"ar": "عمان نت", "en": "OmanNet", "tr": "OmanNet"},
           MethodFee(100, {"OMR": 100}, {"OMR": 2_000}), limits={"OMR": AmountLimit(100, 5_000_000)},
           country="OM", checkout=True, checkout_first=("OMR",),
           sandbox={"cards": {"approved": "8888880000000001", "declined": "8888880000000002"}, "otp": "123456"}),
    Method("stcpay", "otp", ("SAR",), {"ar": "STC Pay", "en": "STC Pay", "tr": "STC Pay"},
           MethodFee(150, {}, {"SAR": 10_000}), limits={"SAR": AmountLimit(100, 2_000_000)},
           country="SA", checkout=True,
           sandbox={"phone": "+966512345678", "otp": "123456", "attempts": 3,
                    "failing_otps": {"111111": "insufficient_funds", "222222": "daily_limit_exceeded",
                                     "333333": "transaction_limit_exceeded", "444444": "timeout"}}),
    # SADAD bills and request to pay (services.payments.bills_rtp): the buyer pays in their bank.
    Method("sadad", "reference", ("SAR",), {"ar": "سداد", "en": "SADAD", "tr": "SADAD"},
           MethodFee(100, {"SAR": 100}, {"SAR": 1_500}), limits={"SAR": AmountLimit(1_000, 5_000_000)},
           country="SA", checkout=True,
           sandbox={"biller_code": "001", "expires_in_hours": 72, "never_pays": {"amount": 50_000},
                    "pay": "POST /api/test-helpers/sadad/pay {\"reference\"}"}),
    Method("cliq", "request_to_pay", ("JOD",), {"ar": "كليك", "en": "CliQ", "tr": "CliQ"},
           MethodFee(50, {"JOD": 100}, {"JOD": 1_000}), limits={"JOD": AmountLimit(100, 5_000_000)},
           country="JO", checkout=True,
           sandbox={"aliases": {"nickname": "QAFILA1", "mobile": "0791234567"}, "expires_in_minutes": 60,
                    "approve": "POST /api/test-helpers/request-to-pay/approve {\"payment_intent\"}",
                    "reject": "POST /api/test-helpers/request-to-pay/reject {\"payment_intent\"}"}),
    Method("aani", "request_to_pay", ("AED",), {"ar": "آني", "en": "Aani", "tr": "Aani"},
           MethodFee(50, {"AED": 50}, {"AED": 1_000}), limits={"AED": AmountLimit(100, 5_000_000)},
           country="AE", checkout=True,
           sandbox={"aliases": {"mobile": "0501234567"}, "expires_in_minutes": 5,
                    "approve": "POST /api/test-helpers/request-to-pay/approve {\"payment_intent\"}",
                    "reject": "POST /api/test-helpers/request-to-pay/reject {\"payment_intent\"}"}),
    # Wallets (services.payments.wallets): a token Qafila verifies and decrypts, charged as the card
    # inside it (a mada device number: mada's routing and fee). Every currency but IQD.
    Method("apple_pay", "wallet", _WALLET_CURRENCIES, {"ar": "Apple Pay", "en": "Apple Pay", "tr": "Apple Pay"},
           MethodFee(290, dict(_CARD_FIXED)), api=True,
           sandbox={"set_up": "POST /api/wallets/apple-pay/csr, then PUT /api/wallets/apple-pay/certificate",
                    "test_roots": "QAFILA_APPLE_PAY_TEST_ROOTS"}),
    Method("google_pay", "wallet", _WALLET_CURRENCIES, {"ar": "Google Pay", "en": "Google Pay", "tr": "Google Pay"},
           MethodFee(290, dict(_CARD_FIXED)), api=True,
           sandbox={"gateway": "qafila", "public_key": "GET /v1/wallets/google-pay/public-key",
                    "test_root_keys": "QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS"}),
    # Buy now, pay later (services.payments.bnpl): the merchant is paid the whole amount at once
    # less the method's fee; the buyer pays the provider in parts.
    Method("bnpl_split4", "bnpl", ("SAR", "AED", "KWD", "BHD", "QAR"),
           {"ar": "قسّمها على 4 دفعات", "en": "Pay in 4", "tr": "4 taksitte öde"},
           MethodFee(650, {"SAR": 100, "AED": 100, "QAR": 100, "KWD": 100, "BHD": 100}),
           limits={"SAR": AmountLimit(5_000, 500_000), "AED": AmountLimit(5_000, 500_000),
                   "QAR": AmountLimit(5_000, 500_000), "KWD": AmountLimit(5_000, 500_000),
                   "BHD": AmountLimit(5_000, 500_000)},
           schedule={"installments": 4, "interval": "day", "interval_count": 14}, provider="splitpay", checkout=True,
           sandbox={"phones": {"approved": "+966500000001", "rejected": "+966500000002",
                               "declined_on_approval": "+966500000003"}}),
    Method("bnpl_split3", "bnpl", ("SAR", "AED", "EGP"),
           {"ar": "قسّمها على 3 أشهر", "en": "Pay in 3 months", "tr": "3 ayda öde"},
           MethodFee(550, {"SAR": 100, "AED": 100, "EGP": 500}),
           limits={"SAR": AmountLimit(10_000, 1_000_000), "AED": AmountLimit(10_000, 1_000_000),
                   "EGP": AmountLimit(50_000, 5_000_000)},
           schedule={"installments": 3, "interval": "month", "interval_count": 1}, provider="taqseet", checkout=True,
           sandbox={"phones": {"approved": "+966500000001", "rejected": "+966500000002",
                               "declined_on_approval": "+966500000003"}}),
)

METHODS: dict[str, Method] = {m.type: m for m in DEFAULT_METHODS}
TYPES: tuple[str, ...] = tuple(METHODS)
LOCAL_TYPES: tuple[str, ...] = ("mada", "troy", "meeza", "knet", "benefit", "fawry", "stcpay")
LOCAL_TYPES += ("sadad", "cliq", "aani")          # services.payments.bills_rtp
LOCAL_TYPES += ("eg_wallet", "naps", "omannet")   # services.payments.regional_redirects
BNPL_TYPES: tuple[str, ...] = tuple(t for t, m in METHODS.items() if m.flow == "bnpl")
# /v1 intents take every type; /api payments the types without a buyer step.
API_TYPES: tuple[str, ...] = tuple(t for t, m in METHODS.items() if m.api)
WALLET_TYPES: tuple[str, ...] = tuple(t for t, m in METHODS.items() if m.flow == "wallet")




def get(method_type: str) -> Method:
    return METHODS[method_type]


def configure(*, fees: dict[str, MethodFee] | None = None,
              limits: dict[str, dict[str, AmountLimit]] | None = None) -> None:
    """Replace a method's fee or limits (deployment configuration); None leaves them."""
    for t, fee in (fees or {}).items():
        METHODS[t] = replace(METHODS[t], fee=fee)
    for t, lim in (limits or {}).items():
        METHODS[t] = replace(METHODS[t], limits=dict(lim))
    _changed()


def reset() -> None:
    METHODS.clear()
    METHODS.update({m.type: m for m in DEFAULT_METHODS})
    _changed()


_LISTENERS: list = []      # called when the table changes (services.payments.pricing's fee cache)


def on_change(listener) -> None:
    _LISTENERS.append(listener)


def _changed() -> None:
    for listener in _LISTENERS:
        listener()


def check_method_currency(method_type: str, currency: str, param: str = "payment_method") -> Method:
    """A method used with a currency it does not serve is a 400 naming `payment_method`."""
    m = METHODS[method_type]
    if currency not in m.currencies:
        raise one_of(param, [t for t, other in METHODS.items() if currency in other.currencies],
                     context=f"for {currency}", code="payment_method_unavailable")
    return m


def check_method_amount(m: Method, amount: int, currency: str, *, code: str = "invalid_amount") -> int:
    """Within the method's own limits (the currency's limits were checked before)."""
    lim = m.limit(currency)
    if not lim.minimum <= amount <= lim.maximum:
        raise ValidationError(f"amount must be between {money.format_amount(lim.minimum, currency)} and "
                              f"{money.format_amount(lim.maximum, currency)} for {m.type}",
                              param="amount", code=code)
    return amount


def providers_of(method_type: str) -> list[str]:
    """The providers that declare the method (services/payments/providers/*); a BNPL method's
    own provider (services.payments.bnpl)."""
    own = METHODS[method_type].provider if method_type in METHODS else None
    if own is not None:
        return [own]
    from services.payments.providers import registry
    return [p.name for p in registry.all_providers() if method_type in p.methods]


def available(*, currency: str, amount: int | None = None, country: str | None = None) -> list[Method]:
    """The methods a payment in `currency` (of `amount`, for a buyer in `country`) can use,
    card first. A local scheme is offered to buyers of its own country only (when the country
    is given); a method that needs a provider and has none is not offered."""
    out = []
    for m in METHODS.values():
        if currency not in m.currencies:
            continue
        if m.type in LOCAL_TYPES and not providers_of(m.type):
            continue
        if country is not None and m.country is not None and m.country != country:
            continue
        if amount is not None:
            lim = m.limit(currency)
            if not lim.minimum <= amount <= lim.maximum:
                continue
        out.append(m)
    # Card first, then the local schemes, then the rest in registry order.
    return sorted(out, key=lambda m: (m.type != "card", m.type not in LOCAL_TYPES))


def describe(m: Method, currency: str) -> dict[str, Any]:
    """The documented `payment_method_type` object for one currency."""
    lim = m.limit(currency)
    out = {"object": "payment_method_type", "type": m.type, "flow": m.flow,
           "display_name": dict(m.names), "currency": currency,
           "fee": {"bps": m.fee.bps, "fixed": m.fee.fixed.get(currency, 0), "cap": m.fee.cap.get(currency)},
           "limits": {"minimum": lim.minimum, "maximum": lim.maximum},
           "providers": providers_of(m.type), "sandbox": dict(m.sandbox)}
    if m.schedule is not None:           # BNPL: how the order is split
        out["schedule"] = dict(m.schedule)
    return out


async def list_payment_method_types(*, principal, currency: Any, amount: Any = None,
                                    country: Any = None) -> list[dict[str, Any]]:
    """`GET /v1/payment_method_types` and GraphQL `paymentMethodTypes`: the methods available for
    a payment in `currency` (of `amount`, by a buyer in `country`), card first. Secret or
    publishable key; the table is the same for every merchant."""
    cur = money.check_currency(currency.upper() if isinstance(currency, str) else currency, code="invalid_currency")
    amt = None
    if amount is not None and amount != "":
        if isinstance(amount, str):
            if not amount.strip().lstrip("-").isdigit():
                raise ValidationError("amount must be an integer in minor units", param="amount",
                                      code="invalid_amount")
            amount = int(amount)
        amt = money.check_amount(amount, cur, code="invalid_amount")
    ctry = None
    if country is not None and country != "":
        if not isinstance(country, str) or len(country) != 2 or not country.isalpha():
            raise ValidationError("country must be an ISO 3166 alpha-2 code, e.g. SA", param="country")
        ctry = country.upper()
    return [describe(m, cur) for m in available(currency=cur, amount=amt, country=ctry)]


def check_api_type(value: Any, card_is_mada: bool | None = None, param: str = "payment_method.type") -> str:
    """`payment_method.type` of `/api/payments/create`, which answers at once: a card or a mada
    card. A method with a buyer step (a bank page, a kiosk, a one-time code) is a 400 pointing
    to the `/v1` payment intents."""
    if value is None:
        return "card"
    if isinstance(value, str) and value in METHODS and METHODS[value].needs_buyer:
        raise ValidationError(f"{param} {value} needs the buyer ({METHODS[value].flow} flow): create a payment "
                              "intent with POST /v1/payments/intent and confirm it instead", param=param)
    if not isinstance(value, str) or value not in API_TYPES:
        raise one_of(param, API_TYPES)
    return value


# The national card schemes: a card of the scheme paying the scheme's currency is a payment of
# that method (its acquirers, its fee, analytics), else a card payment (its international network).
SCHEME_CURRENCY: dict[str, str] = {"mada": "SAR", "troy": "TRY", "meeza": "EGP"}
# Schemes that take no separate capture (an authorization is the purchase).
PURCHASE_ONLY: tuple[str, ...] = ("meeza",)


def card_method(card, currency: str) -> str:
    """The method a card pays with: a mada card paying SAR is a mada payment, a Troy card paying
    TRY a troy payment, a Meeza card paying EGP a meeza payment; else a card."""
    brand = getattr(card, "brand", None)
    return brand if brand in SCHEME_CURRENCY and SCHEME_CURRENCY[brand] == currency else "card"


def check_scheme_card(kind: str, brand: str | None, networks, currency: str, param: str,
                      scheme_code: bool = True) -> None:
    """`mada`, `troy`, `meeza` need a card of that scheme; a scheme card without an international
    network (mada-only, Troy Yerel, Meeza) pays its scheme's currency only. `param` names the card;
    `scheme_code` False: the wrong card is a plain invalid_request (the `/v1` confirm's answer)."""
    if kind in SCHEME_CURRENCY and brand != kind:
        table = "the Turkish BIN table" if kind == "troy" else f"the {METHODS[kind].names['en']} BIN table"
        raise ValidationError(f"{kind} takes a {METHODS[kind].names['en']} card: this card's BIN is not in {table}",
                              param=param, code=f"not_a_{kind}_card" if scheme_code else "invalid_request")
    if brand in SCHEME_CURRENCY and currency != SCHEME_CURRENCY[brand] and len(networks or ()) < 2:
        what = {"mada": "this mada card has no international network",
                "troy": "this Troy Yerel card (9792...) has no international network",
                "meeza": "a Meeza card is domestic"}[brand]
        raise ValidationError(f"{what}: it pays in {SCHEME_CURRENCY[brand]} only", param=param,
                              code="card_currency_not_supported")


def check_mada_card(kind: str, card, currency: str, param: str) -> None:
    """`/api`'s check of the card against `payment_method.type` (mada, troy, meeza: a card of the
    scheme; a domestic-only card its scheme's currency only)."""
    check_scheme_card(kind, card.brand, card.networks, currency, f"{param}.number")
