"""One-time-password sign-in and session tokens (merchant-api.md, Authentication)."""
import os
import re

from models.core import Merchant
from tests.conftest import bearer


def uniq(local: str) -> str:
    return f"{local}-{os.urandom(4).hex()}@example.com"


EMAIL_NEW_SHOP = uniq("new.shop")
EMAIL_SAME = uniq("same")
EMAIL_TRIES = uniq("tries")
EMAIL_ONCE = uniq("once")
EMAIL_LATE = uniq("late")
EMAIL_SPAM = uniq("spam")
EMAIL_OTHER = uniq("other")
EMAIL_SESSION = uniq("session")


async def request_code(client, mailer, email):
    resp = await client.post("/api/auth/request-otp", json={"email": email})
    assert resp.status == 200, await resp.text()
    body = await resp.json()
    mail = mailer.sent[-1]
    assert mail.to == email
    code = re.search(r"\b(\d{6})\b", mail.text).group(1)
    return body, code


async def test_otp_login_creates_the_merchant_and_the_token_creates_its_first_key(client, mailer):
    body, code = await request_code(client, mailer, EMAIL_NEW_SHOP)
    assert body["request_id"].startswith("req_")
    assert body["expires_in"] == 600
    assert not await Merchant.exists(email=EMAIL_NEW_SHOP)

    resp = await client.post("/api/auth/verify-otp", json={"request_id": body["request_id"], "otp": code})
    assert resp.status == 200
    session = await resp.json()
    assert session["merchant_id"].startswith("mer_")
    assert (await Merchant.get(email=EMAIL_NEW_SHOP)).id == session["merchant_id"]

    resp = await client.post("/api/api-keys", json={"name": "server", "mode": "test"}, headers=bearer(session["token"]))
    assert resp.status == 200
    key = (await resp.json())["key"]
    assert key.startswith("sk_test_")
    resp = await client.get("/api/api-keys", headers=bearer(key))
    assert resp.status == 200
    assert [k["prefix"] for k in (await resp.json())["data"]] == [key[:12]]


async def test_second_login_of_the_same_email_is_the_same_merchant(client, mailer):
    ids = []
    for _ in range(2):
        body, code = await request_code(client, mailer, EMAIL_SAME)
        resp = await client.post("/api/auth/verify-otp", json={"request_id": body["request_id"], "otp": code})
        ids.append((await resp.json())["merchant_id"])
    assert ids[0] == ids[1]
    assert await Merchant.filter(email=EMAIL_SAME).count() == 1


async def test_wrong_code_is_401_and_the_code_is_dead_after_five_tries(client, mailer):
    body, code = await request_code(client, mailer, EMAIL_TRIES)
    wrong = f"{(int(code) + 1) % 1000000:06d}"
    for _ in range(5):
        resp = await client.post("/api/auth/verify-otp", json={"request_id": body["request_id"], "otp": wrong})
        assert resp.status == 401
        err = (await resp.json())["error"]
        assert err["message"] == "Invalid API key"
        assert err["code"] == "invalid_otp"
    resp = await client.post("/api/auth/verify-otp", json={"request_id": body["request_id"], "otp": code})
    assert resp.status == 401
    assert not await Merchant.exists(email=EMAIL_TRIES)


async def test_code_is_single_use(client, mailer):
    body, code = await request_code(client, mailer, EMAIL_ONCE)
    payload = {"request_id": body["request_id"], "otp": code}
    assert (await client.post("/api/auth/verify-otp", json=payload)).status == 200
    assert (await client.post("/api/auth/verify-otp", json=payload)).status == 401


async def test_code_expires_after_ten_minutes(client, mailer, clock):
    body, code = await request_code(client, mailer, EMAIL_LATE)
    clock.advance(seconds=601)
    resp = await client.post("/api/auth/verify-otp", json={"request_id": body["request_id"], "otp": code})
    assert resp.status == 401
    assert not await Merchant.exists(email=EMAIL_LATE)


async def test_unknown_request_id_is_401(client):
    resp = await client.post("/api/auth/verify-otp", json={"request_id": "req_doesnotexist", "otp": "123456"})
    assert resp.status == 401


async def test_bad_otp_input_is_400_naming_the_field(client):
    cases = [
        ({"otp": "123456"}, "request_id"),
        ({"request_id": "req_x"}, "otp"),
        ({"request_id": "req_x", "otp": "12ab56"}, "otp"),
        ({"request_id": "req_x", "otp": 123456}, "otp"),
        ({"request_id": "nope", "otp": "123456"}, "request_id"),
    ]
    for payload, param in cases:
        resp = await client.post("/api/auth/verify-otp", json=payload)
        assert resp.status == 400, payload
        err = (await resp.json())["error"]
        assert err["param"] == param and err["message"] == "Invalid request body", (payload, err)


async def test_bad_email_is_400(client, mailer):
    for payload in ({}, {"email": "not-an-email"}, {"email": 42}, {"email": "a@" + "b" * 300 + ".com"}):
        resp = await client.post("/api/auth/request-otp", json=payload)
        assert resp.status == 400
        assert (await resp.json())["error"]["param"] == "email"
    assert mailer.sent == []


async def test_request_otp_is_limited_per_email(client, mailer):
    for _ in range(5):
        assert (await client.post("/api/auth/request-otp", json={"email": EMAIL_SPAM})).status == 200
    resp = await client.post("/api/auth/request-otp", json={"email": EMAIL_SPAM})
    assert resp.status == 429
    assert int(resp.headers["Retry-After"]) > 0
    assert (await resp.json())["error"]["code"] == "rate_limit_exceeded"
    assert len(mailer.sent) == 5
    # another e-mail from the same address is still served
    assert (await client.post("/api/auth/request-otp", json={"email": EMAIL_OTHER})).status == 200


async def test_session_token_expires_and_rejects_tampering(client, mailer, clock):
    body, code = await request_code(client, mailer, EMAIL_SESSION)
    token = (await (await client.post("/api/auth/verify-otp",
                                      json={"request_id": body["request_id"], "otp": code})).json())["token"]
    assert (await client.get("/api/api-keys", headers=bearer(token))).status == 200
    session_id, secret = token.split(".")          # a server-side session: sess_<id>.<secret>
    assert session_id.startswith("sess_")
    tampered = f"{session_id}.{secret[:-2]}{'AA' if not secret.endswith('AA') else 'BB'}"
    assert (await client.get("/api/api-keys", headers=bearer(tampered))).status == 401
    clock.advance(hours=12, seconds=1)
    resp = await client.get("/api/api-keys", headers=bearer(token))
    assert resp.status == 401
    assert (await resp.json())["error"]["message"] == "Invalid API key"
    assert (await resp.json())["error"]["code"] == "session_expired"


async def test_alg_none_token_is_refused(client, merchant):
    import base64
    import json
    enc = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()  # noqa: E731
    forged = f"{enc({'alg': 'none', 'typ': 'JWT'})}.{enc({'sub': merchant.id, 'typ': 'session', 'exp': 9999999999, 'iat': 1, 'jti': 'x', 'iss': 'qafila', 'aud': 'qafila-merchant'})}."
    assert (await client.get("/api/api-keys", headers=bearer(forged))).status == 401
