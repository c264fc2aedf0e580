"""Helpers for the marketplace tests (issue 47): sub-merchants of each country, settings."""
from __future__ import annotations

from tests.payments_fixtures import call

# One registry example IBAN per country (the registry's own samples: length, format, mod 97 hold).
IBANS = {"SA": "SA0380000000608010167519", "AE": "AE070331234567890123456",
         "KW": "KW81CBKU0000000000001234560101", "BH": "BH67BMAG00001299123456",
         "QA": "QA58DOHB00001234567890ABCDEFG", "OM": "OM810180000001299123456",
         "JO": "JO94CBJO0010000000000131000302", "EG": "EG380019000500000000263180002",
         "TR": "TR330006100519786457841326"}
ADDRESS = {"line1": "King Fahd Road 1", "city": "Riyadh"}


def seller_body(country: str = "SA", kind: str = "company", name: str = "Nakheel Trading Co.",
                payout: bool | dict = True, **extra) -> dict:
    """A valid sub-merchant body; `payout`: True (the country's registry IBAN), False (none) or the object."""
    body: dict = {"type": kind, "legal_name": name, "email": "seller@example.com", "country": country,
                  "address": ADDRESS}
    if kind != "individual" or country == "TR":
        if country == "SA":
            body["tax_id"] = {"type": "sa_vat", "value": "300000000000003"}
        elif country == "TR":
            body["tax_id"] = ({"type": "tr_tckn", "value": "10000000146"} if kind == "individual"
                              else {"type": "tr_vkn", "value": "1234567890", "tax_office": "Kadıköy"})
        elif country == "EG":
            body["tax_id"] = {"type": "eg_rin", "value": "123456789"}
        elif kind != "individual":
            body["registration_number"] = "CR-12345"
    if isinstance(payout, dict):
        body["payout"] = payout
    elif payout:
        body["payout"] = {"iban": IBANS[country], "holder_name": name}
    body.update(extra)
    return body


async def make_seller(client, key: str, country: str = "SA", **kw) -> dict:
    status, s = await call(client, "POST", "/api/sub-merchants", key, seller_body(country, **kw))
    assert status == 201, s
    return s
