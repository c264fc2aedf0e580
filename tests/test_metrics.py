"""/metrics for the people who run the service (issue 22): the Prometheus text format, requests by
route template and status, payments and intents by method/provider/outcome, the outbox's age,
scheduler lag, pool use; off in production unless QAFILA_METRICS=1; never a key, id or amount in
a label."""
from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import replace

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.server import create_app
from app.settings import SettingsError, load_settings
from tests.billing_fixtures import customer, subscribe
from tests.conftest import bearer
from tests.intents_fixtures import create as create_intent
from tests.payments_fixtures import card

AMOUNT = 43217          # an amount no label may carry


async def scrape(client) -> dict[str, list]:
    resp = await client.get("/metrics")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(await resp.text()):
        for sample in family.samples:
            out.setdefault(sample.name, []).append(sample)
    return out


def value(samples, name: str, **labels) -> float:
    return sum(s.value for s in samples.get(name, []) if all(s.labels.get(k) == v for k, v in labels.items()))


async def test_requests_are_counted_by_route_template_and_status_with_latency(client, merchant):
    h = bearer(merchant.sk)
    before = await scrape(client)
    for _ in range(3):
        assert (await client.get("/v1/payments/pay_AAAAAAAAAAAAAAAAAAAAAAAA", headers=h)).status == 404
    assert (await client.get("/api/customers", headers=h)).status == 200
    assert (await client.get("/no/such/path")).status == 404
    after = await scrape(client)
    tpl = {"method": "GET", "route": "/v1/payments/{id}", "status": "404"}
    assert value(after, "qafila_http_requests_total", **tpl) - value(before, "qafila_http_requests_total", **tpl) == 3
    assert value(after, "qafila_http_requests_total", method="GET", route="/api/customers", status="200") >= 1
    assert value(after, "qafila_http_requests_total", route="unmatched", status="404") >= 1
    lat = {"method": "GET", "route": "/v1/payments/{id}"}
    assert value(after, "qafila_http_request_duration_seconds_count", **lat) - \
        value(before, "qafila_http_request_duration_seconds_count", **lat) == 3
    assert value(after, "qafila_http_request_duration_seconds_bucket", le="+Inf", **lat) == \
        value(after, "qafila_http_request_duration_seconds_count", **lat)
    routes = {s.labels["route"] for s in after["qafila_http_requests_total"]}
    assert "/v1/payments/pay_AAAAAAAAAAAAAAAAAAAAAAAA" not in routes and "/no/such/path" not in routes


async def test_payments_and_intents_by_method_provider_and_outcome(client, merchant):
    h = bearer(merchant.sk)
    before = await scrape(client)
    r = await client.post("/api/payments/create", headers=h,
                          json={"amount": AMOUNT, "currency": "TRY", "payment_method": card()})
    paid = await r.json()
    assert r.status == 200, paid
    r = await client.post("/api/payments/create", headers=h,
                          json={"amount": AMOUNT, "currency": "KWD", "payment_method": card("4000000000000002")})
    assert r.status == 402
    await create_intent(client, merchant.sk, amount=AMOUNT, payment_method="card")
    after = await scrape(client)

    def delta(**labels):
        return value(after, "qafila_payments_total", **labels) - value(before, "qafila_payments_total", **labels)
    assert delta(object="payment", method="card", provider=paid["provider"], outcome="succeeded") == 1
    assert delta(object="payment", method="card", outcome="failed") == 1
    assert delta(object="intent", method="card", outcome="created") == 1


async def test_outbox_age_scheduler_lag_and_pools(client, merchant, clock, settings):
    h = bearer(merchant.sk)
    r = await client.post("/api/payments/create", headers=h,
                          json={"amount": AMOUNT, "currency": "TRY", "payment_method": card()})
    assert r.status == 200
    cid = await customer(client, merchant.sk, saved_card=None)
    await subscribe(client, merchant.sk, cid, interval="day")
    clock.advance(days=2)           # no dispatcher and no scheduler ran meanwhile
    got = await scrape(client)
    assert value(got, "qafila_webhook_outbox_oldest_age_seconds") >= 2 * 86400
    assert value(got, "qafila_scheduler_lag_seconds") >= 86400
    if not settings.sqlite:                 # the embedded database and store have no pools
        assert value(got, "qafila_pool_connections_max", pool="database") == settings.db_pool_size
        in_use = [x for x in got["qafila_pool_connections_in_use"] if x.labels["pool"] == "database"]
        assert len(in_use) == 1 and 0 <= in_use[0].value <= settings.db_pool_size
    if settings.redis_url:
        assert value(got, "qafila_pool_connections_max", pool="store") == settings.redis_pool_size


