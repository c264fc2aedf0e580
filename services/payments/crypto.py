"""Crypto payments: the asset/network pairs, the rate table (configuration), deposit addresses
valid in format for their network, exact crypto amounts, the 15-minute rate lock and QR codes.

Sandbox note: a deposit address is made of random bytes in the network's real format (with its
checksum where the format has one); no key exists for it, and detection is simulated by the
test helper. A production deployment replaces `new_deposit_address` with its custody provider.
"""
from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal

import segno

from services.validation import one_of
from services.payments.pricing import USD_RATES, to_major

ASSETS = ("USDT", "BTC", "ETH")
NETWORKS = ("trc20", "erc20", "bep20", "bitcoin", "ethereum")
PAIRS: dict[str, tuple[str, ...]] = {"USDT": ("trc20", "erc20", "bep20"), "BTC": ("bitcoin",),
                                     "ETH": ("ethereum", "erc20")}
# Decimals shown and expected for each asset (the amount the customer sends, exactly).
ASSET_DECIMALS: dict[str, int] = {"USDT": 6, "BTC": 8, "ETH": 8}
# USD price of one unit of each asset (configuration; a deployment feeds it from a rate source).
ASSET_USD: dict[str, Decimal] = {"USDT": Decimal("1.00"), "BTC": Decimal("60000.00"), "ETH": Decimal("3000.00")}
# What the network costs to sweep a deposit, in USD: shown as fee.breakdown.network.
NETWORK_FEE_USD: dict[str, Decimal] = {"trc20": Decimal("1.00"), "erc20": Decimal("4.00"),
                                       "bep20": Decimal("0.30"), "bitcoin": Decimal("2.00"),
                                       "ethereum": Decimal("3.00")}
RATE_LOCK = timedelta(minutes=15)


def configure(*, asset_usd: dict[str, Decimal] | None = None,
              network_fee_usd: dict[str, Decimal] | None = None) -> None:
    if asset_usd:
        ASSET_USD.update(asset_usd)
    if network_fee_usd:
        NETWORK_FEE_USD.update(network_fee_usd)


def check_pair(asset: str, network: str) -> None:
    if network not in PAIRS[asset]:
        raise one_of("crypto_network", PAIRS[asset], context=f"for {asset}")


@dataclass(frozen=True)
class Quote:
    amount_crypto: str
    rate: Decimal                   # units of the payment currency per unit of the asset
    rate_locked_until: datetime


def quote(*, amount: int, currency: str, asset: str, now: datetime) -> Quote:
    """The exact amount of `asset` worth `amount` minor units of `currency`, rounded half-up
    once to the asset's decimals, with the rate locked for 15 minutes."""
    rate = ASSET_USD[asset] * USD_RATES[currency]
    exact = to_major(amount, currency) / rate
    q = exact.quantize(Decimal(1).scaleb(-ASSET_DECIMALS[asset]), rounding=ROUND_HALF_UP)
    return Quote(amount_crypto=f"{q:f}", rate=rate, rate_locked_until=now + RATE_LOCK)


# ---------------------------------------------------------------- addresses

_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"


def _b58check(payload: bytes) -> str:
    data = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = _B58[r] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def _bech32_polymod(values: list[int]) -> int:
    gen = (0x3B6A57B2, 0x26508E6D, 0x1EA119FA, 0x3D4233DD, 0x2A1462B3)
    chk = 1
    for v in values:
        b = chk >> 25
        chk = (chk & 0x1FFFFFF) << 5 ^ v
        for i in range(5):
            chk ^= gen[i] if (b >> i) & 1 else 0
    return chk


def _bech32_segwit(hrp: str, program: bytes) -> str:
    acc, bits, data = 0, 0, [0]                      # witness version 0
    for byte in program:
        acc = (acc << 8) | byte
        bits += 8
        while bits >= 5:
            bits -= 5
            data.append((acc >> bits) & 31)
    if bits:
        data.append((acc << (5 - bits)) & 31)
    expanded = [ord(c) >> 5 for c in hrp] + [0] + [ord(c) & 31 for c in hrp]
    pm = _bech32_polymod(expanded + data + [0] * 6) ^ 1
    checksum = [(pm >> 5 * (5 - i)) & 31 for i in range(6)]
    return hrp + "1" + "".join(_BECH32[d] for d in data + checksum)


def new_deposit_address(network: str, *, livemode: bool) -> str:
    """trc20: a Tron base58check address (T...); bitcoin: a bech32 P2WPKH address (bc1q... live,
    tb1q... test); erc20/bep20/ethereum: a 0x address of 40 hex digits (lower case, which
    EIP-55 accepts as unchecksummed)."""
    raw = os.urandom(20)
    if network == "trc20":
        return _b58check(b"\x41" + raw)
    if network == "bitcoin":
        return _bech32_segwit("bc" if livemode else "tb", raw)
    return "0x" + raw.hex()


def payment_uri(network: str, address: str, amount_crypto: str) -> str:
    """What the QR code holds: BIP 21 for bitcoin, a similar URI for the others."""
    scheme = {"bitcoin": "bitcoin", "trc20": "tron"}.get(network, "ethereum")
    return f"{scheme}:{address}?amount={amount_crypto}"


def qr_png(data: str, *, scale: int = 6) -> bytes:
    buf = io.BytesIO()
    segno.make(data, error="m").save(buf, kind="png", scale=scale, border=4)
    return buf.getvalue()
