"""One access line per request: method, path, status, duration, request id -- and never a key,
a card number or a token; JSON lines with QAFILA_LOG_FORMAT=json."""
from __future__ import annotations

import json
import logging

import pytest

from app import logs
from app.settings import SettingsError, load_settings
from tests.conftest import bearer
from tests.payments_fixtures import card

CARD = "4242424242424242"


async def test_each_request_logs_one_access_line_without_secrets(client, merchant, caplog):
    caplog.set_level(logging.INFO)
    r = await client.post("/api/payments/create?token=tok_secret_in_query",
                          json={"amount": 1000, "currency": "TRY", "payment_method": card(CARD)},
                          headers={**bearer(merchant.sk), "X-Request-Id": "trace-123"})
    assert r.status == 200
    r404 = await client.get("/api/payments/pay_doesnotexist", headers=bearer(merchant.sk))
    assert r404.status == 404
    lines = [rec for rec in caplog.records if rec.name == "qafila.access"]
    assert [(x.method, x.path, x.status) for x in lines] == [
        ("POST", "/api/payments/create", 200), ("GET", "/api/payments/pay_doesnotexist", 404)]
    assert lines[0].request_id == "trace-123" and lines[1].request_id == r404.headers["X-Request-Id"]
    assert all(isinstance(x.duration_ms, float) for x in lines)
    # aiohttp's own access logger belongs to the test server here; `qafila serve` turns it off.
    everything = "\n".join(rec.getMessage() + repr(rec.__dict__) for rec in caplog.records
                           if rec.name != "aiohttp.access")
    for secret in (merchant.sk, CARD, "tok_secret_in_query"):
        assert secret not in everything, secret


def test_the_json_format_is_one_object_a_line():
    rec = logging.LogRecord("qafila.access", logging.INFO, __file__, 1, "%s %s", ("GET", "/health"), None)
    for k, v in {"method": "GET", "path": "/health", "status": 200, "duration_ms": 1.5,
                 "request_id": "req-1"}.items():
        setattr(rec, k, v)
    out = json.loads(logs.JsonFormatter().format(rec))
    assert out["message"] == "GET /health" and out["status"] == 200 and out["request_id"] == "req-1"
    assert out["level"] == "info" and out["time"].endswith("Z")


def test_log_settings_are_checked():
    assert load_settings({"QAFILA_ENV": "test"}).access_log is True
    assert load_settings({"QAFILA_ENV": "test", "QAFILA_ACCESS_LOG": "0"}).access_log is False
    assert load_settings({"QAFILA_ENV": "test", "QAFILA_LOG_FORMAT": "json"}).log_format == "json"
    with pytest.raises(SettingsError, match="QAFILA_LOG_FORMAT"):
        load_settings({"QAFILA_ENV": "test", "QAFILA_LOG_FORMAT": "xml"})


@pytest.mark.parametrize("formatter", [logs.TextFormatter(), logs.JsonFormatter()], ids=["text", "json"])
def test_an_access_line_written_directly_is_the_line_its_record_would_format_to(formatter):
    now = 1_764_046_396_123_456_789                  # 2025-11-25 04:53:16.123 UTC
    for values in [("GET", "/api/payments/pay_x", 200, 1.5, "req_abc", "127.0.0.1"),
                   ("POST", "/v1/payments/intent", 402, 12.0, "trace-1", None)]:
        record = logs.AccessRecord(*values, now=now)
        assert formatter.access_text(*values, created_ns=now) == formatter.format(record) + "\n"
    assert logs.TextFormatter("%(levelname)s %(message)s").access_text(
        "GET", "/", 200, 1.0, "r", None, created_ns=now) is None     # another format: through logging


async def test_access_lines_queued_directly_keep_their_order_with_other_records(client, merchant):
    import io

    stream = io.StringIO()
    handler = logs.BatchedStreamHandler(stream)
    handler.setFormatter(logs.TextFormatter())
    root = logging.getLogger()
    aiohttp_access = logging.getLogger("aiohttp.access")     # the test server's own (configure() quiets it)
    saved, level, aiohttp_level = root.handlers[:], root.level, aiohttp_access.level
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)
    aiohttp_access.setLevel(logging.WARNING)
    try:
        assert logs._direct() is handler
        r = await client.get("/api/payments/pay_doesnotexist", headers=bearer(merchant.sk))
        assert r.status == 404
        assert stream.getvalue() == ""                       # queued, not written per request
        logging.getLogger("qafila.test").warning("after the request")
        handler.flush()
    finally:
        root.handlers[:] = saved
        root.setLevel(level)
        aiohttp_access.setLevel(aiohttp_level)
    lines = stream.getvalue().splitlines()
    access_lines = [x for x in lines if " INFO qafila.access " in x]
    assert len(access_lines) == 1
    assert access_lines[0].endswith(f"GET /api/payments/pay_doesnotexist 404 "
                                    f"{access_lines[0].split(' 404 ')[1].split('ms ')[0]}ms "
                                    f"{r.headers['X-Request-Id']}")
    assert lines.index(access_lines[0]) < lines.index(next(x for x in lines if "after the request" in x))
    assert merchant.sk not in stream.getvalue()
