"""Apple Pay and Google Pay: the keys (a merchant's Apple Pay payment processing keys and
certificates, the platform's Google Pay key pairs) and the reading of a wallet token into a
card the payment flows charge (services.payments.payments for `/api`, services.payments.intents
for `/v1`).

`resolve_token` runs every check of the issue in order and answers a `WalletCard` (the device
number, cryptogram and ECI in memory only) or raises a 400 with its own code naming the field:
`wallet_token_invalid`, `wallet_token_expired`, `wallet_token_mismatch`, `wallet_not_configured`.
`claim` then marks the token used (`wallet_token_reused` the second time, even in a race: a
unique key per merchant). Private keys are AES-256-GCM encrypted under a key derived from
QAFILA_SECRET_KEY and bound to their row id; no key, device number or cryptogram reaches a log,
an error, a row or an answer beyond the last four digits.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from tortoise.exceptions import IntegrityError
from tortoise.transactions import in_transaction

from models.intents import PaymentMethod
from models.wallets import ApplePayKey, GooglePayKey, WalletTransaction
from services.errors import AuthenticationError, ValidationError
from services.ids import new_id
from services.infra.runtime import runtime
from services.payments import cards, mada
from services.payments.providers.base import WalletAuthorization
from services.payments.wallets import apple_pay, google_pay, tokens
from services.payments.wallets.errors import (
    NotConfigured,
    TokenExpired,
    TokenInvalid,
    TokenMismatch,
    TokenReused,
    WalletError,
)
from services.principal import Principal
from services.timestamps import iso
from services.validation import Fields

WALLETS = ("apple_pay", "google_pay")
# ISO 4217 numeric codes of the currencies Qafila serves (Apple's `currencyCode`).
NUMERIC: dict[str, str] = {"SAR": "682", "AED": "784", "KWD": "414", "BHD": "048", "OMR": "512", "JOD": "400",
                           "QAR": "634", "EGP": "818", "TRY": "949", "IQD": "368", "USD": "840"}
# Apple's `paymentMethod.network` -> the brand Qafila records.
_NETWORKS = {"visa": "visa", "mastercard": "mastercard", "amex": "amex", "discover": "discover", "mada": "mada",
             "jcb": "jcb", "chinaunionpay": "unionpay", "maestro": "mastercard", "electron": "visa"}


# ---------------------------------------------------------------- secrets at rest

def _aead() -> AESGCM:
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=b"qafila-wallets",
               info=b"wallet-private-keys").derive(runtime().config.secret_key.encode("utf-8"))
    return AESGCM(key)


def _seal(pem: bytes, row_id: str) -> str:
    nonce = os.urandom(12)
    ct = _aead().encrypt(nonce, pem, row_id.encode())
    return "v1." + base64.urlsafe_b64encode(nonce).decode() + "." + base64.urlsafe_b64encode(ct).decode()


def _open(token: str, row_id: str) -> ec.EllipticCurvePrivateKey:
    _, nonce, ct = token.split(".")
    pem = _aead().decrypt(base64.urlsafe_b64decode(nonce), base64.urlsafe_b64decode(ct), row_id.encode())
    key = serialization.load_pem_private_key(pem, password=None)
    assert isinstance(key, ec.EllipticCurvePrivateKey)
    return key


def _pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _secret_only(principal: Principal) -> None:
    if principal.kind == "publishable":
        raise AuthenticationError("Invalid API key: a publishable key cannot make this call")


# ---------------------------------------------------------------- Apple Pay keys

def apple_pay_key_object(k: ApplePayKey, *, csr: bool = False) -> dict[str, Any]:
    """What may be shown of a key: never the private key."""
    now = runtime().clock.now()
    status = k.status
    if status == "active" and k.expires_at is not None and k.expires_at <= now:
        status = "expired"
    out = {"id": k.id, "object": "apple_pay_certificate", "status": status,
           "merchant_identifier": k.merchant_identifier, "merchant_identifier_hash": k.merchant_identifier_hash,
           "public_key_hash": k.public_key_hash, "expires_at": iso(k.expires_at), "created_at": iso(k.created_at),
           "livemode": k.livemode}
    if csr:
        out["csr"] = k.csr
    return out


async def create_apple_pay_csr(*, principal: Principal, data: Any = None) -> ApplePayKey:
    """A new P-256 payment processing key for this merchant and mode, and its CSR to upload to
    Apple. The key waits (`pending`) for the certificate Apple issues."""
    _secret_only(principal)
    Fields(data if data is not None else {}).reject_unknown()
    key = tokens.new_private_key()
    now = runtime().clock.now()
    kid = new_id("apk")
    return await ApplePayKey.create(
        id=kid, merchant_id=principal.merchant_id, livemode=principal.livemode, status="pending",
        public_key_hash=apple_pay.public_key_hash(key.public_key()), private_key_enc=_seal(_pem(key), kid),
        csr=apple_pay.make_csr(key, common_name=principal.merchant_id), created_at=now, updated_at=now)


async def upload_apple_pay_certificate(*, principal: Principal, data: Any) -> ApplePayKey:
    """`{"certificate": PEM}`: the certificate Apple issued for one of this merchant's keys (in
    this mode). It activates that key; a certificate of a key Qafila did not make, or not a
    payment processing certificate, or expired, is a 400 naming `certificate`."""
    _secret_only(principal)
    f = Fields(data)
    pem = f.str("certificate", required=True, max_len=20_000)
    f.reject_unknown()
    try:
        cert = apple_pay.read_certificate(pem)
    except ValueError as e:
        raise ValidationError(f"certificate is not an Apple Pay payment processing certificate: {e}",
                              param="certificate") from None
    now = runtime().clock.now()
    if cert.expires_at <= now:
        raise ValidationError(f"certificate expired at {iso(cert.expires_at)}", param="certificate",
                              code="certificate_expired")
    async with in_transaction():
        k = await ApplePayKey.filter(merchant_id=principal.merchant_id, livemode=principal.livemode,
                                     public_key_hash=cert.public_key_hash).select_for_update().first()
        if k is None:
            raise ValidationError("certificate does not match a key Qafila made for you in this mode: make a CSR "
                                  "with POST /api/wallets/apple-pay/csr and upload the certificate Apple issued "
                                  "for it", param="certificate", code="certificate_key_mismatch")
        changes = dict(status="active", certificate=pem.strip(), merchant_identifier=cert.merchant_identifier,
                       merchant_identifier_hash=cert.merchant_identifier_hash, expires_at=cert.expires_at,
                       updated_at=now)
        await ApplePayKey.filter(id=k.id).update(**changes)
        for name, value in changes.items():
            setattr(k, name, value)
    return k


async def list_apple_pay(*, principal: Principal) -> list[ApplePayKey]:
    _secret_only(principal)
    return await ApplePayKey.filter(merchant_id=principal.merchant_id, livemode=principal.livemode) \
        .order_by("-created_at", "id")


# ---------------------------------------------------------------- Google Pay keys

def _opens(k: GooglePayKey) -> ec.EllipticCurvePrivateKey | None:
    """The key's private half, or None when it does not open (sealed under another
    QAFILA_SECRET_KEY): such a key is unusable, never a 500."""
    try:
        return _open(k.private_key_enc, k.id)
    except (InvalidTag, ValueError):
        logging.getLogger("qafila.wallets").error("Google Pay key %s does not open with this QAFILA_SECRET_KEY", k.id)
        return None


async def _google_keys(livemode: bool) -> list[tuple[GooglePayKey, ec.EllipticCurvePrivateKey]]:
    """The mode's keys that decrypt, current first, with their private halves; made on first
    use when there is none (and a new one when the current does not open any more)."""
    rows = await _google_rows(livemode)
    usable = [(r, key) for r in rows if (key := _opens(r)) is not None]
    if not any(r.status == "current" for r, _ in usable):
        await GooglePayKey.filter(livemode=livemode, status="current").update(status="retired")
        await rotate_google_pay_key(livemode=livemode)
        usable = [(r, key) for r in await _google_rows(livemode) if (key := _opens(r)) is not None]
    return sorted(usable, key=lambda rk: rk[0].status != "current")


async def _google_rows(livemode: bool) -> list[GooglePayKey]:
    """The mode's current and previous keys; the first is made when the mode has none."""
    rows = await GooglePayKey.filter(livemode=livemode, status__in=("current", "previous")).order_by("-created_at")
    if not rows and not await GooglePayKey.filter(livemode=livemode).exists():
        # The first key of a mode has a fixed id: two processes starting together make one.
        kid = f"gpk_first_{'live' if livemode else 'test'}"
        key = tokens.new_private_key()
        try:
            await GooglePayKey.create(id=kid, livemode=livemode, status="current",
                                      public_key=google_pay.public_key_b64(key),
                                      private_key_enc=_seal(_pem(key), kid), created_at=runtime().clock.now())
        except IntegrityError:
            pass
        rows = await GooglePayKey.filter(livemode=livemode, status__in=("current", "previous")) \
            .order_by("-created_at")
    return rows


