"""Risk scoring before any provider is called: a score 0-100 from explainable signals; above
`SETTINGS.threshold` the payment is declined (`risk_declined`) without reaching a provider.

Signals (each names its points and why): the amount against the merchant's recent history in
that currency, velocity and declines per card fingerprint (platform-wide: card testing moves across
shops),
velocity per client address at this merchant, a disposable or missing e-mail address, and a
card issued in another country than the billing country. A steady stream of approved
payments with one card scores at most 45: volume alone never declines; declines, mismatches
and odd amounts do.
"""
from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import timedelta

from models.payments import Payment
from services.cards import Card
from services.infra.runtime import runtime
from services.principal import Principal


@dataclass
class RiskSettings:
    threshold: int = 75                 # declined when the score is above
    history_size: int = 50              # recent successful payments the amount is compared with
    history_min: int = 5                # fewer than this: no opinion on the amount
    velocity_seconds: int = 600
    disposable_domains: frozenset[str] = frozenset({
        "mailinator.com", "guerrillamail.com", "10minutemail.com", "tempmail.com", "yopmail.com",
        "trashmail.com", "sharklasers.com", "dispostable.com", "throwawaymail.com"})


SETTINGS = RiskSettings()
_SUCCESSFUL = ("succeeded", "captured", "refunded", "authorized")


@dataclass
class Assessment:
    score: int
    signals: list[dict] = field(default_factory=list)
    threshold: int = SETTINGS.threshold

    @property
    def declined(self) -> bool:
        return self.score > self.threshold

    def explain(self) -> str:
        if not self.signals:
            return "no risk signal"
        return ", ".join(f"{s['signal']} +{s['points']} ({s['detail']})" for s in self.signals)


def _tier(n: int, tiers: list[tuple[int, int]]) -> int:
    pts = 0
    for at_least, points in tiers:
        if n >= at_least:
            pts = points
    return pts


async def assess(*, principal: Principal, amount: int, currency: str, card: Card | None, email: str | None,
                 client_address: str | None, billing_country: str | None,
                 settings: RiskSettings = SETTINGS) -> Assessment:
    now = runtime().clock.now()
    since = now - timedelta(seconds=settings.velocity_seconds)
    signals: list[dict] = []

    def add(signal: str, points: int, detail: str) -> None:
        if points:
            signals.append({"signal": signal, "points": points, "detail": detail})

    async def none() -> None:
        return None
    # Three independent reads, side by side.
    history, recent, from_address = await asyncio.gather(
        Payment.filter(**principal.scope, currency=currency, status__in=_SUCCESSFUL)
        .order_by("-created_at").limit(settings.history_size).values_list("amount", flat=True),
        Payment.filter(card_fingerprint=card.fingerprint, livemode=principal.livemode, created_at__gte=since)
        .order_by("-created_at").limit(200).values_list("status", flat=True) if card is not None else none(),
        Payment.filter(**principal.scope, client_address=client_address, created_at__gte=since).count()
        if client_address else none())
    minutes = settings.velocity_seconds // 60
    if len(history) >= settings.history_min:
        avg = sum(history) / len(history)
        ratio = amount / avg if avg else 0
        add("amount_vs_history", 35 if ratio > 10 else 15 if ratio > 3 else 0,
            f"{ratio:.1f}x the average of the last {len(history)} payments")
    if card is not None:
        add("card_velocity", _tier(len(recent), [(10, 10), (50, 20)]),
            f"{len(recent)} payments with this card in {minutes} minutes")
        failed = sum(1 for st in recent if st == "failed")
        add("card_declines", _tier(failed, [(2, 25), (4, 45), (8, 60)]),
            f"{failed} declined payments with this card in {minutes} minutes")
        if card.country and billing_country and card.country != billing_country:
            add("country_mismatch", 25, f"card issued in {card.country}, billing country {billing_country}")
    if from_address is not None:
        add("client_address_velocity", _tier(from_address, [(20, 10), (100, 20)]),
            f"{from_address} payments from this address in {minutes} minutes")
    if email is None:
        add("email", 5, "no e-mail address")
    elif email.rpartition("@")[2].lower() in settings.disposable_domains:
        add("email", 20, "disposable e-mail domain")
    return Assessment(score=min(100, sum(s["points"] for s in signals)), signals=signals,
                      threshold=settings.threshold)
