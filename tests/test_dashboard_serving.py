"""The dashboard's build is committed and served by the service itself: index.html for every
/dashboard route under the CSP, the hashed assets cached for a year, and the schema the
front end's types were generated from equal to the live one."""
from __future__ import annotations

import re
from pathlib import Path

from app.dashboard import CSP, DIST
from schema import build_schema

ROOT = Path(__file__).resolve().parent.parent
EXPECTED_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
                "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
                "form-action 'self'; frame-ancestors 'none'")


def test_committed_schema_is_the_live_schema():
    committed = (ROOT / "dashboard" / "schema.graphql").read_text(encoding="utf-8")
    assert committed.strip() == build_schema().as_str().strip(), (
        "dashboard/schema.graphql is stale: qafila schema > dashboard/schema.graphql, then "
        "cd dashboard && npm run build")


def test_csp_is_the_documented_one():
    assert CSP == EXPECTED_CSP


async def test_every_route_answers_the_page_under_the_csp(client):
    index = (DIST / "index.html").read_text(encoding="utf-8")
    for path in ("/dashboard", "/dashboard/", "/dashboard/login?next=%2Fdashboard%2Fpayments",
                 "/dashboard/payments", "/dashboard/payments/pay_123", "/dashboard/settings/audit"):
        r = await client.get(path)
        assert r.status == 200, path
        assert r.headers["Content-Type"].startswith("text/html")
        assert r.headers["Cache-Control"] == "no-cache"
        assert r.headers["Content-Security-Policy"] == EXPECTED_CSP
        assert await r.text() == index


def test_page_has_no_inline_script_or_style_and_no_other_origin():
    index = (DIST / "index.html").read_text(encoding="utf-8")
    for m in re.finditer(r"<script\b([^>]*)>(.*?)</script>", index, re.S):
        assert "src=" in m.group(1) and not m.group(2).strip(), "inline script in index.html"
    assert "<style" not in index and " style=" not in index
    assert not re.search(r"""(src|href)=["'](https?:)?//""", index), "index.html refers to another origin"
    refs = re.findall(r"""(?:src|href)=["'](/dashboard/assets/[^"']+)["']""", index)
    assert refs, "index.html loads no built asset"
    for ref in refs:
        assert (DIST / ref.removeprefix("/dashboard/")).is_file(), ref


async def test_assets_are_immutable_and_unknown_ones_404(client):
    index = (DIST / "index.html").read_text(encoding="utf-8")
    js = re.search(r"""src=["'](/dashboard/assets/[^"']+\.js)["']""", index).group(1)
    r = await client.get(js)
    assert r.status == 200
    assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert r.headers["Content-Type"].startswith("text/javascript")
    assert (await r.read()) == (DIST / js.removeprefix("/dashboard/")).read_bytes()
    for bad in ("/dashboard/assets/nope.js", "/dashboard/assets/..%2Findex.html", "/dashboard/assets/.hidden"):
        assert (await client.get(bad)).status == 404, bad


def test_built_files_use_no_eval_and_no_cdn():
    for f in (DIST / "assets").iterdir():
        if f.suffix in (".js", ".css"):
            text = f.read_text(encoding="utf-8", errors="replace")
            if f.suffix == ".css":
                assert not re.search(r"""url\(\s*["']?(https?:)?//""", text), f"{f.name} loads from another origin"
            assert "new Function(" not in text and not re.search(r"\beval\(", text), f
