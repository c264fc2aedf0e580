"""CRM customers and deals: CRUD, filters, pagination bounds, cascade delete, tenant isolation,
commissions exactly once per won-cycle and their reversal."""
from __future__ import annotations

import asyncio

from models.crm import Commission, Company, Customer, Deal, Message
from tests.crm_fixtures import PASSWORD, acct, crm, make_account, new_email  # noqa: F401


async def create_customer(crm, a, **body):
    body = {"name": "Layla Haddad", "email": new_email("c"), "phone": "+90 555 111 22 33", **body}
    r = await crm.post("/api/customers", json=body, headers=a.h)
    assert r.status == 201, await r.text()
    return await r.json()


async def create_deal(crm, a, customer_id, **body):
    body = {"title": "Fleet order", "customer_id": customer_id, "value": 1_000_000, "currency": "TRY",
            "stage": "lead", "probability": 40, **body}
    r = await crm.post("/api/deals", json=body, headers=a.h)
    assert r.status == 201, await r.text()
    return await r.json()


async def test_customer_crud(crm, acct):
    c = await create_customer(crm, acct, tags=["VIP", "gold"])
    assert c["id"].startswith("ccu_") and c["phone"] == "+905551112233" and c["tags"] == ["vip", "gold"]
    r = await crm.get(f"/api/customers/{c['id']}", headers=acct.h)
    assert r.status == 200 and (await r.json())["name"] == "Layla Haddad"
    r = await crm.put(f"/api/customers/{c['id']}", json={"name": "Layla H.", "email": None, "tags": []},
                      headers=acct.h)
    assert r.status == 200
    u = await r.json()
    assert (u["name"], u["email"], u["tags"], u["phone"]) == ("Layla H.", None, [], "+905551112233")
    r = await crm.delete(f"/api/customers/{c['id']}", headers=acct.h)
    assert r.status == 200 and await r.json() == {"id": c["id"], "object": "customer", "deleted": True}
    r = await crm.get(f"/api/customers/{c['id']}", headers=acct.h)
    assert r.status == 404
    assert (await r.json())["error"]["code"] == "resource_not_found"


async def test_customer_validation(crm, acct):
    for body, param in (({}, "name"), ({"name": ""}, "name"), ({"name": "A", "phone": "12"}, "phone"),
                        ({"name": "A", "email": "x"}, "email"), ({"name": "A", "tags": "vip"}, "tags"),
                        ({"name": "A", "tags": ["a,b"]}, "tags[0]"), ({"name": "A", "nmae": "x"}, "nmae")):
        r = await crm.post("/api/customers", json=body, headers=acct.h)
        assert r.status == 400, body
        assert (await r.json())["error"]["param"] == param
    assert await Customer.filter(company_id=acct.company_id).count() == 0


async def test_customer_list_filters_and_pagination(crm, acct, clock):
    a = await create_customer(crm, acct, name="Omar Farouk", phone="+971501234567", tags=["vip"])
    clock.advance(seconds=60)
    b = await create_customer(crm, acct, name="Zeynep Kaya", email="zeynep@kaya.example.com", phone="+905320000000")
    clock.advance(seconds=60)
    c = await create_customer(crm, acct, name="Ali Kaya", phone="+905320000001", tags=["vip", "b2b"])

    async def ids(qs: str):
        r = await crm.get(f"/api/customers?{qs}", headers=acct.h)
        assert r.status == 200, await r.text()
        return [x["id"] for x in (await r.json())["data"]]

    assert await ids("") == [c["id"], b["id"], a["id"]]           # newest first
    assert await ids("q=kaya") == [c["id"], b["id"]]
    assert await ids("tag=vip") == [c["id"], a["id"]]
    assert await ids("email=ZEYNEP@kaya.example.com") == [b["id"]]
    assert await ids("phone=%2B971501234567") == [a["id"]]
    assert await ids("created_gte=2026-01-01T00:00:00Z&created_lte=" + b["created_at"]) == [b["id"], a["id"]]
    r = await crm.get("/api/customers?limit=2", headers=acct.h)
    page1 = await r.json()
    assert [x["id"] for x in page1["data"]] == [c["id"], b["id"]] and page1["has_more"] is True
    assert page1["total_count"] == 3
    assert await ids(f"limit=2&starting_after={page1['next_cursor']}") == [a["id"]]
    for bad in ("limit=0", "limit=101", "limit=x"):
        r = await crm.get(f"/api/customers?{bad}", headers=acct.h)
        assert r.status == 400 and (await r.json())["error"]["param"] == "limit"