async def ensure_google_pay_keys() -> None:
    """At start: each mode has its key pair."""
    for livemode in (False, True):
        await _google_keys(livemode)


async def rotate_google_pay_key(*, livemode: bool) -> GooglePayKey:
    """A new current key; the current one becomes previous (still decrypts), the previous is retired."""
    await _google_rows(livemode)
    key = tokens.new_private_key()
    kid = new_id("gpk")
    async with in_transaction():
        await GooglePayKey.filter(livemode=livemode, status="previous").update(status="retired")
        await GooglePayKey.filter(livemode=livemode, status="current").update(status="previous")
        return await GooglePayKey.create(id=kid, livemode=livemode, status="current",
                                         public_key=google_pay.public_key_b64(key),
                                         private_key_enc=_seal(_pem(key), kid), created_at=runtime().clock.now())


async def google_pay_public_key(*, principal: Principal) -> dict[str, str]:
    """`GET /v1/wallets/google-pay/public-key`: the current key of the caller's mode."""
    current = (await _google_keys(principal.livemode))[0][0]
    return {"protocol_version": google_pay.PROTOCOL, "public_key": current.public_key,
            "gateway": google_pay.GATEWAY_ID, "gateway_merchant_id": principal.merchant_id}


# ---------------------------------------------------------------- trust anchors

