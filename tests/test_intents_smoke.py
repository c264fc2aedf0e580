"""The smoke check of /v1: create with a secret key, confirm with pm_card_visa."""
from tests.helpers import bearer


async def test_create_and_confirm_intent(client, merchant):
    r = await client.post("/v1/payments/intent", json={"amount": 10000, "currency": "TRY", "payment_method": "card"},
                          headers=bearer(merchant.sk))
    body = await r.json()
    assert r.status == 201, body
    assert body["object"] == "payment_intent" and body["status"] == "requires_payment_method"
    c = await client.post(f"/v1/payments/{body['id']}/confirm",
                          json={"payment_method_id": "pm_card_visa", "return_url": "https://merchant.example.com/return"},
                          headers=bearer(merchant.sk))
    cb = await c.json()
    assert c.status == 200, cb
    assert cb["status"] == "succeeded"
