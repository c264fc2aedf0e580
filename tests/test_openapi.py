"""The API contract: /openapi.json of both applications is a valid OpenAPI 3.1 document generated
from the route tables, names every route of their routers with its method, request and response
schemas and error statuses, and is truthful (real answers validate against it); /docs and
GraphiQL load only assets the service serves itself."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import jsonschema
import pytest
from aiohttp import web
from openapi_spec_validator import validate

from models.team import Member
from rest_compat.openapi import UNDESCRIBED
from services.identity import auth
from services.money import currencies as money
from tests.helpers import bearer
from tests.team_fixtures import cookie_header, invite_token, owner_token, request_code, totp, uniq
from tests.crm_fixtures import crm, new_email, signup  # noqa: F401

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

METHODS = ("get", "post", "put", "delete", "patch")
NOT_IN_DOCUMENT = ("/graphql", "/docs", "/static", "/sandbox", "/dashboard")   # /sandbox: the simulators; /dashboard: the web app
CARD = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2031, "cvc": "123"}


async def document(client) -> dict:
    r = await client.get("/openapi.json")
    assert r.status == 200 and r.content_type == "application/json"
    return await r.json()


def router_routes(app: web.Application):
    """(METHOD, path template) of every route of the app and its sub-applications (whose
    resources carry the mount prefix already)."""
    for route in app.router.routes():
        resource = route.resource
        if isinstance(resource, web.PrefixedSubAppResource):
            continue
        if route.method in ("HEAD", "OPTIONS", "*") or (route.name or "").startswith("page:"):
            continue            # page:* are HTML pages and the browser script (app/checkout), not API operations
        path = re.sub(r"\{(\w+)(:[^}]*)?\}", r"{\1}", resource.canonical)
        yield route.method, path
    for resource in app.router.resources():
        if isinstance(resource, web.PrefixedSubAppResource):
            yield from router_routes(resource._app)


def operations(doc: dict):
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield path, method, op


def resolve(doc: dict, obj: dict) -> dict:
    while "$ref" in obj:
        node = doc
        for part in obj["$ref"].lstrip("#/").split("/"):
            node = node[part]
        obj = node
    return obj


def check_schema(doc: dict, schema: dict, body) -> None:
    jsonschema.Draft202012Validator({**schema, "components": doc["components"]}).validate(body)


class Contract:
    """Calls the app and validates each JSON answer against the document's schema for that
    operation and status: the documented fields are the ones the shapers return."""

    def __init__(self, client, doc: dict):
        self.client, self.doc, self.seen = client, doc, set()
        self.templates = sorted(doc["paths"], key=lambda p: (p.count("{"), p))

    def template(self, path: str) -> str:
        for t in self.templates:
            if re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(t)), path):
                return t
        raise AssertionError(f"{path} is in no path of the document")

    async def __call__(self, method: str, path: str, *, expect: int, **kw):
        r = await self.client.request(method, path, **kw)
        body = await r.json() if r.content_type == "application/json" else await r.read()
        assert r.status == expect, (method, path, r.status, body)
        t = self.template(path.split("?")[0])
        op = self.doc["paths"][t][method.lower()]
        assert str(r.status) in op["responses"], f"{method} {t} answered {r.status}, not documented"
        response = resolve(self.doc, op["responses"][str(r.status)])
        content = response.get("content", {})
        assert r.content_type in content, f"{method} {t} {r.status}: {r.content_type} not documented"
        if r.content_type == "application/json":
            try:
                check_schema(self.doc, content["application/json"]["schema"], body)
            except jsonschema.ValidationError as exc:
                raise AssertionError(f"{method} {t} {r.status}: {exc.message} at {list(exc.absolute_path)}") from None
        self.seen.add((method.lower(), t))
        return body


# ---------------------------------------------------------------- the document itself

@pytest.mark.parametrize("kind", ["main", "crm"])
async def test_the_document_is_valid_and_names_every_route(kind, client, crm):  # noqa: F811
    c = client if kind == "main" else crm
    doc = await document(c)
    validate(doc)                                    # OpenAPI 3.1, schemas included
    documented = {(m.upper(), p) for p, m, _ in operations(doc)}
    routes = {(m, p) for m, p in router_routes(c.app) if not p.startswith(NOT_IN_DOCUMENT)}
    assert routes - documented == set(), "routes missing from /openapi.json"
    assert documented - routes == set(), "operations with no route"
    undescribed = [(m, p) for p, m, op in operations(doc) if op.get(UNDESCRIBED)]
    assert undescribed == [], "routes without an entry in rest_compat/openapi.py"
    if kind == "main":
        assert {"/api/payments/create", "/v1/payments/intent", "/health"} <= set(doc["paths"])
    else:
        assert {"/api/auth/signup", "/api/deals/{id}"} <= set(doc["paths"])


SERVICE_PATHS = ("/health", "/health/live", "/health/ready", "/metrics", "/openapi.json")   # for operators: no key


@pytest.mark.parametrize("kind", ["main", "crm"])
async def test_every_operation_has_schemas_errors_and_security(kind, client, crm, settings):  # noqa: F811
    c = client if kind == "main" else crm
    doc = await document(c)
    error = doc["components"]["schemas"]["Error"]
    assert error["properties"]["error"]["required"] == ["type", "code", "message", "param", "request_id"]
    schemes = doc["components"]["securitySchemes"]
    if kind == "main":
        assert doc["servers"] == [{"url": settings.public_url}]
        assert schemes == {"secretKey": {**schemes["secretKey"], "type": "http", "scheme": "bearer"},
                           "sessionCookie": {**schemes["sessionCookie"], "type": "apiKey", "in": "cookie",
                                             "name": "qafila_session"}}
    else:
        assert doc["servers"] == [{"url": settings.crm_public_url}]
        assert schemes["crmAccessToken"]["bearerFormat"] == "JWT"
    for path, method, op in operations(doc):
        where = f"{method.upper()} {path}"
        assert op.get("summary") and op.get("operationId"), where
        ok = [s for s in op["responses"] if s.startswith(("2", "3"))]
        assert len(ok) == 1, where
        success = resolve(doc, op["responses"][ok[0]])
        if ok[0] != "303":
            for media, content in success["content"].items():       # JSON, and e.g. format=csv's text/csv
                assert content["schema"], where
                if media == "application/json" and path != "/openapi.json":
                    schema = resolve(doc, content["schema"])
                    assert schema.get("properties"), f"{where}: the success body has no described fields"
            assert len(success["content"]) == 1 or "application/json" in success["content"], where
        errors = {s for s in op["responses"] if s[0] in "45"}
        assert {"400", "429", "500", "503"} <= errors or path in SERVICE_PATHS, where
        for s in errors - ({"503"} if path in ("/health", "/health/ready") else set()):
            r = resolve(doc, op["responses"][s])
            assert r["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}, where
        if op["security"]:
            assert "401" in errors, where
        if "{" in path:
            assert "404" in errors, where
            assert [p for p in op["parameters"] if p["in"] == "path"], where
        if method in ("post", "put") and "requestBody" in op:
            assert "415" in errors or path.endswith("/messaging/webhook"), where


async def test_enumerations_and_parameters_come_from_the_services(client):
    doc = await document(client)
    create = doc["paths"]["/v1/payments/intent"]["post"]
    schema = create["requestBody"]["content"]["application/json"]["schema"]
    assert schema["properties"]["currency"]["enum"] == list(money.CURRENCIES)
    assert set(money.CURRENCIES) == {"TRY", "SAR", "AED", "KWD", "QAR", "EGP", "IQD", "BHD", "OMR", "JOD", "USD"}
    assert set(schema["required"]) == {"amount", "currency", "payment_method"}
    assert schema["properties"]["payment_method"]["enum"] == ["card", "crypto", "cod", "qr", "tap_to_pay", "mada",
                                                              "troy", "meeza", "knet", "benefit", "fawry", "eg_wallet",
                                                              "naps", "omannet", "stcpay", "sadad", "cliq", "aani",
                                                              "apple_pay", "google_pay", "bnpl_split4", "bnpl_split3"]
    intent = create["responses"]["201"]["content"]["application/json"]["schema"]
    assert "requires_payment_method" in intent["properties"]["status"]["enum"]
    listing = {p["name"]: p for p in doc["paths"]["/v1/payments"]["get"]["parameters"]}
    assert {"limit", "starting_after", "status", "currency", "payment_method", "created[gte]", "created[lte]"} <= set(listing)
    assert listing["limit"]["schema"]["maximum"] == 100
    assert "409" in create["responses"] and "402" in create["responses"]
    headers = {p["name"] for p in create["parameters"] if p["in"] == "header"}
    assert headers == {"X-Idempotency-Key", "Idempotency-Key", "X-CSRF-Token"}      # the cookie session's writes
    pay = doc["paths"]["/api/payments/create"]["post"]
    assert "402" in pay["responses"]
    assert doc["paths"]["/api/auth/request-otp"]["post"]["security"] == []


# ---------------------------------------------------------------- truthfulness

async def test_errors_of_every_interface_match_the_error_schema(client, crm, merchant):  # noqa: F811
    doc, crm_doc = await document(client), await document(crm)
    api, crm_api = Contract(client, doc), Contract(crm, crm_doc)
    body = await api("GET", "/api/customers/cus_missing", expect=404, headers=bearer(merchant.sk))
    assert body["error"]["message"] == "Resource not found" and "detail" in body["error"]
    await api("GET", "/api/customers/cus_x", expect=401)
    await api("POST", "/api/customers", expect=400, json={"nope": 1}, headers=bearer(merchant.sk))
    await api("POST", "/api/customers", expect=415, data=b"x", headers={**bearer(merchant.sk), "Content-Type": "text/plain"})
    await api("GET", "/v1/payments/pay_missing", expect=404, headers=bearer(merchant.sk))
    await api("GET", "/v1/payments?limit=0", expect=400, headers=bearer(merchant.sk))
    await api("POST", "/v1/payments/intent", expect=401, json={})
    await crm_api("GET", "/api/customers", expect=401)
    await crm_api("POST", "/api/auth/login", expect=401, json={"email": new_email(), "password": "wrong-password-1"})


async def test_real_answers_validate_against_the_document(client, crm, merchant):  # noqa: F811
    doc = await document(client)
    call = Contract(client, doc)
    h = bearer(merchant.sk)

    # merchant /api
    await call("GET", "/health", expect=200)
    await call("GET", "/health/live", expect=200)
    await call("GET", "/health/ready", expect=200)
    keys = await call("GET", "/api/api-keys", expect=200, headers=h)
    created = await call("POST", "/api/api-keys", expect=200, json={"name": "backend", "mode": "test"}, headers=h)
    await call("PUT", f"/api/api-keys/{created['id']}/revoke", expect=200, headers=h)
    assert keys["data"]
    cus = await call("POST", "/api/customers", expect=200, json={"email": "layla@example.com", "name": "Layla"},
                     headers=h)
    await call("GET", f"/api/customers/{cus['id']}", expect=200, headers=h)
    await call("PUT", f"/api/customers/{cus['id']}", expect=200, json={"phone": "+905551112233"}, headers=h)
    await call("PUT", f"/api/customers/{cus['id']}", expect=200, headers=h,
               json={"address": {"line1": "26 Tahrir St", "city": "Giza", "country": "eg"}})
    await call("GET", "/api/customers?limit=5", expect=200, headers=h)
    rule = await call("POST", "/api/routing/rules", expect=200, headers=h, json={
        "name": "Saudi cards", "provider": "gulfnet",
        "conditions": [{"field": "country", "operator": "equals", "value": "SA"}]})
    await call("PUT", f"/api/routing/rules/{rule['id']}", expect=200, json={"priority": 5}, headers=h)
    await call("GET", "/api/routing/rules", expect=200, headers=h)
    pay = await call("POST", "/api/payments/create", expect=200, headers=h, json={
        "amount": 10000, "currency": "TRY", "customer": {"email": "layla@example.com"},
        "payment_method": {"type": "card", "card": CARD}, "metadata": {"order": "1"}})
    await call("GET", f"/api/payments/{pay['id']}", expect=200, headers=h)
    await call("POST", f"/api/payments/{pay['id']}/refund", expect=200, json={"amount": 100, "reason": "x"}, headers=h)
    auth = await call("POST", "/api/payments/create", expect=200, headers=h, json={
        "amount": 5000, "currency": "KWD", "capture": False, "payment_method": {"card": CARD}})
    await call("POST", f"/api/payments/{auth['id']}/capture", expect=200, json={"amount": 4000}, headers=h)
    auth2 = await call("POST", "/api/payments/create", expect=200, headers=h, json={
        "amount": 5000, "currency": "SAR", "capture": False, "payment_method": {"card": CARD}})
    await call("POST", f"/api/payments/{auth2['id']}/void", expect=200, headers=h)
    declined = await call("POST", "/api/payments/create", expect=402, headers=h, json={
        "amount": 5000, "currency": "TRY", "payment_method": {"card": {**CARD, "number": "4000000000000002"}}})
    assert declined["error"]["decline_code"] == "card_declined"
    await call("GET", "/api/payments/list?status=succeeded&limit=10", expect=200, headers=h)
    hook = await call("POST", "/api/webhooks/configure", expect=200, headers=h,
                      json={"url": "http://127.0.0.1:9/hook", "events": ["payment.succeeded"]})
    await call("GET", "/api/webhooks/endpoints", expect=200, headers=h)
    events = await call("GET", "/api/webhooks/events", expect=200, headers=h)
    await call("GET", f"/api/webhooks/events/{events['data'][0]['id']}", expect=200, headers=h)
    await call("POST", f"/api/webhooks/endpoints/{hook['id']}/disable", expect=200, headers=h)

    # /v1
    intent = await call("POST", "/v1/payments/intent", expect=201, headers=h,
                        json={"amount": 10000, "currency": "TRY", "payment_method": "card", "order_id": "1"})
    await call("POST", f"/v1/payments/{intent['id']}/confirm", expect=200, headers=h,
               json={"payment_method_id": "pm_card_visa", "return_url": "https://shop.example/return"})
    await call("GET", f"/v1/payments/{intent['id']}", expect=200, headers=h)
    await call("GET", "/v1/payments?status=succeeded&created[gte]=0&limit=5", expect=200, headers=h)
    other = await call("POST", "/v1/payments/intent", expect=201, headers=h,
                       json={"amount": 2500, "currency": "SAR", "payment_method": "crypto",
                             "crypto_asset": "USDT", "crypto_network": "trc20"})
    await call("POST", f"/v1/test_helpers/payments/{other['id']}/crypto_deposit",
               expect=200, json={"stage": "detected"}, headers=h)
    cod = await call("POST", "/v1/payments/intent", expect=201, headers=h,
                     json={"amount": 9000, "currency": "TRY", "payment_method": "cod",
                           "cod_address": {"line1": "1 Main St", "city": "Istanbul", "country": "TR"}})
    await call("POST", f"/v1/payments/{cod['id']}/cancel", expect=200, json={}, headers=h)
    qr = await call("POST", "/v1/payments/intent", expect=201, headers=h,
                    json={"amount": 1000, "currency": "AED", "payment_method": "qr"})
    await call("GET", f"/v1/payments/{qr['id']}/qr.png", expect=200)
    await call("POST", "/v1/payment_methods", expect=200, json={"type": "card", "card": CARD}, headers=bearer(merchant.pk))

    # CRM
    crm_doc = await document(crm)
    c = Contract(crm, crm_doc)
    tokens = await c("POST", "/api/auth/signup", expect=201,
                     json={"email": new_email(), "password": "Correct-Horse-9-Battery", "name": "Ada", "company_name": "Acme"})
    a = {"Authorization": f"Bearer {tokens['access_token']}"}
    await c("GET", "/api/me", expect=200, headers=a)
    await c("PUT", "/api/company", expect=200, json={"commission_rate": "0.1"}, headers=a)
    await c("POST", "/api/users", expect=201, json={"email": new_email(), "password": "Correct-Horse-9-Battery"},
            headers=a)
    await c("GET", "/api/users", expect=200, headers=a)
    cc = await c("POST", "/api/customers", expect=201, json={"name": "Layla", "phone": "+905551112233", "tags": ["vip"]},
                 headers=a)
    await c("GET", f"/api/customers/{cc['id']}", expect=200, headers=a)
    await c("PUT", f"/api/customers/{cc['id']}", expect=200, json={"name": "Layla H"}, headers=a)
    await c("PUT", f"/api/customers/{cc['id']}", expect=200, json={"address": {"city": "Riyadh", "country": "SA"}},
            headers=a)
    await c("GET", "/api/customers?q=layla&tag=vip", expect=200, headers=a)
    deal = await c("POST", "/api/deals", expect=201, headers=a,
                   json={"title": "Fleet", "customer_id": cc["id"], "value": 100000, "currency": "TRY"})
    await c("PUT", f"/api/deals/{deal['id']}", expect=200, json={"stage": "won"}, headers=a)
    await c("GET", f"/api/deals/{deal['id']}", expect=200, headers=a)
    await c("GET", "/api/deals?stage=won", expect=200, headers=a)
    await c("GET", "/api/commissions", expect=200, headers=a)
    await c("PUT", "/api/reports/rates", expect=200, headers=a,
            json={"base": "TRY", "quote": "KWD", "rate": "0.00712", "rate_date": "2026-01-05"})
    await c("GET", "/api/reports/rates", expect=200, headers=a)
    await c("GET", "/api/reports/revenue?currency=KWD", expect=200, headers=a)
    await c("GET", "/api/reports/pipeline?currency=TRY", expect=200, headers=a)
    await c("GET", "/api/messaging/inbox", expect=200, headers=a)
    await c("GET", "/api/messaging/messages", expect=200, headers=a)
    await c("POST", "/api/messaging/read", expect=200, json={"customer_id": cc["id"]}, headers=a)
    await c("POST", "/api/auth/refresh", expect=200, json={"refresh_token": tokens["refresh_token"]})
    await c("POST", "/api/auth/logout", expect=200, json={}, headers=a)
    await c("DELETE", f"/api/customers/{cc['id']}", expect=401, headers=a)     # the session has ended
    assert len(call.seen) >= 30 and len(c.seen) >= 20


# ---------------------------------------------------------------- /docs and GraphiQL, offline

class _Assets(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name in ("src", "href"):
            if a.get(name) and (tag in ("script", "link", "img", "iframe")):
                self.urls.append(a[name])


EXPECTED_TYPES = {".js": ("application/javascript", "text/javascript"), ".css": ("text/css",),
                  ".png": ("image/png",)}


async def assert_same_origin_page(client, path: str, headers: dict | None = None) -> list[str]:
    r = await client.get(path, headers=headers or {})
    assert r.status == 200 and r.content_type == "text/html", (path, r.status)
    page = await r.text()
    parser = _Assets()
    parser.feed(page)
    assert parser.urls, path
    assets = [u for u in parser.urls if not u.startswith("data:")]
    for url in assets:
        assert url.startswith("/") and not url.startswith("//"), f"{path} loads {url} from elsewhere"
        a = await client.get(url)
        assert a.status == 200, url
        ext = url[url.rfind("."):]
        assert a.content_type in EXPECTED_TYPES[ext], (url, a.content_type)
        if ext == ".js" and url.endswith("init.js"):
            assert "http://" not in await a.text() and "https://" not in await a.text(), url
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), path
    return assets


async def test_docs_page_is_served_with_its_own_assets(client, crm):  # noqa: F811
    for c in (client, crm):
        assets = await assert_same_origin_page(c, "/docs")
        assert "/static/docs/swagger-ui-bundle.js" in assets
        init = await (await c.get("/static/docs/init.js")).text()
        assert 'url: "/openapi.json"' in init and "validatorUrl: null" in init


async def test_graphiql_is_served_with_its_own_assets(client, crm):  # noqa: F811
    for c in (client, crm):
        assets = await assert_same_origin_page(c, "/graphql", {"Accept": "text/html"})
        assert {"/static/graphiql/graphiql.min.js", "/static/graphiql/react.production.min.js",
                "/static/graphiql/react-dom.production.min.js"} <= set(assets)


async def test_static_files_do_not_escape_their_directory(client):
    for path in ("/static/../server.py", "/static/%2e%2e/server.py", "/static/docs/../../settings.py"):
        r = await client.get(path)
        assert r.status in (403, 404), path


async def test_overlong_id_filters_are_refused_not_a_500(crm):  # noqa: F811 - found by schemathesis
    a = await signup(crm)
    long = "0" * 41
    for path in (f"/api/deals?owner_id={long}", f"/api/deals?customer_id={long}", f"/api/commissions?user_id={long}",
                 f"/api/commissions?deal_id={long}", "/api/commissions?status=" + "y" * 20):
        r = await crm.get(path, headers=a.h)
        assert r.status == 400, (path, await r.text())
    r = await crm.get(f"/api/messaging/messages?customer_id={long}", headers=a.h)
    assert r.status == 404 and (await r.json())["error"]["param"] == "customer_id"


async def test_team_answers_validate_against_the_document(client, merchant, mailer, clock):
    """Issue 44's routes: each answer (and the 401/403/410 refusals a member meets) is the documented one."""
    doc = await document(client)
    call = Contract(client, doc)
    owner = bearer(await owner_token(merchant))
    await call("GET", "/api/me", expect=200, headers=owner)
    await call("GET", "/api/me/sessions", expect=200, headers=owner)
    email = uniq("dev")
    await call("POST", "/api/team/invites", expect=201, json={"email": email, "roles": ["developer"]}, headers=owner)
    await call("GET", "/api/team/invites", expect=200, headers=owner)
    accepted = await call("POST", "/api/team/invites/accept", expect=200, json={"token": invite_token(mailer, email)})
    await call("POST", "/api/team/invites/accept", expect=404, json={"token": invite_token(mailer, email)})
    expiring = uniq("late")
    gone = await call("POST", "/api/team/invites", expect=201, json={"email": expiring, "roles": ["analyst"]},
                      headers=owner)
    clock.advance(days=11)
    await call("POST", "/api/team/invites/accept", expect=410, json={"token": invite_token(mailer, expiring)})
    owner = bearer(await owner_token(merchant))          # the first one idled out over those days
    await call("DELETE", f"/api/team/invites/{gone['id']}", expect=200, headers=owner)
    member_id = accepted["member"]["id"]
    await call("GET", "/api/team/members", expect=200, headers=owner)
    await call("GET", f"/api/team/members/{member_id}", expect=200, headers=owner)
    await call("PUT", f"/api/team/members/{member_id}", expect=200, json={"roles": ["analyst"]}, headers=owner)
    analyst = bearer((await auth.open_session(await Member.get(id=member_id))).token)
    denied = await call("POST", "/api/customers", expect=403, json={"name": "Ada"}, headers=analyst)
    assert denied["error"]["code"] == "permission_denied" and denied["error"]["permission"] == "customers_write"
    await call("DELETE", f"/api/team/members/{member_id}", expect=200, headers=owner)
    # an API key: no team writes; a role without the permission: permission_denied naming it
    refused = await call("POST", "/api/team/invites", expect=403, json={"email": uniq("x"), "roles": ["analyst"]},
                         headers=bearer(merchant.sk))
    assert refused["error"]["code"] == "member_required"
    await call("PUT", "/api/merchant", expect=200, json={"require_two_factor": False}, headers=bearer(merchant.sk))

    enrolled = await call("POST", "/api/me/two-factor/enroll", expect=200, headers=owner)
    confirmed = await call("POST", "/api/me/two-factor/confirm", expect=200, headers=owner,
                           json={"code": totp(enrolled["secret"], clock)})
    assert len(confirmed["recovery_codes"]) == 10
    clock.advance(seconds=30)
    await call("POST", "/api/auth/step-up", expect=200, json={"code": totp(enrolled["secret"], clock)}, headers=owner)
    await call("PUT", "/api/payout-settings", expect=200, headers=owner,
               json={"iban": "SA03 8000 0000 6080 1016 7519", "account_holder_name": "Shop LLC"})
    await call("GET", "/api/payout-settings", expect=200, headers=owner)
    await call("GET", "/api/audit-events?limit=5", expect=200, headers=owner)
    csv = await call("GET", "/api/audit-events?format=csv", expect=200, headers=owner)
    assert csv.startswith(b"id,created_at,actor_type")

    # sign-in with the second factor, into a cookie session
    request_id, code = await request_code(client, mailer, merchant.email)
    challenge = await call("POST", "/api/auth/verify-otp", expect=200,
                           json={"request_id": request_id, "otp": code, "session": "cookie"})
    assert challenge["two_factor"] == "challenge"
    clock.advance(seconds=30)
    r = await client.post("/api/auth/verify-two-factor",
                          json={"challenge_id": challenge["challenge_id"], "code": totp(enrolled["secret"], clock)})
    signed_in = await r.json()
    assert r.status == 200 and "token" not in signed_in, signed_in
    check_schema(doc, doc["paths"]["/api/auth/verify-two-factor"]["post"]["responses"]["200"]["content"][
        "application/json"]["schema"], signed_in)
    cookie = r.cookies["qafila_session"].value
    await call("GET", "/api/me", expect=200, headers=cookie_header(cookie))
    refused = await call("POST", "/api/me/sessions/revoke-others", expect=403, headers=cookie_header(cookie))
    assert refused["error"]["code"] == "csrf_failed"
    await call("POST", "/api/me/sessions/revoke-others", expect=200,
               headers=cookie_header(cookie, signed_in["csrf_token"]))
    await call("DELETE", f"/api/me/sessions/{signed_in['session_id']}", expect=200,
               headers=cookie_header(cookie, signed_in["csrf_token"]))
    ended = await call("GET", "/api/me", expect=401, headers=cookie_header(cookie))
    assert ended["error"]["code"] == "session_revoked"
    await call("GET", "/api/me", expect=401, headers=owner)      # revoke-others ended it
    owner = bearer(await owner_token(merchant))
    await call("PUT", "/api/merchant", expect=200, json={"require_two_factor": True}, headers=bearer(merchant.sk))
    clock.advance(seconds=30)
    enforced = await call("POST", "/api/me/two-factor/disable", expect=409, headers=owner,
                          json={"code": totp(enrolled["secret"], clock)})
    assert enforced["error"]["code"] == "two_factor_enforced"
    await call("POST", "/api/auth/sign-out", expect=403, headers=bearer(merchant.sk))
    await call("POST", "/api/auth/sign-out", expect=200, headers=owner)