def _apple_roots(livemode: bool) -> list:
    roots = [apple_pay.apple_root()]
    path = runtime().config.apple_pay_test_roots
    if not livemode and path:          # live mode never reads it
        with open(path, "rb") as fh:
            roots += apple_pay.load_roots(fh.read())
    return roots


def _google_roots(livemode: bool) -> list:
    """Live: Google's production key list (QAFILA_GOOGLE_PAY_ROOT_KEYS); test: Google's TEST
    environment key, and the test roots of QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS."""
    cfg = runtime().config
    if livemode:
        if not cfg.google_pay_root_keys:
            raise NotConfigured("Google Pay's production root signing keys are not configured: set "
                                "QAFILA_GOOGLE_PAY_ROOT_KEYS to a copy of Google's paymentmethodtoken/keys.json")
        with open(cfg.google_pay_root_keys, "rb") as fh:
            return google_pay.load_root_keys(fh.read())
    roots = google_pay.load_root_keys(google_pay.TEST_ROOT_KEYS)
    if cfg.google_pay_test_root_keys:          # live mode never reads it
        with open(cfg.google_pay_test_root_keys, "rb") as fh:
            roots += google_pay.load_root_keys(fh.read())
    return roots


# ---------------------------------------------------------------- reading a token

@dataclass(frozen=True)
class WalletCard:
    """A verified, decrypted wallet token: the card to charge (number in memory only), the
    wallet's public details, and what the provider needs (cryptogram, ECI)."""
    wallet: str                          # apple_pay | google_pay
    card: cards.Card
    auth_method: str                     # CRYPTOGRAM_3DS | PAN_ONLY | EMV
    token_hash: str                      # keyed hash of the transaction id / message id
    cryptogram: str | None = field(default=None, repr=False)
    eci: str | None = None

    @property
    def needs_challenge_check(self) -> bool:
        """A PAN_ONLY token is a card: 3-D Secure as its number decides."""
        return self.auth_method == "PAN_ONLY"

    def details(self) -> dict[str, Any]:
        """`wallet` of the payment object (stored as is)."""
        return {"type": self.wallet, "dynamic_last4": self.card.last4, "auth_method": self.auth_method}

    def authorization(self) -> WalletAuthorization:
        return WalletAuthorization(type=self.wallet, auth_method=self.auth_method, cryptogram=self.cryptogram,
                                   eci=self.eci)


