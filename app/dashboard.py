"""The merchant dashboard: a React application (source in `dashboard/`, built into
app/static/dashboard/ and committed, so an install needs no Node) that speaks only to /graphql.

`/dashboard` and every `/dashboard/{tail}` answer its index.html (the router in the page picks the
view), never cached and under a strict Content-Security-Policy: no inline script or style, no
other origin. `/dashboard/assets/*` are the build's content-hashed files, cached for a year."""
from __future__ import annotations

import re
from pathlib import Path

from aiohttp import web

DIST = Path(__file__).parent / "static" / "dashboard"
ASSETS = DIST / "assets"

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
PAGE_HEADERS = {"Cache-Control": "no-cache", "Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "same-origin", "X-Frame-Options": "DENY"}
ASSET_HEADERS = {"Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff"}
_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css", ".woff2": "font/woff2",
          ".woff": "font/woff", ".ttf": "font/ttf", ".svg": "image/svg+xml", ".png": "image/png",
          ".ico": "image/x-icon", ".json": "application/json", ".map": "application/json",
          ".webp": "image/webp", ".jpg": "image/jpeg"}
_ASSET_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$")


async def page(request: web.Request) -> web.Response:
    index = DIST / "index.html"
    try:
        body = index.read_bytes()
    except FileNotFoundError:
        return web.Response(status=404, text="The dashboard is not built: cd dashboard && npm ci && npm run build",
                            headers={"Cache-Control": "no-cache"})
    return web.Response(body=body, content_type="text/html", charset="utf-8", headers=PAGE_HEADERS)


async def asset(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    path = ASSETS / name
    if not _ASSET_NAME.match(name) or not path.is_file():
        raise web.HTTPNotFound(text="no such dashboard asset", headers={"Cache-Control": "no-cache"})
    headers = dict(ASSET_HEADERS)
    headers["Content-Type"] = _TYPES.get(path.suffix, "application/octet-stream")
    return web.FileResponse(path, headers=headers)


def install(app: web.Application) -> None:
    app.router.add_get("/dashboard/assets/{name}", asset)
    app.router.add_get("/dashboard", page)
    app.router.add_get("/dashboard/{tail:.*}", page)
