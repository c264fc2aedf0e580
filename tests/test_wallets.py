"""Issue 38: Apple Pay and Google Pay tokens that Qafila verifies and decrypts itself. The tests
play Apple and Google (tests/wallet_fixtures.py: real tokens, with roots made here and named by
QAFILA_APPLE_PAY_TEST_ROOTS / QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS in test mode), set the merchant
up through the REST API, pay on `/api` and `/v1`, and check every refusal: a 400 with its own
code, nothing charged or stored, and no device number or cryptogram anywhere."""
from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import replace
from datetime import timedelta

import orjson
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes

from models.events import Event
from models.payments import Payment
from models.wallets import ApplePayKey, GooglePayKey, WalletTransaction
from services.identity.api_keys import issue_key
from services.payments.providers import registry
from services.payments.wallets import apple_pay
from tests.conftest import bearer
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


async def _apple_cert(client, key: str, identifier: str = MERCHANT_IDENTIFIER, **window) -> str:
    r = await client.post("/api/wallets/apple-pay/csr", headers=bearer(key))
    assert r.status == 201, await r.text()
    csr = (await r.json())["csr"]
    pem = APPLE.issue(csr, identifier, **window)
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
    notafter = x509.load_pem_x509_certificate(pem.encode()).not_valid_after_utc
    assert body["expires_at"] == notafter.strftime("%Y-%m-%dT%H:%M:%S.000Z")     # the certificate's notAfter
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


# ---------------------------------------------------------------- Google Pay keys

async def test_google_pay_public_key_per_mode_and_rotation(client, merchant, make_merchant):
    pub = await _google_key(client, merchant.sk)
    raw = base64.b64decode(pub)
    assert len(raw) == 65 and raw[0] == 4                 # an uncompressed P-256 point
    r = await client.get("/v1/wallets/google-pay/public-key", headers=bearer(merchant.pk))
    assert await r.json() == {"protocol_version": "ECv2", "public_key": pub, "gateway": "qafila",
                              "gateway_merchant_id": merchant.id}
    other = await make_merchant()
    assert await _google_key(client, other.sk) == pub      # one key per mode for the platform
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    assert await _google_key(client, live) != pub
    rows = await GooglePayKey.filter(livemode=False)
    assert all(r.private_key_enc.startswith("v1.") for r in rows)


async def test_google_pay_rotation_keeps_the_previous_key_for_decryption(client, merchant, clock):
    from services.payments.wallets import service as wallets

    old = await _google_key(client, merchant.sk)
    token = GOOGLE.token(old, gateway_merchant_id=merchant.id, now=clock.now())
    await wallets.rotate_google_pay_key(livemode=False)
    new = await _google_key(client, merchant.sk)
    assert new != old
    status, body = await _pay_api(client, merchant.sk, "google_pay", token, amount=5_000, currency="AED")
    assert status == 200 and body["status"] == "succeeded"
    # Two rotations later the first key is retired: its tokens no longer decrypt.
    token = GOOGLE.token(old, gateway_merchant_id=merchant.id, now=clock.now())
    await wallets.rotate_google_pay_key(livemode=False)
    await wallets.rotate_google_pay_key(livemode=False)
    status, body = await _pay_api(client, merchant.sk, "google_pay", token, amount=5_000, currency="AED")
    assert status == 400 and body["error"]["code"] == "wallet_token_invalid"
    assert body["error"]["detail"] == ("The wallet token is invalid: the message tag does not verify with "
                                       "Qafila's Google Pay key")
    # Put the first key back as current for the other tests of this session (one key per mode).
    await GooglePayKey.filter(livemode=False).update(status="retired")
    await GooglePayKey.filter(livemode=False, public_key=old).update(status="current")


# ---------------------------------------------------------------- Google Pay on /api

