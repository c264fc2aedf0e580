"""Issue 38: Apple Pay and Google Pay tokens that Qafila verifies and decrypts itself. The tests
play Apple and Google (tests/wallet_fixtures.py: real tokens, with roots made here and named by
QAFILA_APPLE_PAY_TEST_ROOTS / QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS in test mode), set the merchant
up through the REST API, pay on `/api` and `/v1`, and check every refusal: a 400 with its own
code, nothing charged or stored, and no device number or cryptogram anywhere."""
from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import replace
from datetime import timedelta

import orjson
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes

from models.events import Event
from models.intents import PaymentIntent
from models.payments import Payment
from models.wallets import ApplePayKey, GooglePayKey, WalletTransaction
from services.identity.api_keys import issue_key
from services.payments.wallets import apple_pay, google_pay
from tests.conftest import bearer, gql
from tests.wallet_fixtures import FakeApple, FakeGoogle

APPLE = FakeApple()
GOOGLE = FakeGoogle()
MERCHANT_IDENTIFIER = "merchant.com.qafila.shop"
DPAN = "4242424242424242"           # the sandbox approves it
THREEDS_DPAN = "4000002500003155"   # the sandbox 3-D Secure card
MADA_DPAN = "5888450000000003"      # a BIN in the mada table
SECRETS = ("cryptogram-bytes-20", "Y3J5cHRvZ3JhbS1ieXRlcy0yMCE=", "AgAAAAAABk4DWZ4C28yUQAAAAAA=")


@pytest.fixture(scope="module")
def wallet_roots(tmp_path_factory):
    d = tmp_path_factory.mktemp("wallet_roots")
    (d / "apple.pem").write_bytes(APPLE.roots_pem())
    (d / "google.json").write_text(GOOGLE.root_keys_json())
    return d


@pytest.fixture
def settings(base_settings, wallet_roots):
    return replace(base_settings, apple_pay_test_roots=str(wallet_roots / "apple.pem"),
                   google_pay_test_root_keys=str(wallet_roots / "google.json"))


async def _apple_cert(client, key: str, identifier: str = MERCHANT_IDENTIFIER) -> str:
    r = await client.post("/api/wallets/apple-pay/csr", headers=bearer(key))
    assert r.status == 201, await r.text()
    csr = (await r.json())["csr"]
    pem = APPLE.issue(csr, identifier)
    r = await client.put("/api/wallets/apple-pay/certificate", json={"certificate": pem}, headers=bearer(key))
    assert r.status == 200, await r.text()
    return pem


async def _google_key(client, key: str) -> str:
    r = await client.get("/v1/wallets/google-pay/public-key", headers=bearer(key))
    assert r.status == 200
    return (await r.json())["public_key"]


async def _pay_api(client, key: str, kind: str, token, *, amount: int, currency: str, **extra):
    r = await client.post("/api/payments/create", headers=bearer(key), json={
        "amount": amount, "currency": currency, "payment_method": {"type": kind, kind: {"token": token}}, **extra})
    return r.status, await r.json()


def _no_secret(text: str, *numbers: str) -> None:
    for s in (*SECRETS, *numbers):
        assert s not in text


# ---------------------------------------------------------------- Apple Pay set-up

def test_shipped_apple_root_is_apple_root_ca_g3():
    root = apple_pay.apple_root()
    assert root.fingerprint(hashes.SHA256()).hex() == \
        "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"
    assert root.subject.rfc4514_string() == "C=US,O=Apple Inc.,OU=Apple Certification Authority,CN=Apple Root CA - G3"


