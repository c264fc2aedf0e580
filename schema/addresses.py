"""GraphQL of a customer's postal address (`address`), on the merchant's and the CRM's customers:
the same object as `address` in REST, checked and merged by services.addresses."""
from __future__ import annotations

from typing import Any

import strawberry

from services.addresses import KEYS


@strawberry.type
class Address:
    line1: str | None
    line2: str | None
    building_number: str | None
    district: str | None
    city: str | None
    state: str | None = strawberry.field(description="State, province or governorate (ETA's governate)")
    postal_code: str | None
    country: str | None = strawberry.field(description="ISO 3166-1 alpha-2, upper case")

    @classmethod
    def of(cls, d: Any) -> Address | None:
        if not isinstance(d, dict) or not any(d.get(k) for k in KEYS):
            return None
        return cls(**{k: d.get(k) for k in KEYS})


@strawberry.input(description="Each field replaces the stored one on an update; null removes it, an omitted one "
                              "stays. `address: null` clears the whole address.")
class AddressInput:
    line1: str | None = strawberry.UNSET
    line2: str | None = strawberry.UNSET
    building_number: str | None = strawberry.UNSET
    district: str | None = strawberry.UNSET
    city: str | None = strawberry.UNSET
    state: str | None = strawberry.UNSET
    postal_code: str | None = strawberry.UNSET
    country: str | None = strawberry.UNSET


def address_data(data: dict, input: Any) -> dict:
    """`data` (the mutation input as services read it) with `address` as given: null kept (it
    clears the address, or one of its keys), an omitted key left out (schema.inputs.to_data drops
    both)."""
    given = getattr(input, "address", strawberry.UNSET)
    if given is strawberry.UNSET:
        return data
    if given is None:
        return {**data, "address": None}
    return {**data, "address": {k: getattr(given, k) for k in KEYS if getattr(given, k) is not strawberry.UNSET}}
