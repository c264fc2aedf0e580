"""GraphQL of a customer's tax identity (`taxId`), on the merchant's and the CRM's customers:
the same object as `tax_id` in REST, checked by services.tax_ids."""
from __future__ import annotations

import strawberry


@strawberry.type
class TaxId:
    type: str = strawberry.field(description="sa_vat, tr_vkn, tr_tckn or eg_rin")
    value: str
    country: str = strawberry.field(description="SA, TR or EG (the type's country)")
    tax_office: str | None = strawberry.field(description="Turkish ids: the vergi dairesi; null otherwise")

    @classmethod
    def of(cls, d: dict | None) -> TaxId | None:
        if not d:
            return None
        return cls(type=d["type"], value=d["value"], country=d["country"], tax_office=d.get("tax_office"))


@strawberry.input
class TaxIdInput:
    type: str
    value: str
    country: str | None = strawberry.UNSET
    tax_office: str | None = strawberry.UNSET
