"""The phase-2 QR payload: TLV (one byte tag, one byte length, value) of tags 1-9, base64."""
from __future__ import annotations

import base64

TAGS = {1: "seller", 2: "vat_number", 3: "timestamp", 4: "total", 5: "vat", 6: "hash",
        7: "signature", 8: "public_key", 9: "certificate_signature"}


def encode(fields: dict[int, str | bytes]) -> str:
    """Base64 of the TLV of `fields` in tag order; text is UTF-8. A value over 255 bytes cannot
    be written in one-byte TLV and is refused (ZATCA's limit too)."""
    out = bytearray()
    for tag in sorted(fields):
        value = fields[tag]
        raw = value.encode("utf-8") if isinstance(value, str) else bytes(value)
        if len(raw) > 255:
            raise ValueError(f"QR tag {tag} is {len(raw)} bytes; at most 255")
        out += bytes([tag, len(raw)]) + raw
    return base64.b64encode(bytes(out)).decode("ascii")


def decode(payload: str) -> dict[int, bytes]:
    raw = base64.b64decode(payload, validate=True)
    fields: dict[int, bytes] = {}
    i = 0
    while i < len(raw):
        if i + 2 > len(raw):
            raise ValueError("truncated TLV")
        tag, length = raw[i], raw[i + 1]
        value = raw[i + 2:i + 2 + length]
        if len(value) != length:
            raise ValueError(f"truncated TLV value of tag {tag}")
        fields[tag] = value
        i += 2 + length
    return fields
