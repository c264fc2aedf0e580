"""The README fits and points everywhere it should: at most 350 lines, an opening that names what
Qafila is today, the set-up commands CI runs, one guide per subject in docs/, and no relative link
(README -> docs, docs -> docs, docs -> ../README.md, #anchors) that leads nowhere."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from services.money.currencies import CURRENCIES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"

GUIDES = ("payments.md", "intents.md", "local-methods.md", "installments.md", "wallets.md", "bnpl.md",
          "checkout.md", "billing.md", "einvoicing.md", "money.md", "crm.md", "webhooks.md", "team.md", "dashboard.md", "marketplace.md", "clients.md",
          "performance.md", "operations.md", "decisions.md")

# What the opening (the first 40 lines) must name, as written there (word boundaries, case kept).
OPENING_TERMS = ("TRY", "SAR", "AED", "KWD", "BHD", "QAR", "OMR", "JOD", "EGP", "IQD",
                 "mada", "KNET", "BenefitPay", "Fawry", "STC Pay", "taksit", "Apple Pay", "Google Pay",
                 "BNPL", "ZATCA", "GİB e-Fatura", "ETA", "CRM", "client libraries")

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~)")


def _prose(text: str) -> str:
    """The text without fenced code blocks and inline code spans: a link shown as code is no link."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            out.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(out)


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)          # a link in a heading: its text
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not m:
            continue
        slug = _slug(m.group(1))
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        anchors.add(slug if n == 0 else f"{slug}-{n}")
    return anchors


def _documents() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def _relative_links(path: Path) -> list[str]:
    links = LINK.findall(_prose(path.read_text(encoding="utf-8")))
    return [t for t in links if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", t)]    # no http:, mailto:, ...


def test_the_readme_is_at_most_350_lines():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 350, f"README.md has {len(lines)} lines"


def test_the_opening_names_what_qafila_is_today():
    opening = "\n".join(README.read_text(encoding="utf-8").splitlines()[:40]).replace("**", "")
    opening = re.sub(r"\s+", " ", opening)
    wanted = list(OPENING_TERMS) + [c for c in CURRENCIES if c not in OPENING_TERMS]   # the currency table's own
    missing = [t for t in wanted if not re.search(rf"(?<!\w){re.escape(t)}(?!\w)", opening)]
    assert not missing, f"the first 40 lines of README.md do not name {missing}"


def test_the_readme_gives_the_setup_commands_ci_runs():
    readme = README.read_text(encoding="utf-8")
    assert "pip install -e . && qafila serve --demo" in readme
    assert "pip install -e '.[test]' && pytest" in readme
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "TEST_CMD=\"pip install -q -e '.[test]' && pytest\"" in ci
    for section in ("## A first walk-through", "## Configuration", "## Running it in production", "## Guides"):
        assert section in readme.splitlines(), section
    production = readme.split("## Running it in production", 1)[1].split("\n## ", 1)[0]
    for word in ("PostgreSQL", "Redis", "--workers", "qafila worker"):
        assert word in production, word


@pytest.mark.parametrize("guide", GUIDES)
def test_each_guide_exists_and_the_readme_links_it(guide):
    path = DOCS / guide
    assert path.is_file(), f"docs/{guide} is missing"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# "), f"docs/{guide} opens without a title"
    assert len(text.splitlines()) > 5, f"docs/{guide} is empty"
    assert f"docs/{guide}" in _relative_links(README), f"README.md does not link docs/{guide}"


def test_every_guide_in_docs_is_linked_from_the_readme():
    linked = {t.split("#", 1)[0] for t in _relative_links(README)}
    unlinked = [p.name for p in DOCS.glob("*.md") if f"docs/{p.name}" not in linked]
    assert not unlinked, f"README.md does not link {unlinked}"


def test_every_relative_link_resolves():
    broken = []
    checked = 0
    for doc in _documents():
        for target in _relative_links(doc):
            checked += 1
            file_part, _, anchor = target.partition("#")
            dest = (doc.parent / file_part).resolve() if file_part else doc
            if not dest.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such file)")
                continue
            if anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no heading #{anchor})")
    assert checked > 40                     # the map alone has one per guide: the links were found
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_performance_table_moved_with_its_numbers():
    perf = (DOCS / "performance.md").read_text(encoding="utf-8")
    assert "| path | reference | ratio: median (rounds' range) | goal | met? |" in perf
    assert "| `GET /v1/payments/:id` | `/read-documented` |" in perf
    assert "python bench/run.py" in perf


def test_the_link_checker_catches_a_broken_link(tmp_path):
    """The checks above can fail: a missing file and a missing heading are both found."""
    doc = tmp_path / "a.md"
    (tmp_path / "b.md").write_text("# B\n\n## A heading (here)\n", encoding="utf-8")
    doc.write_text("[ok](b.md#a-heading-here) [gone](c.md) [no anchor](b.md#nowhere) `[code](x.md)`\n"
                   "```\n[fenced](y.md)\n```\n[web](https://example.com)\n", encoding="utf-8")
    assert _relative_links(doc) == ["b.md#a-heading-here", "c.md", "b.md#nowhere"]
    assert "a-heading-here" in _anchors(tmp_path / "b.md")
    assert "nowhere" not in _anchors(tmp_path / "b.md")
    assert not (tmp_path / "c.md").exists()