async def test_tenant_isolation(crm, make_account):
    a, b = await make_account(), await make_account()
    c = await create_customer(crm, a)
    d = await create_deal(crm, a, c["id"])
    for method, path, body in (("GET", f"/api/customers/{c['id']}", None),
                               ("PUT", f"/api/customers/{c['id']}", {"name": "Mine"}),
                               ("DELETE", f"/api/customers/{c['id']}", None),
                               ("GET", f"/api/deals/{d['id']}", None),
                               ("PUT", f"/api/deals/{d['id']}", {"stage": "won"})):
        r = await crm.request(method, path, json=body, headers=b.h)
        assert r.status == 404, (method, path)
        assert (await r.json())["error"]["code"] == "resource_not_found"
    r = await crm.post("/api/deals", json={"title": "x", "customer_id": c["id"], "value": 1, "currency": "TRY"},
                       headers=b.h)
    assert r.status == 404 and (await r.json())["error"]["param"] == "customer_id"
    assert (await (await crm.get("/api/customers", headers=b.h)).json())["data"] == []
    assert (await (await crm.get("/api/deals", headers=b.h)).json())["data"] == []
    r = await crm.get(f"/api/customers?starting_after={c['id']}", headers=b.h)
    assert r.status == 400
    # nothing changed
    assert (await Customer.get(id=c["id"])).name == "Layla Haddad"
    assert (await Deal.get(id=d["id"])).stage == "lead"
    assert await Commission.filter(deal_id=d["id"]).count() == 0


async def test_deal_create_list_filters(crm, acct):
    c = await create_customer(crm, acct)
    d1 = await create_deal(crm, acct, c["id"], value=5000, stage="lead")
    d2 = await create_deal(crm, acct, c["id"], value=20000, stage="proposal", probability=None)
    assert d1["owner_id"] == acct.user_id and d1["probability"] == 40
    assert d2["probability"] == 50                                   # the stage's default
    member = await crm.post("/api/users", json={"email": new_email("m"), "password": PASSWORD, "name": "Can"},
                            headers=acct.h)
    assert member.status == 201
    mid = (await member.json())["id"]
    d3 = await create_deal(crm, acct, c["id"], value=90000, owner_id=mid, stage="negotiation")

    async def ids(qs: str):
        r = await crm.get(f"/api/deals?{qs}", headers=acct.h)
        assert r.status == 200, await r.text()
        return {x["id"] for x in (await r.json())["data"]}

    assert await ids("stage=lead") == {d1["id"]}
    assert await ids("stage=proposal,negotiation") == {d2["id"], d3["id"]}
    assert await ids(f"owner_id={mid}") == {d3["id"]}
    assert await ids("value_gte=10000&value_lte=50000") == {d2["id"]}
    r = await crm.get("/api/deals?stage=closed", headers=acct.h)
    assert r.status == 400 and (await r.json())["error"]["param"] == "stage"
    for body, param in (({"value": -1}, "value"), ({"currency": "XXX"}, "currency"), ({"stage": "done"}, "stage"),
                        ({"probability": 101}, "probability"), ({"owner_id": "usr_nope"}, "owner_id")):
        r = await crm.post("/api/deals", json={"title": "x", "customer_id": c["id"], "value": 1, "currency": "TRY",
                                               **body}, headers=acct.h)
        assert r.status in (400, 404), body
        assert (await r.json())["error"]["param"] == param


