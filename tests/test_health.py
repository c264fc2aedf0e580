from tests.conftest import bearer


async def test_health_reports_each_part(client):
    resp = await client.get("/health")
    assert resp.status == 200
    assert await resp.json() == {"status": "ok", "database": "ok", "kv": "ok"}


async def test_health_names_the_part_that_is_down(client, backend, monkeypatch):
    async def down():
        raise ConnectionError("kv gone")
    monkeypatch.setattr(backend.runtime.kv, "ping", down)
    resp = await client.get("/health")
    assert resp.status == 503
    assert await resp.json() == {"status": "degraded", "database": "ok", "kv": "down"}


async def test_request_id_is_echoed_and_generated(client):
    resp = await client.get("/health", headers={"X-Request-Id": "abc-123"})
    assert resp.headers["X-Request-Id"] == "abc-123"
    resp = await client.get("/health", headers={"X-Request-Id": "bad id with spaces"})
    assert resp.headers["X-Request-Id"].startswith("req_")  # issue 12: one format, req_ + base62


async def test_openapi_lists_documented_paths(client):
    doc = await (await client.get("/openapi.json")).json()
    assert "/api/api-keys" in doc["paths"]
    assert "/api/api-keys/{id}/revoke" in doc["paths"]
    assert "put" in doc["paths"]["/api/api-keys/{id}/revoke"]