async def test_apple_pay_csr_certificate_and_list(client, merchant, clock):
    r = await client.post("/api/wallets/apple-pay/csr", headers=bearer(merchant.sk))
    assert r.status == 201
    made = await r.json()
    assert made["status"] == "pending" and made["csr"].startswith("-----BEGIN CERTIFICATE REQUEST-----")
    csr = x509.load_pem_x509_csr(made["csr"].encode())
    assert csr.is_signature_valid and csr.public_key().curve.name == "secp256r1"
    assert apple_pay.public_key_hash(csr.public_key()) == made["public_key_hash"]
    row = await ApplePayKey.get(id=made["id"])
    assert row.private_key_enc.startswith("v1.") and "PRIVATE KEY" not in row.private_key_enc
    pem = APPLE.issue(made["csr"], MERCHANT_IDENTIFIER)
    r = await client.put("/api/wallets/apple-pay/certificate", json={"certificate": pem}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 200
    assert body["status"] == "active" and body["merchant_identifier"] == MERCHANT_IDENTIFIER
    assert body["merchant_identifier_hash"] == hashlib.sha256(MERCHANT_IDENTIFIER.encode()).hexdigest()
    assert body["public_key_hash"] == made["public_key_hash"] and "csr" not in body
    assert body["expires_at"] == "2027-04-06T00:00:00.000Z"     # the certificate's notAfter
    # A second key while the first is rotated: both listed, newest first; no private key anywhere.
    clock.advance(minutes=1)
    await _apple_cert(client, merchant.sk)
    r = await client.get("/api/wallets/apple-pay", headers=bearer(merchant.sk))
    text = await r.text()
    listed = orjson.loads(text)["data"]
    assert [k["status"] for k in listed] == ["active", "active"] and listed[1]["id"] == made["id"]
    assert "PRIVATE" not in text and "private" not in text


async def test_apple_pay_certificate_of_another_key_is_refused(client, merchant, make_merchant):
    other = await make_merchant()
    r = await client.post("/api/wallets/apple-pay/csr", headers=bearer(other.sk))
    pem = APPLE.issue((await r.json())["csr"], MERCHANT_IDENTIFIER)
    r = await client.put("/api/wallets/apple-pay/certificate", json={"certificate": pem}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == "certificate"
    assert body["error"]["code"] == "certificate_key_mismatch"
    # Not a certificate, and no certificate: 400 naming it.
    r = await client.put("/api/wallets/apple-pay/certificate", json={"certificate": "nope"}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == "certificate"
    assert body["error"]["detail"] == ("certificate is not an Apple Pay payment processing certificate: "
                                       "it is not a PEM X.509 certificate")
    r = await client.put("/api/wallets/apple-pay/certificate", json={}, headers=bearer(merchant.sk))
    assert r.status == 400 and (await r.json())["error"]["param"] == "certificate"
    # The other merchant's list does not show it to this one.
    r = await client.get("/api/wallets/apple-pay", headers=bearer(merchant.sk))
    assert (await r.json())["data"] == []


async def test_apple_pay_keys_are_per_mode(client, merchant):
    await _apple_cert(client, merchant.sk)
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    r = await client.get("/api/wallets/apple-pay", headers=bearer(live))
    assert (await r.json())["data"] == []


# ---------------------------------------------------------------- Apple Pay on /api

@pytest.mark.parametrize("currency,amount", [("SAR", 12_345), ("KWD", 1_250), ("AED", 9_900)])
async def test_apple_pay_api_payment(client, merchant, clock, currency, amount):
    pem = await _apple_cert(client, merchant.sk)
    token = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=amount, currency=currency, number=DPAN,
                        signed_at=clock.now() - timedelta(seconds=20))
    status, body = await _pay_api(client, merchant.sk, "apple_pay", token, amount=amount, currency=currency)
    assert status == 200, body
    assert body["status"] == "succeeded" and body["amount"] == amount and body["currency"] == currency
    pm = body["payment_method"]
    assert pm["type"] == "apple_pay"
    assert pm["card"]["brand"] == "visa" and pm["card"]["last4"] == "4242"
    assert (pm["card"]["exp_month"], pm["card"]["exp_year"]) == (12, 2030)
    assert pm["wallet"] == {"type": "apple_pay", "dynamic_last4": "4242", "auth_method": "CRYPTOGRAM_3DS"}
    p = await Payment.get(id=body["id"])
    assert p.payment_method_type == "apple_pay" and p.fee > 0
    r = await client.get(f"/api/payments/{body['id']}", headers=bearer(merchant.sk))
    text = await r.text()
    assert orjson.loads(text)["payment_method"]["wallet"]["type"] == "apple_pay"
    _no_secret(text, DPAN)
    events = await Event.filter(object_id=body["id"]).values_list("data", flat=True)
    _no_secret(json.dumps(events, default=str), DPAN)
