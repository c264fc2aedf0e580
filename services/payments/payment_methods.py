"""Payment methods of the `/v1` interface: card details become a `pm_` id, stored as brand,
last4, expiry and fingerprint only. Test mode also knows fixed ids (`pm_card_visa`, ...)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from models.intents import PaymentMethod
from services.payments import cards, installments
from services.errors import NotFound, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.principal import Principal
from services.validation import Fields

# Fixed test ids (test mode only) -> the sandbox test card they stand for.
TEST_METHODS: dict[str, str] = {
    "pm_card_visa": cards.TEST_CARDS["visa"],
    "pm_card_mastercard": cards.TEST_CARDS["mastercard"],
    "pm_card_chargeDeclined": cards.TEST_CARDS["declined"],
    "pm_card_insufficientFunds": cards.TEST_CARDS["insufficient_funds"],
    "pm_card_threeDSecureRequired": cards.TEST_CARDS["threeDSecureRequired"],
    "pm_card_mada": cards.TEST_CARDS["mada"],
    "pm_card_mada_visa": cards.TEST_CARDS["mada_visa"],
    "pm_card_mada_insufficientFunds": cards.TEST_CARDS["mada_insufficient_funds"],
    # Turkish cards of the installment programs (services.payments.installments) and a debit card.
    "pm_card_tr_bonus": "5549600000000004",
    "pm_card_tr_world": "5400610000000001",
    "pm_card_tr_maximum": "4183420000000001",
    "pm_card_tr_axess": "4355080000000005",
    "pm_card_tr_debit": "9792000000000003",
    # Troy (Yerel 9792..., Global 65...) and Meeza (Egypt) sandbox cards.
    "pm_card_troy": cards.TEST_CARDS["troy_axess"],
    "pm_card_troy_debit": cards.TEST_CARDS["troy_debit"],
    "pm_card_troy_global": cards.TEST_CARDS["troy_global_world"],
    "pm_card_meeza": cards.TEST_CARDS["meeza"],
    "pm_card_meeza_insufficientFunds": cards.TEST_CARDS["meeza_insufficient_funds"],
    "pm_card_meeza_expiredCard": cards.TEST_CARDS["meeza_expired_card"],
}
TYPES = ("card", "card_present", "mada", "troy", "meeza")


@dataclass(frozen=True)
class MethodView:
    """A payment method as the services use it (a stored row or a fixed test id)."""
    id: str
    type: str
    brand: str
    last4: str
    exp_month: int
    exp_year: int
    fingerprint: str
    behaviour: str
    livemode: bool
    created_at: datetime | None
    networks: tuple[str, ...] = ()      # the card's networks: ("visa",), a mada card's ("mada", "visa"), ...
    issuer: dict | None = None      # bank, installment program, credit/debit (never the digits)

    def card(self) -> cards.Card:
        # The number is not kept: the sandbox providers act on the behaviour decided at
        # tokenization; a real deployment passes its vault token here instead.
        return cards.Card(brand=self.brand, last4=self.last4, exp_month=self.exp_month, exp_year=self.exp_year,
                          fingerprint=self.fingerprint, country=cards.SCHEME_COUNTRY.get(self.brand),
                          behaviour=self.behaviour, number="", networks=self.networks)


def _issuer(number: str) -> dict | None:
    found = installments.issuer_of(number)
    return found.as_dict() if found else None


def _view(pm: PaymentMethod) -> MethodView:
    return MethodView(id=pm.id, type=pm.type, brand=pm.brand, last4=pm.last4, exp_month=pm.exp_month,
                      exp_year=pm.exp_year, fingerprint=pm.fingerprint, behaviour=pm.test_behaviour,
                      livemode=pm.livemode, created_at=pm.created_at,
                      networks=tuple(cards.card_networks(pm.brand, pm.networks)),   # a row before: its brand's
                      issuer=pm.issuer)


def _test_method(pm_id: str) -> MethodView:
    number = TEST_METHODS[pm_id]
    year = runtime().clock.now().year + 3
    card = cards.card_from_number(number, 12, year)
    return MethodView(id=pm_id, type="card", brand=card.brand, last4=card.last4, exp_month=12, exp_year=year,
                      fingerprint=card.fingerprint, behaviour=card.behaviour, livemode=False, created_at=None,
                      networks=card.networks,
                      issuer=_issuer(number))


async def create_payment_method(*, principal: Principal, data: dict) -> MethodView:
    """Publishable or secret key. Body: {"type": "card", "card": {number, exp_month, exp_year, cvc}}."""
    f = Fields(data)
    kind = f.enum("type", TYPES, default="card")
    card_data = f.obj("card", required=True)
    f.reject_unknown()
    card = cards.parse_card(card_data, param="card")
    if kind in cards.SCHEME_COUNTRY and card.brand != kind:
        table = "the Turkish BIN table" if kind == "troy" else f"the {kind} BIN table"
        raise ValidationError(f"type {kind} takes a {kind} card: this card's BIN is not in {table}",
                              param="card.number", code=f"not_a_{kind}_card")
    kind = "card" if kind in cards.SCHEME_COUNTRY else kind       # a mada (troy, meeza) card is a card of that brand
    behaviour = card.behaviour if not principal.livemode else cards.APPROVE
    pm = await PaymentMethod.create(
        id=new_id("pm"), merchant_id=principal.merchant_id, livemode=principal.livemode, type=kind,
        brand=card.brand, last4=card.last4, exp_month=card.exp_month, exp_year=card.exp_year,
        fingerprint=card.fingerprint, test_behaviour=behaviour, created_at=runtime().clock.now(),
        networks=list(card.networks) or None,
        issuer=_issuer(card.number))
    return _view(pm)


async def resolve_payment_method(*, principal: Principal, payment_method_id: str,
                                 param: str = "payment_method_id") -> MethodView:
    """A stored method of this merchant and mode, or a fixed test id in test mode."""
    if payment_method_id in TEST_METHODS:
        if principal.livemode:
            raise ValidationError(f"{payment_method_id} is a test payment method: use it with a test key",
                                  param=param)
        return _test_method(payment_method_id)
    pm = await PaymentMethod.get_or_none(id=payment_method_id, **principal.scope)
    if pm is None:
        raise NotFound("No such payment method", param=param)
    return _view(pm)
