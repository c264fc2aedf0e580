"""The outbound HTTP POST of webhook deliveries, behind one small callable, so services never need
aiohttp itself: the application installs the aiohttp implementation (app/webhook_sender.py)
with `install_transport(...)`; until then every delivery fails with "no HTTP client installed".

(Separate from services/infra/http.py, the CRM's JSON client: a webhook needs the exact raw
body it signed, no redirects, a bounded read, and an address policy checked at connect time.)
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass
class DeliveryResult:
    status_code: int | None     # None: no HTTP answer (timeout, refused, address not allowed)
    latency_ms: int
    error: str | None = None    # short, never containing the body, headers or secret

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class WebhookTransport(Protocol):
    async def __call__(self, url: str, *, body: bytes, headers: dict[str, str], timeout: float,
                       allow_address: Callable[[str], bool]) -> DeliveryResult:
        """POST `body` to `url`; connect only to addresses `allow_address` accepts; follow no
        redirect; read a bounded part of the answer; give up after `timeout` seconds."""
        ...


async def _none(url: str, *, body: bytes, headers: dict[str, str], timeout: float,
                allow_address: Callable[[str], bool]) -> DeliveryResult:
    return DeliveryResult(status_code=None, latency_ms=0, error="no HTTP client installed")


_transport: WebhookTransport = _none


def install_transport(transport: WebhookTransport | None) -> None:
    global _transport
    _transport = transport or _none


def transport() -> WebhookTransport:
    return _transport
