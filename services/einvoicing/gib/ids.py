"""Turkish tax numbers: the VKN (vergi kimlik numarası, 10 digits, a company's) and the TCKN
(T.C. kimlik numarası, 11 digits, a person's or a sole trader's), with their check digits as
GİB and NVİ compute them."""
from __future__ import annotations

import re

from services.errors import ValidationError

PLACEHOLDER_TCKN = "11111111111"      # GİB's number for a buyer without one (e-Arşiv); its digits do not check


def vkn_valid(value: str) -> bool:
    if not re.fullmatch(r"\d{10}", value or ""):
        return False
    total = 0
    for i, ch in enumerate(value[:9]):
        tmp = (int(ch) + 9 - i) % 10
        if tmp:
            tmp = (tmp * 2 ** (9 - i)) % 9 or 9
        total += tmp
    return (10 - total % 10) % 10 == int(value[9])


def tckn_valid(value: str) -> bool:
    if not re.fullmatch(r"[1-9]\d{10}", value or ""):
        return False
    d = [int(c) for c in value]
    if (sum(d[0:9:2]) * 7 - sum(d[1:8:2])) % 10 != d[9]:
        return False
    return sum(d[:10]) % 10 == d[10]


def check_vkn(value: str | None, param: str) -> str:
    if not vkn_valid(value or ""):
        raise ValidationError(f"{param} must be a VKN: 10 digits whose last is the check digit", param=param,
                              code="invalid_vkn")
    return value


def check_tckn(value: str | None, param: str, *, placeholder: bool = False) -> str:
    if placeholder and value == PLACEHOLDER_TCKN:
        return value
    if not tckn_valid(value or ""):
        raise ValidationError(f"{param} must be a TCKN: 11 digits, not starting with 0, whose last two are the check "
                              f"digits", param=param, code="invalid_tckn")
    return value


def check_number(value: str | None, param: str) -> str:
    """A VKN (10 digits) or a TCKN (11 digits, GİB's placeholder 11111111111 accepted)."""
    value = (value or "").strip()
    if len(value) == 11:
        return check_tckn(value, param, placeholder=True)
    return check_vkn(value, param)