def card_details(wc: WalletCard) -> dict[str, Any]:
    """`card` of the payment method details: the device number's brand, last four, expiry, networks."""
    c = wc.card
    return {"brand": c.brand, "last4": c.last4, "exp_month": c.exp_month, "exp_year": c.exp_year,
            "networks": cards.card_networks(c.brand, c.networks)}


def details_object(method_details: dict) -> dict[str, Any]:
    """`payment_method_details` of a `/v1` intent paid with a wallet (the `/api` payment's
    `payment_method` object); a card stored before networks were kept for every card gets its brand's."""
    wallet = method_details["wallet"]
    card = method_details.get("card")
    if card is not None:
        card = {**card, "networks": cards.card_networks(card.get("brand"), card.get("networks"))}
    return {"type": wallet["type"], "card": card, "wallet": wallet}


async def challenge_method(*, principal: Principal, wc: WalletCard) -> PaymentMethod:
    """A PAN_ONLY token whose card needs 3-D Secure: the challenge (services.payments.intents)
    authorizes a payment method, made here of the card without its number."""
    c = wc.card
    return await PaymentMethod.create(
        id=new_id("pm"), merchant_id=principal.merchant_id, livemode=principal.livemode, type="card",
        brand=c.brand, last4=c.last4, exp_month=c.exp_month, exp_year=c.exp_year, fingerprint=c.fingerprint,
        test_behaviour=c.behaviour if not principal.livemode else cards.APPROVE, networks=list(c.networks) or None,
        created_at=runtime().clock.now())


def check_card_currency(wc: WalletCard, currency: str, *, param: str) -> None:
    """A mada device number without an international network pays SAR only."""
    if wc.card.brand == "mada" and currency != "SAR" and len(wc.card.networks) < 2:
        raise ValidationError("this mada card has no international network: it pays in SAR only", param=param,
                              code="card_currency_not_supported")


def _token_hash(wallet: str, value: str) -> str:
    key = runtime().config.secret_key.encode()
    return hmac.new(key, f"wallet:{wallet}:{value}".encode(), hashlib.sha256).hexdigest()


def _refuse(err: WalletError, param: str) -> ValidationError:
    messages = {"wallet_token_invalid": "The wallet token is invalid", "wallet_token_expired": "The wallet token has expired",
                "wallet_token_mismatch": "The wallet token does not match this payment",
                "wallet_not_configured": "The wallet is not configured for this token",
                "wallet_token_reused": "The wallet token was already used"}
    return ValidationError(f"{messages[err.code]}: {err}", param=param, code=err.code)


def _brand_card(number: str, exp_month: int, exp_year: int, network: str | None, param: str) -> cards.Card:
    """The card of a device number: a BIN in the mada table makes it mada; else the token's
    network (Apple), else the number's brand."""
    if not cards.luhn_valid(number) or not 12 <= len(number) <= 19:
        raise TokenInvalid("the device account number is not a valid card number")
    card = cards.Card(brand=cards.brand_of(number), last4=number[-4:], exp_month=exp_month, exp_year=exp_year,
                      fingerprint=cards.fingerprint(number), country=cards.issuer_country(number),
                      behaviour=cards.SANDBOX.get(number, cards.APPROVE), number=number)
    in_table = mada.networks_of(number)
    if in_table:
        return replace(card, brand="mada", country="SA", networks=in_table)
    brand = _NETWORKS.get((network or "").lower().replace(" ", ""))
    if brand == "mada":
        return replace(card, brand="mada", country="SA", networks=("mada",))
    brand = brand or card.brand
    return replace(card, brand=brand, networks=tuple(cards.card_networks(brand)))


def _parse_wallet_field(value: Any, wallet: str, param: str) -> Any:
    f = Fields(value, param)
    token = f._get("token", True)
    f.reject_unknown()
    if wallet == "apple_pay" and not isinstance(token, (dict, str)):
        raise ValidationError(f"{param}.token must be the PKPaymentToken JSON object", param=f"{param}.token")
    if wallet == "google_pay" and not isinstance(token, (str, dict)):
        raise ValidationError(f"{param}.token must be the tokenizationData.token string", param=f"{param}.token")
    if isinstance(token, str) and len(token) > 64_000:
        raise ValidationError(f"{param}.token is too long", param=f"{param}.token")
    return token


