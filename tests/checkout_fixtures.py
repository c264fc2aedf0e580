"""Helpers for the checkout tests: payment links, the hosted pages over plain HTTP (no
JavaScript: the form's CSRF token is read from the page), sandbox cards."""
from __future__ import annotations

import re
from html import unescape

from tests.helpers import bearer

APPROVED = "4242 4242 4242 4242"
DECLINED = "4000 0000 0000 0002"
THREE_DS = "4000 0025 0000 3155"


async def call(client, method: str, path: str, key: str, body: dict | None = None):
    r = await client.request(method, path, json=body, headers=bearer(key))
    return r.status, await r.json()


async def make_link(client, key: str, *, expect: int = 200, **body) -> dict:
    body = {"amount": 15000, "currency": "TRY", "description": "Handmade rug", **body}
    status, link = await call(client, "POST", "/api/payment-links", key, body)
    assert status == expect, link
    return link


def path_of(url: str) -> str:
    """The path of a pay URL (the tests' QAFILA_PAY_URL is https://pay.qafila.test, served by the
    same app under its own path: the empty one)."""
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


def csrf_of(html: str) -> str:
    m = re.search(r'name="csrf" value="([^"]+)"', html)
    assert m, "no CSRF token in the page"
    return unescape(m.group(1))


# What a browser set to English sends. Without any language named, a page is in the merchant's
# default language (its market's: Turkish for these tests' TR merchants); `**{"Accept-Language": ""}`
# sends none.
BROWSER_LANGUAGE = {"Accept-Language": "en-US,en;q=0.9"}


def _browser(headers: dict) -> dict:
    out = {**BROWSER_LANGUAGE, **headers}
    return {k: v for k, v in out.items() if v != ""}


async def open_page(client, url_or_path: str, **headers) -> tuple[int, str, dict]:
    path = path_of(url_or_path) if "://" in url_or_path else url_or_path
    r = await client.get(path, headers=_browser(headers), allow_redirects=False)
    return r.status, await r.text(), r.headers


def card_form(number: str = APPROVED, *, expiry: str = "12/30", cvc: str = "123", name: str = "Ayşe Yılmaz",
              **extra) -> dict:
    return {"action": "card", "number": number, "expiry": expiry, "cvc": cvc, "name": name, **extra}


async def submit(client, path: str, form: dict, *, csrf: str | None = "from-page", fetch: bool = False,
                 headers: dict | None = None):
    """POST the page's form the way a browser without JavaScript does (or checkout.js with fetch)."""
    headers = _browser(headers or {})
    if csrf == "from-page":
        _, html, _ = await open_page(client, path, **headers)
        csrf = csrf_of(html)
    data = dict(form)
    if csrf is not None:
        data["csrf"] = csrf
    if fetch:
        headers["X-Qafila-Fetch"] = "1"
    r = await client.post(path, data=data, headers=headers, allow_redirects=False)
    return r.status, (await r.json() if fetch else await r.text()), r.headers