@pytest.mark.parametrize("currency,amount", [("SAR", 10_000), ("KWD", 1_005), ("BHD", 2_500), ("TRY", 45_000)])
async def test_google_pay_api_cryptogram_payment(client, merchant, clock, currency, amount):
    pub = await _google_key(client, merchant.sk)
    token = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=DPAN)
    status, body = await _pay_api(client, merchant.sk, "google_pay", token, amount=amount, currency=currency)
    assert status == 200, body
    assert body["status"] == "succeeded" and body["amount"] == amount
    assert body["payment_method"]["type"] == "google_pay"
    assert body["payment_method"]["wallet"] == {"type": "google_pay", "dynamic_last4": "4242",
                                                "auth_method": "CRYPTOGRAM_3DS"}
    _no_secret(json.dumps(body), DPAN)


async def test_google_pay_pan_only_needing_a_challenge_is_refused_on_api(client, merchant, clock):
    pub = await _google_key(client, merchant.sk)
    token = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=THREEDS_DPAN,
                         auth_method="PAN_ONLY")
    status, body = await _pay_api(client, merchant.sk, "google_pay", token, amount=10_000, currency="SAR")
    assert status == 400
    assert body["error"]["code"] == "authentication_required"
    assert body["error"]["param"] == "payment_method.google_pay.token"
    assert "POST /v1/payments/intent" in body["error"]["detail"]
    assert await Payment.filter(merchant_id=merchant.id).count() == 0
    assert await WalletTransaction.filter(merchant_id=merchant.id).count() == 0
    # A PAN_ONLY token of a card without 3-D Secure pays on /api.
    token = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=DPAN, auth_method="PAN_ONLY")
    status, body = await _pay_api(client, merchant.sk, "google_pay", token, amount=10_000, currency="SAR")
    assert status == 200 and body["payment_method"]["wallet"]["auth_method"] == "PAN_ONLY"


async def test_mada_token_is_a_mada_payment_with_madas_fee(client, merchant, clock):
    pem = await _apple_cert(client, merchant.sk)
    token = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=100_000, currency="SAR", number=MADA_DPAN, network="mada",
                        signed_at=clock.now())
    status, body = await _pay_api(client, merchant.sk, "apple_pay", token, amount=100_000, currency="SAR")
    assert status == 200, body
    assert body["payment_method"]["card"]["brand"] == "mada"
    assert body["payment_method"]["card"]["networks"] == ["mada"]
    assert "mada" in registry.get(body["provider"]).methods       # a mada acquirer
    p = await Payment.get(id=body["id"])
    assert p.fee == 800                      # mada: 0.80 %, capped at SAR 200 (a card: 2.90 % + 0.25)
    assert p.payment_method_type == "apple_pay"


# ---------------------------------------------------------------- refusals

async def _refused(client, merchant, kind, token, *, amount, currency, code, detail):
    before = await Payment.filter(merchant_id=merchant.id).count()
    used = await WalletTransaction.filter(merchant_id=merchant.id).count()
    status, body = await _pay_api(client, merchant.sk, kind, token, amount=amount, currency=currency)
    assert status == 400, body
    assert body["error"]["code"] == code
    assert body["error"]["param"] == f"payment_method.{kind}.token"
    assert body["error"]["detail"] == detail
    _no_secret(json.dumps(body), DPAN)
    assert await Payment.filter(merchant_id=merchant.id).count() == before
    assert await WalletTransaction.filter(merchant_id=merchant.id).count() == used