async def resolve_token(*, principal: Principal, wallet: str, value: Any, amount: int, currency: str,
                        param: str) -> WalletCard:
    """`value` is the `{token}` object of `apple_pay` / `google_pay` (at `param`). Every check of
    the wallet, in its order; a refusal is a 400 naming `{param}.token`."""
    token = _parse_wallet_field(value, wallet, param)
    tparam = f"{param}.token"
    now = runtime().clock.now()
    try:
        if wallet == "apple_pay":
            return await _apple(principal, token, amount=amount, currency=currency, now=now, param=tparam)
        return await _google(principal, token, now=now, param=tparam)
    except WalletError as e:
        raise _refuse(e, tparam) from None


async def _apple(principal: Principal, token: Any, *, amount: int, currency: str, now: datetime,
                 param: str) -> WalletCard:
    t = apple_pay.parse_token(token)
    keys = await ApplePayKey.filter(merchant_id=principal.merchant_id, livemode=principal.livemode,
                                    public_key_hash=t.header.public_key_hash, status="active")
    apple_pay.verify_signature(t, roots=_apple_roots(principal.livemode), now=now)
    if not keys:
        raise NotConfigured("no active Apple Pay certificate of yours has this token's publicKeyHash")
    k = keys[0]
    if k.expires_at is not None and k.expires_at <= now:
        raise NotConfigured("the Apple Pay certificate of this token's publicKeyHash has expired")
    try:
        private = _open(k.private_key_enc, k.id)
    except (InvalidTag, ValueError):
        logging.getLogger("qafila.wallets").error("Apple Pay key %s does not open with this QAFILA_SECRET_KEY", k.id)
        raise NotConfigured("the Apple Pay key of this token's publicKeyHash does not open with this "
                            "QAFILA_SECRET_KEY: make a new CSR and certificate") from None
    p = apple_pay.read_payload(apple_pay.decrypt(t, private_key=private,
                                                 merchant_identifier_hash=k.merchant_identifier_hash))
    if p.currency_numeric != NUMERIC.get(currency):
        raise TokenMismatch(f"the token's currency is not {currency}")
    if p.amount != amount:
        raise TokenMismatch(f"the token's amount is not {amount} (an amount that changes needs a new token)")
    if (p.exp_year, p.exp_month, p.exp_day) < (now.year, now.month, now.day):
        raise TokenExpired("the device account number has expired (applicationExpirationDate)")
    card = _brand_card(p.number, p.exp_month, p.exp_year, t.network, param)
    return WalletCard(wallet="apple_pay", card=card,
                      auth_method="EMV" if p.data_type == "EMV" else "CRYPTOGRAM_3DS",
                      token_hash=_token_hash("apple_pay", t.header.transaction_id.lower()),
                      cryptogram=p.cryptogram, eci=p.eci)


async def _google(principal: Principal, token: Any, *, now: datetime, param: str) -> WalletCard:
    v = google_pay.verify(token, roots=_google_roots(principal.livemode), now=now)
    keys = await _google_keys(principal.livemode)
    msg = google_pay.decrypt(v.signed_message, private_keys=[key for _, key in keys])
    p = google_pay.read_payload(msg, now=now)
    if p.gateway_merchant_id != principal.merchant_id:
        raise TokenMismatch("the token's gatewayMerchantId is not your merchant id")
    if (p.exp_year, p.exp_month) < (now.year, now.month):
        raise TokenExpired("the card number has expired")
    card = _brand_card(p.number, p.exp_month, p.exp_year, None, param)
    return WalletCard(wallet="google_pay", card=card, auth_method=p.auth_method,
                      token_hash=_token_hash("google_pay", p.message_id or hashlib.sha256(
                          v.signed_message.get("encryptedMessage", "").encode()).hexdigest()),
                      cryptogram=p.cryptogram, eci=p.eci)


async def claim(*, principal: Principal, wc: WalletCard, param: str) -> None:
    """Mark the token used before it is charged: a second use (even a concurrent one) is
    `wallet_token_reused`."""
    try:
        await WalletTransaction.create(id=new_id("wtx"), merchant_id=principal.merchant_id,
                                       livemode=principal.livemode, wallet=wc.wallet, token_hash=wc.token_hash,
                                       created_at=runtime().clock.now())
    except IntegrityError:
        raise _refuse(TokenReused("this token has already paid"), param) from None


