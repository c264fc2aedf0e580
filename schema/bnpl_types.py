"""GraphQL types of buy now, pay later shared by the intent types (schema/intents.py) and
schema/bnpl.py: the schedule, the intent's `bnpl` object and the create's BNPL inputs."""
from __future__ import annotations

from datetime import date, datetime

import strawberry

from schema.scalars import MinorAmount


@strawberry.type(description="One part of a BNPL schedule: its due date and amount (minor units).")
class BnplScheduleEntry:
    due_date: date
    amount: MinorAmount


def schedule_of(raw: list[dict] | None) -> list[BnplScheduleEntry] | None:
    if raw is None:
        return None
    return [BnplScheduleEntry(due_date=date.fromisoformat(p["due_date"]), amount=p["amount"]) for p in raw]


@strawberry.type(description="A BNPL payment: its method, schedule and the provider's reference.")
class BnplDetails:
    method: str
    schedule: list[BnplScheduleEntry] | None
    provider_reference: str | None
    authorization_expires_at: datetime | None
    amount_capturable: MinorAmount
    fee_taken: MinorAmount

    @classmethod
    def of(cls, d: dict | None) -> BnplDetails | None:
        if d is None:
            return None
        exp = d.get("authorization_expires_at")
        return cls(method=d["method"], schedule=schedule_of(d.get("schedule")),
                   provider_reference=d.get("provider_reference"),
                   authorization_expires_at=datetime.fromisoformat(exp.replace("Z", "+00:00")) if exp else None,
                   amount_capturable=d["amount_capturable"], fee_taken=d["fee_taken"])


@strawberry.type(description="How a BNPL method splits the order: installments every interval_count interval(s).")
class BnplScheduleRule:
    installments: int
    interval: str = strawberry.field(description="day or month")
    interval_count: int


@strawberry.input
class BnplBuyerInput:
    phone: str | None = strawberry.UNSET
    email: str | None = strawberry.UNSET
    name: str | None = strawberry.UNSET


@strawberry.input
class BnplItemInput:
    name: str | None = strawberry.UNSET
    quantity: int | None = strawberry.UNSET
    unit_amount: MinorAmount | None = strawberry.UNSET


@strawberry.input
class ShippingAddressInput:
    line1: str | None = strawberry.UNSET
    city: str | None = strawberry.UNSET
    country: str | None = strawberry.UNSET
    postal_code: str | None = strawberry.UNSET
