"""REST for Apple Pay and Google Pay (services.payments.wallets): the merchant's Apple Pay keys
and certificates under `/api/wallets/apple-pay`, and the platform's Google Pay public key at
`GET /v1/wallets/google-pay/public-key`. Parse -> service -> shape."""
from __future__ import annotations

from rest_compat.routing import Call, Route
from services.payments.wallets import service as wallets


async def apple_pay_csr(call: Call) -> dict:
    k = await wallets.create_apple_pay_csr(principal=call.principal, data=await call.body())
    return wallets.apple_pay_key_object(k, csr=True)


async def apple_pay_certificate(call: Call) -> dict:
    k = await wallets.upload_apple_pay_certificate(principal=call.principal, data=await call.body())
    return wallets.apple_pay_key_object(k)


async def apple_pay_list(call: Call) -> dict:
    keys = await wallets.list_apple_pay(principal=call.principal)
    return {"object": "list", "data": [wallets.apple_pay_key_object(k) for k in keys]}


async def google_pay_public_key(call: Call) -> dict:
    return await wallets.google_pay_public_key(principal=call.principal)


_CERT = ("id", "object", "status", "merchant_identifier", "merchant_identifier_hash", "public_key_hash", "expires_at")

API_ROUTES: list[Route] = [
    Route("POST", "/wallets/apple-pay/csr", apple_pay_csr, status=201,
          summary="Make an Apple Pay payment processing key and answer its CSR (PEM) to upload to Apple",
          response_fields=(*_CERT, "csr")),
    Route("PUT", "/wallets/apple-pay/certificate", apple_pay_certificate,
          summary="Upload the payment processing certificate Apple issued for a Qafila CSR",
          request_fields=("certificate",), response_fields=_CERT),
    Route("GET", "/wallets/apple-pay", apple_pay_list, summary="The Apple Pay certificates of this mode",
          response_fields=("object", "data")),
]

V1_ROUTES: list[Route] = [
    Route("GET", "/wallets/google-pay/public-key", google_pay_public_key, auth="key_or_publishable",
          summary="Qafila's Google Pay (ECv2) public key for this mode, as Google asks gateways for it",
          response_fields=("protocol_version", "public_key")),
]
