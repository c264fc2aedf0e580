"""The hosted checkout's choice of method, read from the method registry (services.payments.methods):
the choices a link offers (in services.payments.checkout_local's order: the currency's own method
first where most buyers pay with it), the one chosen, and the test-mode notice naming the sandbox
values of the method chosen. Nothing here names a method: a method registered with
`checkout=True` is offered, labelled and explained from its registry entry (flow, names, sandbox)."""
from __future__ import annotations

from dataclasses import dataclass, field

from markupsafe import Markup, escape

from app.checkout.i18n import Labels
from services.payments import checkout, checkout_local, methods

CARD = "card"          # the choice of every card-flow method: a mada card pays through the card form


@dataclass
class Choice:
    type: str                     # the registry's type ("card" for the card form)
    flow: str
    name: str                     # in the page's language
    hint: str = ""                # what happens after the button (by flow), if the labels say it
    phone_label: str | None = None    # an otp method asks the phone on its choose form
    alias_label: str | None = None    # a request-to-pay method asks the buyer's alias (optional)
    members: list[methods.Method] = field(default_factory=list)     # the registry entries it stands for

    @property
    def card(self) -> bool:
        return self.flow == "card"


@dataclass
class MethodChoice:
    choices: list[Choice]         # offered on a link (empty on an intent or an invoice)
    chosen: Choice                # whose form is shown
    notes: list[tuple[str, Markup]]   # (choice type, test-mode notice): one per choice, the chosen one shown

    @property
    def panels(self) -> list[Choice]:
        return self.choices or [self.chosen]


def _ltr(value) -> Markup:
    """A value read left to right in an Arabic sentence too (else the bidi algorithm shows a card
    number's groups of digits, or a path, in reverse order)."""
    return Markup('<bdi dir="ltr">{}</bdi>').format(value)


def _grouped(number: str) -> Markup:
    return _ltr(" ".join(number[i:i + 4] for i in range(0, len(number), 4)) if number.isdigit() else number)


def _value(t: Labels, key: str, value) -> Markup:
    label = escape(t.get(f"sbx_{key}", key.replace("_", " ")))
    return Markup(label.replace("{value}", _ltr(value))) if "{value}" in label else label + " " + _ltr(value)


def sandbox_values(m: methods.Method, t: Labels) -> Markup:
    """A method's sandbox values (the registry's `sandbox`) in the page's language: its test cards
    with what each does, then every other value (PIN, phone, code, ...)."""
    parts = []
    for key, value in m.sandbox.items():
        if key == "cards" and isinstance(value, dict):
            cards = (Markup("{} ({})").format(_grouped(n), t.get(f"sbx_{k}", k.replace("_", " ")))
                     for k, n in value.items())
            parts.append(Markup(t.list_sep).join(cards))
        elif key == "failing_otps" and isinstance(value, dict):     # STC Pay's codes that fail, and how
            codes = Markup(t.list_sep).join(Markup("{} ({})").format(_ltr(otp), t.get(f"sbx_{code}", code.replace("_", " ")))
                                            for otp, code in value.items())
            parts.append(Markup(escape(t.get("sbx_failing_otps", "codes that fail: {value}")).replace("{value}", codes)))
        elif isinstance(value, dict):          # named values (CliQ's aliases, SADAD's never-paid amount)
            inner = Markup(t.list_sep).join(_value(t, k, v) for k, v in value.items())
            parts.append(Markup("{} ({})").format(escape(t.get(f"sbx_{key}", key.replace("_", " "))), inner))
        else:
            parts.append(_value(t, key, value))
    return Markup(t.part_sep).join(parts)


def _note(members: list[methods.Method], t: Labels, lang: str) -> Markup:
    lines = [escape(t.test_mode)]
    for m in members:
        values = sandbox_values(m, t)
        if values:
            lines.append(Markup(escape(t.test_values)).format(method=m.names[lang], values=values))
    return Markup(" ").join(lines)


def _choice(members: list[methods.Method], t: Labels, lang: str) -> Choice:
    head = members[0]
    name = " · ".join(m.names[lang] for m in members)
    hint = (t.get(f"hint_{head.type}") or t.get(f"flow_{head.flow}", "")).format(method=head.names[lang]) \
        if not head.flow == "card" else ""
    phone = (t.get(f"{head.type}_phone") or t.phone) if head.flow == "otp" or head.type == "eg_wallet" else None
    alias = t.get(f"{head.type}_alias") or t.get("rtp_alias") if head.flow == "request_to_pay" else None
    return Choice(type=CARD if head.flow == "card" else head.type, flow=head.flow, name=name, hint=hint,
                  phone_label=phone, alias_label=alias, members=members)


def _card_methods(currency: str, amount: int) -> list[methods.Method]:
    return [m for m in methods.available(currency=currency, amount=amount) if m.checkout and m.flow == "card"] \
        or [methods.get(CARD)]


def of(c: checkout.Checkout, t: Labels, lang: str, *, chosen: str | None = None) -> MethodChoice:
    """The choice of one checkout in one language. A link: its registry choices (the card-flow
    methods as one, the card form), `chosen` if it is one of them (a mada type chooses the card),
    else the first. An intent or an invoice: its own method, no choice."""
    if c.kind == "link":
        offered = checkout_local.choices(c)
        cards = [m for m in offered if m.flow == "card"]
        out: list[Choice] = []
        for m in offered:
            if m.flow != "card":
                out.append(_choice([m], t, lang))
            elif m is cards[0]:
                out.append(_choice(cards, t, lang))
        if not out:
            out = [_choice([methods.get(CARD)], t, lang)]
        want = CARD if chosen in {m.type for m in cards} else chosen
        picked = next((x for x in out if x.type == want), out[0])
        return MethodChoice(choices=out if len(out) > 1 else [], chosen=picked,
                            notes=[(x.type, _note(x.members, t, lang)) for x in out])
    m = methods.METHODS.get(c.method)
    if m is None or m.flow in ("card", "qr"):       # a QR intent may be paid by card on the page too
        own = _choice(_card_methods(c.currency, c.amount), t, lang)
        members = ([m] if m is not None and m.flow == "qr" else []) + own.members
    else:
        own = _choice([m], t, lang)
        members = own.members
    return MethodChoice(choices=[], chosen=own, notes=[(own.type, _note(members, t, lang))])