async def test_apple_pay_refusals(client, merchant, make_merchant, clock):
    pem = await _apple_cert(client, merchant.sk)
    now = clock.now()

    def tok(**kw):
        kw.setdefault("amount", 12_000)
        kw.setdefault("currency", "SAR")
        kw.setdefault("signed_at", now)
        return APPLE.token(pem, MERCHANT_IDENTIFIER, **kw)

    invalid = "wallet_token_invalid"
    await _refused(client, merchant, "apple_pay", "{not json", amount=12_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: the token is not valid JSON")
    t = tok()
    t["paymentData"]["data"] = "***"
    await _refused(client, merchant, "apple_pay", t, amount=12_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: paymentData.data is not valid base64")
    await _refused(client, merchant, "apple_pay", tok(tamper="signature"), amount=12_000, currency="SAR",
                   code=invalid, detail="The wallet token is invalid: the signature does not match the token's content")
    await _refused(client, merchant, "apple_pay", tok(tamper="data"), amount=12_000, currency="SAR",
                   code=invalid, detail="The wallet token is invalid: the token does not decrypt with this "
                                        "merchant's key")
    stranger = FakeApple()               # a chain to a root nobody trusts
    t = stranger.token(pem, MERCHANT_IDENTIFIER, amount=12_000, currency="SAR", signed_at=now)
    await _refused(client, merchant, "apple_pay", t, amount=12_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: the certificate chain does not end at Apple Root CA - G3")
    t = tok(certs=[APPLE.inter])         # no leaf certificate
    await _refused(client, merchant, "apple_pay", t, amount=12_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: the signature has no leaf certificate with OID "
                          "1.2.840.113635.100.6.29")
    expired = "wallet_token_expired"
    await _refused(client, merchant, "apple_pay", tok(signed_at=now - timedelta(minutes=6)), amount=12_000,
                   currency="SAR", code=expired,
                   detail="The wallet token has expired: the token was signed more than 5 minutes from now")
    await _refused(client, merchant, "apple_pay", tok(signed_at=now + timedelta(minutes=6)), amount=12_000,
                   currency="SAR", code=expired,
                   detail="The wallet token has expired: the token was signed more than 5 minutes from now")
    await _refused(client, merchant, "apple_pay", tok(expiry=(now - timedelta(days=1)).strftime("%y%m%d")),
                   amount=12_000, currency="SAR", code=expired,
                   detail="The wallet token has expired: the device account number has expired "
                          "(applicationExpirationDate)")
    mismatch = "wallet_token_mismatch"
    await _refused(client, merchant, "apple_pay", tok(amount=12_001), amount=12_000, currency="SAR", code=mismatch,
                   detail="The wallet token does not match this payment: the token's amount is not 12000 "
                          "(an amount that changes needs a new token)")
    await _refused(client, merchant, "apple_pay", tok(currency="AED"), amount=12_000, currency="SAR", code=mismatch,
                   detail="The wallet token does not match this payment: the token's currency is not SAR")
    # KWD has 3 decimals: KWD 1.250 is 1250 in the token and in the payment.
    await _refused(client, merchant, "apple_pay", tok(amount=125, currency="KWD"), amount=1_250, currency="KWD",
                   code=mismatch, detail="The wallet token does not match this payment: the token's amount is not "
                                         "1250 (an amount that changes needs a new token)")
    # Another merchant has no certificate for this key hash.
    other = await make_merchant()
    await _refused(client, other, "apple_pay", tok(), amount=12_000, currency="SAR", code="wallet_not_configured",
                   detail="The wallet is not configured for this token: no active Apple Pay certificate of yours "
                          "has this token's publicKeyHash")
    # Reused: the second time, nothing more is charged.
    t = tok()
    status, body = await _pay_api(client, merchant.sk, "apple_pay", t, amount=12_000, currency="SAR")
    assert status == 200
    await _refused(client, merchant, "apple_pay", t, amount=12_000, currency="SAR", code="wallet_token_reused",
                   detail="The wallet token was already used: this token has already paid")


async def test_apple_pay_test_roots_are_never_read_in_live_mode(client, merchant, clock):
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    pem = await _apple_cert(client, live)
    token = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=5_000, currency="SAR", signed_at=clock.now())
    status, body = await _pay_api(client, live, "apple_pay", token, amount=5_000, currency="SAR")
    assert status == 400 and body["error"]["code"] == "wallet_token_invalid"
    assert body["error"]["detail"] == ("The wallet token is invalid: the certificate chain does not end at "
                                       "Apple Root CA - G3")


async def test_google_pay_refusals(client, merchant, make_merchant, clock):
    pub = await _google_key(client, merchant.sk)
    now = clock.now()

    def tok(**kw):
        kw.setdefault("gateway_merchant_id", merchant.id)
        return GOOGLE.token(pub, now=now, **kw)

    invalid, expired = "wallet_token_invalid", "wallet_token_expired"
    await _refused(client, merchant, "google_pay", "]", amount=1_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: the token is not valid JSON")
    t = json.loads(tok())
    t["signature"] = "%%%"
    await _refused(client, merchant, "google_pay", json.dumps(t), amount=1_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: signature is not valid base64")
    t = json.loads(tok())
    t["signedMessage"] = t["signedMessage"].replace('"tag"', '"tag" ')
    await _refused(client, merchant, "google_pay", json.dumps(t), amount=1_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: the message signature is not valid")
    from cryptography.hazmat.primitives.asymmetric import ec
    await _refused(client, merchant, "google_pay", tok(root_key=ec.generate_private_key(ec.SECP256R1())),
                   amount=1_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: the intermediate signing key is not signed by a Google "
                          "root signing key")
    await _refused(client, merchant, "google_pay", tok(recipient="gateway:other"), amount=1_000, currency="SAR",
                   code=invalid, detail="The wallet token is invalid: the message signature is not valid")
    await _refused(client, merchant, "google_pay", tok(tamper="tag"), amount=1_000, currency="SAR", code=invalid,
                   detail="The wallet token is invalid: the message tag does not verify with Qafila's Google Pay key")
    await _refused(client, merchant, "google_pay", tok(key_expires=now - timedelta(seconds=1)), amount=1_000,
                   currency="SAR", code=expired,
                   detail="The wallet token has expired: the intermediate signing key has expired")
    await _refused(client, merchant, "google_pay", tok(message_expires=now), amount=1_000, currency="SAR",
                   code=expired, detail="The wallet token has expired: the message has expired (messageExpiration)")
    last_month = now.replace(day=1) - timedelta(days=1)
    await _refused(client, merchant, "google_pay", tok(exp_year=last_month.year, exp_month=last_month.month),
                   amount=1_000, currency="SAR", code=expired,
                   detail="The wallet token has expired: the card number has expired")
    other = await make_merchant()
    await _refused(client, merchant, "google_pay", tok(gateway_merchant_id=other.id), amount=1_000, currency="SAR",
                   code="wallet_token_mismatch",
                   detail="The wallet token does not match this payment: the token's gatewayMerchantId is not your "
                          "merchant id")
    t = tok()
    status, _ = await _pay_api(client, merchant.sk, "google_pay", t, amount=1_000, currency="SAR")
    assert status == 200
    await _refused(client, merchant, "google_pay", t, amount=1_000, currency="SAR", code="wallet_token_reused",
                   detail="The wallet token was already used: this token has already paid")
    # The same token at another merchant is that merchant's mismatch (its gatewayMerchantId), not a reuse.
    await _refused(client, other, "google_pay", t, amount=1_000, currency="SAR", code="wallet_token_mismatch",
                   detail="The wallet token does not match this payment: the token's gatewayMerchantId is not your "
                          "merchant id")


async def test_wallet_input_errors_name_the_field(client, merchant):
    r = await client.post("/api/payments/create", headers=bearer(merchant.sk), json={
        "amount": 1_000, "currency": "SAR", "payment_method": {"type": "apple_pay"}})
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == "payment_method.apple_pay"
    r = await client.post("/api/payments/create", headers=bearer(merchant.sk), json={
        "amount": 1_000, "currency": "SAR", "payment_method": {"type": "google_pay", "google_pay": {"token": 5}}})
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == "payment_method.google_pay.token"
    r = await client.post("/api/payments/create", headers=bearer(merchant.sk), json={
        "amount": 300_000, "currency": "IQD", "payment_method": {"type": "google_pay", "google_pay": {"token": "x"}}})
    body = await r.json()
    assert r.status == 400 and body["error"]["code"] == "payment_method_unavailable", body
    assert body["error"]["param"] == "payment_method.type"


async def test_a_field_of_another_payment_method_type_is_refused(client, merchant):
    r = await client.post("/api/payments/create", headers=bearer(merchant.sk), json={
        "amount": 1_000, "currency": "SAR", "payment_method": {
            "type": "card", "card": {"number": DPAN, "exp_month": 12, "exp_year": 2030}, "apple_pay": {"token": {}}}})
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == "payment_method.apple_pay"
    r = await client.post("/api/payments/create", headers=bearer(merchant.sk), json={
        "amount": 1_000, "currency": "SAR", "payment_method": {
            "type": "google_pay", "card": {"number": DPAN, "exp_month": 12, "exp_year": 2030},
            "google_pay": {"token": "x"}}})
    body = await r.json()
    assert r.status == 400 and body["error"]["param"] == "payment_method.card"
    # null is "not given"
    r = await client.post("/api/payments/create", headers=bearer(merchant.sk), json={
        "amount": 1_000, "currency": "SAR", "payment_method": {
            "card": {"number": DPAN, "exp_month": 12, "exp_year": 2030}, "apple_pay": None, "google_pay": None}})
    assert r.status == 200


async def test_concurrent_payments_with_one_token_charge_once(client, merchant, clock):
    """Proven on PostgreSQL (CI's second pass): the unique key decides, not a read."""
    import asyncio

    pem = await _apple_cert(client, merchant.sk)
    token = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=3_000, currency="SAR", signed_at=clock.now())
    results = await asyncio.gather(*(_pay_api(client, merchant.sk, "apple_pay", token, amount=3_000, currency="SAR")
                                     for _ in range(4)))
    statuses = sorted(status for status, _ in results)
    assert statuses == [200, 400, 400, 400], results
    assert {b["error"]["code"] for s, b in results if s == 400} == {"wallet_token_reused"}
    assert await Payment.filter(merchant_id=merchant.id).count() == 1
    assert await WalletTransaction.filter(merchant_id=merchant.id).count() == 1


async def test_google_pay_test_root_keys_are_never_read_in_live_mode(client, merchant, clock):
    _, live = await issue_key(merchant_id=merchant.id, kind="secret", livemode=True, name="live")
    pub = await _google_key(client, live)
    token = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now())
    # No production key list configured: live Google Pay says so, and charges nothing.
    status, body = await _pay_api(client, live, "google_pay", token, amount=5_000, currency="SAR")
    assert status == 400 and body["error"]["code"] == "wallet_not_configured", body
    assert "QAFILA_GOOGLE_PAY_ROOT_KEYS" in body["error"]["detail"]
    assert await Payment.filter(merchant_id=merchant.id).count() == 0


async def test_live_mode_reads_googles_production_key_list_only(aiohttp_client, settings, clock, tmp_path):
    """Live mode verifies against the production list of QAFILA_GOOGLE_PAY_ROOT_KEYS, never the
    TEST environment's key nor the test roots: a list that names the test root lets the test's
    token pay in live mode, Google's TEST list does not."""
    from app.server import create_app
    from services.identity.merchants import create_merchant
    from services.payments.wallets import google_pay

    for roots, expect in ((GOOGLE.root_keys_json(), 200), (json.dumps(google_pay.TEST_ROOT_KEYS), 400)):
        path = tmp_path / f"prod-{expect}.json"
        path.write_text(roots)
        client = await aiohttp_client(create_app(replace(settings, google_pay_root_keys=str(path)), clock=clock))
        m = (await create_merchant(email=f"live-{expect}-{os.urandom(4).hex()}@example.com", name="Shop"))[0].id
        _, live = await issue_key(merchant_id=m, kind="secret", livemode=True, name="live")
        pub = await _google_key(client, live)
        token = GOOGLE.token(pub, gateway_merchant_id=m, now=clock.now())
        status, body = await _pay_api(client, live, "google_pay", token, amount=5_000, currency="SAR")
        assert status == expect, body
        if expect == 400:
            assert body["error"]["code"] == "wallet_token_invalid"


async def test_no_device_number_or_cryptogram_in_the_logs(client, merchant, clock, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    pem = await _apple_cert(client, merchant.sk)
    pub = await _google_key(client, merchant.sk)
    t = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=2_000, currency="SAR", number=DPAN, signed_at=clock.now())
    assert (await _pay_api(client, merchant.sk, "apple_pay", t, amount=2_000, currency="SAR"))[0] == 200
    assert (await _pay_api(client, merchant.sk, "apple_pay", t, amount=2_000, currency="SAR"))[0] == 400
    g = GOOGLE.token(pub, gateway_merchant_id=merchant.id, now=clock.now(), number=DPAN)
    assert (await _pay_api(client, merchant.sk, "google_pay", g, amount=2_000, currency="SAR"))[0] == 200
    logged = "\n".join(r.getMessage() + str(r.args) for r in caplog.records)
    _no_secret(logged, DPAN)
    payments = await Payment.filter(merchant_id=merchant.id).values()
    _no_secret(json.dumps(payments, default=str), DPAN)


def test_wallet_test_roots_are_refused_in_production(tmp_path):
    from app.settings import SettingsError, load_settings

    roots = tmp_path / "roots.pem"
    roots.write_bytes(APPLE.roots_pem())
    env = {"QAFILA_ENV": "production", "QAFILA_SECRET_KEY": "x" * 40, "QAFILA_VAR_DIR": str(tmp_path),
           "DATABASE_URL": "postgres://u:p@db/q", "REDIS_URL": "redis://r", "QAFILA_APPLE_PAY_TEST_ROOTS": str(roots)}
    with pytest.raises(SettingsError, match="QAFILA_APPLE_PAY_TEST_ROOTS is for tests and may not be set in production"):
        load_settings(env)
    env = {"QAFILA_ENV": "test", "QAFILA_VAR_DIR": str(tmp_path), "QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS": "/nope.json"}
    with pytest.raises(SettingsError, match="QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS='/nope.json' is not valid"):
        load_settings(env)


async def test_a_google_pay_key_that_does_not_open_is_replaced_not_a_500(client, merchant, clock):
    """A key sealed under another QAFILA_SECRET_KEY (a changed secret) cannot decrypt: a new
    current key is made and published; tokens made for the old key are invalid, never a 500."""
    old = await _google_key(client, merchant.sk)
    token = GOOGLE.token(old, gateway_merchant_id=merchant.id, now=clock.now())
    await GooglePayKey.filter(livemode=False, public_key=old).update(
        private_key_enc="v1." + base64.urlsafe_b64encode(b"\0" * 12).decode() + "."
        + base64.urlsafe_b64encode(b"\1" * 64).decode())
    new = await _google_key(client, merchant.sk)
    assert new != old
    assert (await GooglePayKey.get(public_key=old)).status == "retired"
    status, body = await _pay_api(client, merchant.sk, "google_pay", token, amount=1_000, currency="SAR")
    assert status == 400 and body["error"]["code"] == "wallet_token_invalid"


async def test_an_expired_certificate_stops_decrypting_and_emv_tokens_pay(client, merchant, clock):
    start = clock.now() - timedelta(days=1)
    pem = await _apple_cert(client, merchant.sk, start=start, days=825)
    t = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=4_500, currency="QAR", data_type="EMV", signed_at=clock.now())
    status, body = await _pay_api(client, merchant.sk, "apple_pay", t, amount=4_500, currency="QAR")
    assert status == 200 and body["payment_method"]["wallet"]["auth_method"] == "EMV"
    clock.set(start + timedelta(days=825, seconds=1))                      # just past the certificate's notAfter
    r = await client.get("/api/wallets/apple-pay", headers=bearer(merchant.sk))
    assert [k["status"] for k in (await r.json())["data"]] == ["expired"]
    t = APPLE.token(pem, MERCHANT_IDENTIFIER, amount=4_500, currency="QAR", signed_at=clock.now())
    status, body = await _pay_api(client, merchant.sk, "apple_pay", t, amount=4_500, currency="QAR")
    assert status == 400 and body["error"]["code"] == "wallet_not_configured"
    assert body["error"]["detail"] == ("The wallet is not configured for this token: the Apple Pay certificate of "
                                       "this token's publicKeyHash has expired")
    # An expired certificate cannot be uploaded.
    r = await client.post("/api/wallets/apple-pay/csr", headers=bearer(merchant.sk))
    old = APPLE.issue((await r.json())["csr"], MERCHANT_IDENTIFIER, start=start, days=825)
    r = await client.put("/api/wallets/apple-pay/certificate", json={"certificate": old}, headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 400 and (body["error"]["code"], body["error"]["param"]) == ("certificate_expired", "certificate")