async def test_no_key_id_amount_or_address_in_any_label(client, merchant, make_merchant):
    """After payments, intents, customers, failures and unknown paths, every label value is a
    closed-set name: no key, no prefixed id, no amount, no e-mail."""
    h = bearer(merchant.sk)
    for body in ({"amount": AMOUNT, "currency": "TRY", "payment_method": card()},
                 {"amount": AMOUNT, "currency": "SAR", "payment_method": card("4000000000000002")}):
        await client.post("/api/payments/create", headers=h, json=body)
    intent = await create_intent(client, merchant.sk, amount=AMOUNT, payment_method="card")
    await client.get(f"/v1/payments/{intent['id']}", headers=h)
    await client.get(f"/v1/payments/{intent['id']}?x={AMOUNT}", headers=h)
    await client.get(f"/{merchant.sk}/{AMOUNT}")
    await client.request("PROPFIND", "/health")            # a method outside the usual set is "other"
    other = await make_merchant()
    await client.get("/api/customers", headers=bearer(other.sk))
    await customer(client, merchant.sk, email="label-check@example.com", saved_card=None)
    values = {v for samples in (await scrape(client)).values() for s in samples for k, v in s.labels.items()
              if k != "le"}
    assert values, "no labels at all"
    assert "other" in values
    for v in values:
        assert not re.search(r"(sk|pk)_(live|test)_|whsec_|[a-z]{2,5}_[A-Za-z0-9]{16,}|@", v), v
        assert str(AMOUNT) not in v and merchant.id not in v, v
        assert re.fullmatch(r"[A-Za-z0-9_/{}.+-]*", v), v


def test_metrics_are_off_in_production_unless_asked_and_on_elsewhere(tmp_path):
    base = {"QAFILA_VAR_DIR": str(tmp_path), "QAFILA_SECRET_KEY": "k" * 40}
    assert load_settings({**base, "QAFILA_ENV": "production"}).metrics is False
    assert load_settings({**base, "QAFILA_ENV": "production", "QAFILA_METRICS": "1"}).metrics is True
    assert load_settings({**base, "QAFILA_ENV": "development"}).metrics is True
    assert load_settings({**base, "QAFILA_ENV": "test", "QAFILA_METRICS": "0"}).metrics is False
    with pytest.raises(SettingsError, match="QAFILA_METRICS"):
        load_settings({**base, "QAFILA_METRICS": "maybe"})


async def test_without_metrics_there_is_no_route_and_no_document_entry(aiohttp_client, settings, clock):
    client = await aiohttp_client(create_app(replace(settings, metrics=False), clock=clock))
    assert (await client.get("/metrics")).status == 404
    doc = await (await client.get("/openapi.json")).json()
    assert "/metrics" not in doc["paths"] and "/health/ready" in doc["paths"]


@pytest.mark.skipif(not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")),
                    reason="several serving processes need PostgreSQL and Redis")
def test_under_several_workers_any_process_answers_the_sum_of_all(tmp_path):
    """`qafila serve --workers 2`: requests spread over both processes; every scrape, whichever
    process answers it, counts all of them (multiprocess mode in {QAFILA_VAR_DIR}/prometheus)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("QAFILA_", "PROMETHEUS_"))}
    env.update({"QAFILA_ENV": "production", "QAFILA_METRICS": "1", "QAFILA_SECRET_KEY": "s" * 48,
                "QAFILA_VAR_DIR": str(tmp_path / "var"), "QAFILA_ACCESS_LOG": "0"})

    def port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    main_port = port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--workers", "2", "--port", str(main_port),
                             "--crm-port", str(port())], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        deadline, served = time.monotonic() + 60, set()
        while len(served) < 2 and time.monotonic() < deadline:
            line = proc.stdout.readline()
            served |= {n for n in ("process 1 of 2", "process 2 of 2") if n in line}
        assert len(served) == 2, "two serving processes"
        threading.Thread(target=proc.stdout.read, daemon=True).start()     # a full pipe would block them

        def get(path) -> str:
            with urllib.request.urlopen(f"http://127.0.0.1:{main_port}{path}", timeout=10) as r:   # a new connection
                return r.read().decode()
        for _ in range(40):
            get("/health/live")
        for _ in range(4):                 # several scrapes, answered by either process
            samples = {"total": [x for f in text_string_to_metric_families(get("/metrics")) for x in f.samples
                                 if x.name == "qafila_http_requests_total"]}
            counted = value(samples, "total", route="/health/live", status="200")
            assert counted == 40
        files = {p.name.rsplit("_", 1)[-1] for p in (tmp_path / "var" / "prometheus").glob("counter_*.db")}
        assert len(files) == 2, files      # both processes wrote samples
    finally:
        proc.terminate()
        proc.wait(30)