async def test_won_creates_the_commission_exactly_once_and_leaving_won_reverses(crm, acct):
    await Company.filter(id=acct.company_id).update(commission_rate="0.075")
    c = await create_customer(crm, acct)
    d = await create_deal(crm, acct, c["id"], value=123_455)
    for _ in range(3):                                                 # saved as won three times
        r = await crm.put(f"/api/deals/{d['id']}", json={"stage": "won"}, headers=acct.h)
        assert r.status == 200
        body = await r.json()
    assert body["stage"] == "won" and body["probability"] == 100
    assert len(body["commissions"]) == 1
    com = body["commissions"][0]
    # 123455 * 0.075 = 9259.125 -> 9259 (half-up to the minor unit)
    assert (com["amount"], com["currency"], com["rate"], com["status"], com["cycle"]) == (9259, "TRY", "0.075",
                                                                                       "active", 1)
    assert com["user_id"] == acct.user_id
    r = await crm.put(f"/api/deals/{d['id']}", json={"title": "Renamed", "stage": "won"}, headers=acct.h)
    assert len((await r.json())["commissions"]) == 1
    # moving out of won reverses
    r = await crm.put(f"/api/deals/{d['id']}", json={"stage": "negotiation"}, headers=acct.h)
    body = await r.json()
    assert [x["status"] for x in body["commissions"]] == ["reversed"]
    assert body["won_at"] is None
    # won again: a new cycle, a new commission
    r = await crm.put(f"/api/deals/{d['id']}", json={"stage": "won"}, headers=acct.h)
    body = await r.json()
    assert [(x["cycle"], x["status"]) for x in body["commissions"]] == [(1, "reversed"), (2, "active")]
    assert await Commission.filter(deal_id=d["id"], status="active").count() == 1
    r = await crm.get(f"/api/commissions?deal_id={d['id']}", headers=acct.h)
    assert len((await r.json())["data"]) == 2
    # the value of a won deal is frozen
    r = await crm.put(f"/api/deals/{d['id']}", json={"value": 1}, headers=acct.h)
    assert r.status == 400 and (await r.json())["error"]["code"] == "deal_won"
    assert (await Deal.get(id=d["id"])).value == 123_455


async def test_concurrent_moves_to_won_pay_once(crm, acct):
    c = await create_customer(crm, acct)
    d = await create_deal(crm, acct, c["id"], value=10_000)
    results = await asyncio.gather(*[crm.put(f"/api/deals/{d['id']}", json={"stage": "won"}, headers=acct.h)
                                     for _ in range(6)])
    assert all(r.status == 200 for r in results)
    assert await Commission.filter(deal_id=d["id"]).count() == 1
    assert (await Deal.get(id=d["id"])).won_cycle == 1


async def test_created_as_won_pays_once(crm, acct):
    c = await create_customer(crm, acct)
    d = await create_deal(crm, acct, c["id"], value=10_000, stage="won")
    assert [x["amount"] for x in d["commissions"]] == [500]            # default rate 5%


async def test_delete_customer_cascades_in_one_go(crm, acct):
    keep = await create_customer(crm, acct, phone="+905550000009")
    c = await create_customer(crm, acct, phone="+905550000001")
    d = await create_deal(crm, acct, c["id"], stage="won")
    other = await create_deal(crm, acct, keep["id"], stage="won")
    await Message.create(id="msg_cascade1", company_id=acct.company_id, customer_id=c["id"], direction="inbound",
                         phone="+905550000001", body="hi", status="received", created_at=Customer._meta.fields_map[
                             "created_at"].to_python_value(c["created_at"].replace("Z", "+00:00")))
    assert await Commission.filter(deal_id=d["id"]).count() == 1
    r = await crm.delete(f"/api/customers/{c['id']}", headers=acct.h)
    assert r.status == 200
    assert not await Customer.filter(id=c["id"]).exists()
    assert not await Deal.filter(id=d["id"]).exists()
    assert not await Commission.filter(deal_id=d["id"]).exists()
    assert not await Message.filter(id="msg_cascade1").exists()
    # the other customer keeps everything
    assert await Deal.filter(id=other["id"]).exists()
    assert await Commission.filter(deal_id=other["id"]).count() == 1
