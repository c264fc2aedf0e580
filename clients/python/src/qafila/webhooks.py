"""Webhook verification: ``x-service-signature`` is the lowercase hex HMAC-SHA-256 of the raw body
keyed with the endpoint's secret; ``x-service-signature-v2`` is the HMAC of ``"{timestamp}.{body}"``
with ``x-service-timestamp`` (Unix seconds), which also rejects replays of old deliveries."""
from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Mapping, Optional, Union

from .errors import SignatureVerificationError

SIGNATURE_HEADER = "x-service-signature"
SIGNATURE_V2_HEADER = "x-service-signature-v2"
TIMESTAMP_HEADER = "x-service-timestamp"

Payload = Union[bytes, bytearray, str]


@dataclass
class WebhookEvent:
    """The delivery envelope: ``{"id": "evt_...", "type", "created", "livemode", "data": {"object": ...}, "merchant_id"}``."""
    id: str
    type: str
    created: Optional[int] = None
    livemode: Optional[bool] = None
    data: Dict[str, Any] = field(default_factory=dict)
    merchant_id: Optional[str] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def object(self) -> Any:
        """``data.object``: the payment (or other object) the event is about."""
        return self.data.get("object")


def _bytes(payload: Payload) -> bytes:
    if isinstance(payload, str):
        return payload.encode("utf-8")
    return bytes(payload)


def compute_signature(payload: Payload, secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), _bytes(payload), hashlib.sha256).hexdigest()


def compute_signature_v2(payload: Payload, timestamp: Union[int, str], secret: str) -> str:
    return hmac.new(secret.encode("utf-8"), str(timestamp).encode("ascii") + b"." + _bytes(payload),
                    hashlib.sha256).hexdigest()


def _parse(body: bytes) -> WebhookEvent:
    try:
        data = json.loads(body)
    except ValueError as e:
        raise SignatureVerificationError(f"webhook body is not JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not isinstance(data.get("type"), str):
        raise SignatureVerificationError("webhook body is not an event envelope (id, type, data)")
    return WebhookEvent(id=data["id"], type=data["type"], created=data.get("created"), livemode=data.get("livemode"),
                        data=data.get("data") if isinstance(data.get("data"), dict) else {},
                        merchant_id=data.get("merchant_id"), raw=data)


def verify_webhook(payload: Payload, signature: Optional[str], secret: str) -> WebhookEvent:
    """Check ``x-service-signature`` against the raw body (bytes as received, before any JSON
    parsing) in constant time and return the parsed event; raise SignatureVerificationError."""
    if not secret:
        raise SignatureVerificationError("no webhook secret given")
    body = _bytes(payload)
    expected = compute_signature(body, secret)
    given = (signature or "").strip().lower()
    if not hmac.compare_digest(expected.encode("ascii"), given.encode("ascii", "replace")):
        raise SignatureVerificationError("webhook signature does not match the body and secret")
    return _parse(body)


def verify_webhook_v2(payload: Payload, signature_v2: Optional[str], timestamp: Optional[Union[str, int]],
                      secret: str, *, tolerance: int = 300, now: Optional[float] = None) -> WebhookEvent:
    """Check ``x-service-signature-v2`` with ``x-service-timestamp``; a timestamp more than
    ``tolerance`` seconds away from now is refused as a replay."""
    if not secret:
        raise SignatureVerificationError("no webhook secret given")
    ts = str(timestamp or "").strip()
    if not ts.isdigit():
        raise SignatureVerificationError("missing or malformed x-service-timestamp")
    current = time.time() if now is None else now
    if tolerance and abs(current - int(ts)) > tolerance:
        raise SignatureVerificationError("webhook timestamp is outside the tolerance (a replay?)")
    body = _bytes(payload)
    expected = compute_signature_v2(body, ts, secret)
    given = (signature_v2 or "").strip().lower()
    if not hmac.compare_digest(expected.encode("ascii"), given.encode("ascii", "replace")):
        raise SignatureVerificationError("webhook signature does not match the body and secret")
    return _parse(body)


def construct_event(payload: Payload, headers: Mapping[str, str], secret: str, *, tolerance: int = 300) -> WebhookEvent:
    """Verify a delivery from its headers: the v2 signature (with replay protection) when the
    delivery carries it, else the plain ``x-service-signature``."""
    lower = {k.lower(): v for k, v in headers.items()}
    if lower.get(SIGNATURE_V2_HEADER) and lower.get(TIMESTAMP_HEADER):
        return verify_webhook_v2(payload, lower[SIGNATURE_V2_HEADER], lower[TIMESTAMP_HEADER], secret,
                                 tolerance=tolerance)
    return verify_webhook(payload, lower.get(SIGNATURE_HEADER), secret)
