"""The providers this deployment knows, by name. One module per provider, listed here."""
from __future__ import annotations

import importlib

from services.validation import one_of
from services.payments.providers.base import Provider

MODULES = ["services.payments.providers.anatolia", "services.payments.providers.gulfnet", "services.payments.providers.nilepay",
           "services.payments.providers.atlas"]

_PROVIDERS: dict[str, Provider] = {}


def register(provider: Provider) -> None:
    _PROVIDERS[provider.name] = provider


for _mod in MODULES:
    register(importlib.import_module(_mod).PROVIDER)


def names() -> list[str]:
    return list(_PROVIDERS)


def all_providers() -> list[Provider]:
    return list(_PROVIDERS.values())


def find(name: str) -> Provider | None:
    return _PROVIDERS.get(name)


def get(name: str, param: str = "provider") -> Provider:
    """The provider of that name, or a ValidationError naming `param`."""
    p = _PROVIDERS.get(name) if isinstance(name, str) else None
    if p is None:
        raise one_of(param, _PROVIDERS)
    return p


def eligible(currency: str, country: str | None = None, method: str = "card") -> list[Provider]:
    """Providers serving the currency (and the country, when known) that carry the payment
    method type, in registry order."""
    return [p for p in _PROVIDERS.values() if p.serves(currency, country) and method in p.methods]
