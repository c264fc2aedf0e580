"""GİB's rules shipped with Qafila (services/einvoicing/gib/rules.py and data/): the sandbox
integrator, in-process and over POST /sandbox/gib/documents, refuses a document GİB's schematron
refuses, each message GİB's rule id and GİB's own text; efatura-kontrol (a test dependency: the same
GİB files, its own code) reaches the same verdicts, rule by rule, on documents the app issued and on
broken copies of them; nothing of it loads when the app starts; the runtime dependencies name neither
efatura-kontrol nor mcp, and a wheel carries every shipped file."""
from __future__ import annotations

import base64
import copy
import fnmatch
import subprocess
import sys
import tomllib
import uuid
from decimal import Decimal
from pathlib import Path

from efatura_kontrol.kontrol import kontrol_et
from lxml import etree

from services.einvoicing.gib import rules, sandbox, ubl
from tests.gib_fixtures import in_2026  # noqa: F401
from tests.gib_fixtures import REGISTERED, buyer, mark_paid, setup, try_invoice, vkn, xml_of

ROOT = Path(__file__).resolve().parent.parent
BAD_TYPE = ("Geçersiz cbc:InvoiceTypeCode elemanı değeri : 'BOGUS'. Geçerli cbc:InvoiceTypeCode değerleri için "
            "kod listesine bakınız.")
IADE_PROFILE = ("Fatura tipi IADE iken fatura profili sadece TEMELFATURA , EARSIVFATURA, ILAC_TIBBICIHAZ, "
                "YATIRIMTESVIK, IDIS veya KAMU olabilir")
BASIC = {"Authorization": "Basic " + base64.b64encode(b"qafila:pa55-word").decode()}


def unsigned(when, *, profile: str = "EARSIVFATURA", type_code: str = "SATIS") -> bytes:
    """An unsigned UBL-TR invoice as Qafila builds one, for the integrator to sign and check."""
    seller = ubl.Party("Qafila Ticaret A.Ş.", vkn="1234567808", tax_office="Kadıköy",
                       address={"district": "Kadıköy", "city": "İstanbul"})
    buyer_ = ubl.Party("A B", tckn="11111111111") if profile == "EARSIVFATURA" else \
        ubl.Party("Deneme Sanayi Ltd. Şti.", vkn=REGISTERED, tax_office="Beşiktaş",
                  address={"district": "Beşiktaş", "city": "İstanbul"})
    doc = ubl.Document(number=f"QAF{ubl.local(when).year}000000001", uuid=str(uuid.uuid4()), issued_at=when,
                       profile=profile, type_code=type_code, seller=seller, buyer=buyer_,
                       lines=[ubl.Line("Widget", 3, 1999, 5997)], tax_rate=Decimal(20))
    return ubl.to_bytes(ubl.build(doc))


def changed(xml: bytes, path: str, value: str | None) -> bytes:
    """A copy of `xml` with the element at `path` set to `value` (None: removed)."""
    root = copy.deepcopy(etree.fromstring(xml))
    node = root.xpath(path, namespaces=ubl.XPATH_NS)[0]
    if value is None:
        node.getparent().remove(node)
    else:
        node.text = value
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


async def test_the_sandbox_refuses_in_process_with_gibs_rule_id_and_text(client, merchant, clock):
    when = clock.now()
    ok = await sandbox.send(unsigned(when), merchant_id=merchant.id, livemode=False, when=when, alias=None)
    assert ok["status"] == "sent" and ok["messages"] == [], ok
    bad = await sandbox.send(unsigned(when, type_code="BOGUS"), merchant_id=merchant.id, livemode=False,
                             when=when, alias=None)
    assert bad["status"] == "rejected" and "signed" not in bad
    assert [(m["code"], m["message"]) for m in bad["messages"]] == [("InvoiceTypeCodeCheck-1", BAD_TYPE)]


async def test_the_sandbox_over_http_refuses_with_gibs_rule_ids(client, clock):
    when = clock.now()
    alias = sandbox.alias_of(REGISTERED)

    async def post(xml: bytes) -> dict:
        r = await client.post("/sandbox/gib/documents", headers=BASIC,
                              json={"xml": base64.b64encode(xml).decode(), "alias": alias, "at": when.isoformat()})
        assert r.status == 200, await r.text()
        return await r.json()

    ok = await post(unsigned(when, profile="TICARIFATURA"))
    assert ok["status"] == "sent" and ok["messages"] == [], ok
    out = await post(unsigned(when, profile="TICARIFATURA", type_code="IADE"))     # GİB: no IADE in TICARIFATURA
    assert out["status"] == "rejected", out
    by_code = {m["code"]: m["message"] for m in out["messages"]}
    # and an IADE names the invoice it returns (cac:BillingReference): GİB's second rule
    assert set(by_code) == {"InvoiceTypeCodeCheck-2", "IADEInvioceCheck-1"}, out
    assert by_code["InvoiceTypeCodeCheck-2"] == IADE_PROFILE
    out = await post(unsigned(when, profile="TICARIFATURA", type_code="BOGUS"))
    assert [(m["code"], m["message"]) for m in out["messages"]] == [("InvoiceTypeCodeCheck-1", BAD_TYPE)], out


def _theirs(xml: bytes) -> tuple[list[tuple[str, str]], int, bool]:
    """efatura-kontrol's verdict on GİB's rules: its schematron findings, its XSD error count, valid."""
    found = [b for b in kontrol_et(xml).bulgular if b.seviye == "hata"]
    sch = sorted((b.kod.removeprefix("sch-"), b.mesaj) for b in found if b.kaynak == "sematron")
    return sch, sum(b.kaynak == "xsd" for b in found), not found


def _ours(xml: bytes) -> tuple[list[tuple[str, str]], int, bool]:
    found = rules.check(xml)
    sch = sorted((m["code"], m["message"]) for m in found if m["source"] == "schematron")
    return sch, sum(m["source"] == "xsd" for m in found), not found


async def test_efatura_kontrol_agrees_with_the_shipped_rules(client, merchant):
    """The cross-check: the app's own documents (an e-Arşiv and an e-Fatura, signed by the sandbox)
    and broken copies of them, through both validators."""
    await setup(client, merchant.sk)
    earsiv_inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk,
                                                                         await buyer(client, merchant.sk)))["id"])
    cid = await buyer(client, merchant.sk, tax_id=vkn(REGISTERED), name="Deneme Sanayi Ltd. Şti.")
    efatura_inv = await mark_paid(client, merchant.sk, (await try_invoice(client, merchant.sk, cid))["id"])
    assert (earsiv_inv["gib"]["type"], efatura_inv["gib"]["type"]) == ("earsiv", "efatura")
    earsiv = await xml_of(client, merchant.sk, earsiv_inv["id"])
    efatura = await xml_of(client, merchant.sk, efatura_inv["id"])
    docs = {
        "e-Arşiv": (earsiv, True),
        "e-Fatura": (efatura, True),
        "unknown type code": (changed(earsiv, "cbc:InvoiceTypeCode", "BOGUS"), False),
        "IADE in TICARIFATURA": (changed(changed(efatura, "cbc:ProfileID", "TICARIFATURA"),
                                         "cbc:InvoiceTypeCode", "IADE"), False),
        "e-Arşiv profile on an e-Fatura's type": (changed(efatura, "cbc:InvoiceTypeCode", "TEKNOLOJIDESTEK"), False),
        "no UUID (XSD)": (changed(earsiv, "cbc:UUID", None), False),
        "30 February": (changed(earsiv, "cbc:IssueDate", "2026-02-30"), False),
        "unknown currency": (changed(efatura, "cbc:DocumentCurrencyCode", "XYZ"), False),
    }
    for name, (xml, valid) in docs.items():
        ours, theirs = _ours(xml), _theirs(xml)
        assert ours == theirs, name
        assert ours[2] is valid, (name, ours)
    assert ("InvoiceTypeCodeCheck-1", BAD_TYPE) in _ours(docs["unknown type code"][0])[0]
    assert _ours(docs["no UUID (XSD)"][0])[1] > 0


def test_a_document_that_is_not_an_invoice_is_refused():
    assert [m["code"] for m in rules.check(b"<x/>")] == ["xml"]
    assert [m["code"] for m in rules.check(b"<Invoice")] == ["xml"]


def test_nothing_of_the_rules_loads_when_the_app_starts():
    """Saxon and the XSDs load on the first check, not with the app (nor efatura-kontrol, nor mcp)."""
    code = ("import sys; from app.server import create_app; create_app(); "
            "print(sorted(m for m in ('saxonche', 'efatura_kontrol', 'mcp', 'starlette', 'uvicorn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_the_runtime_dependencies_and_the_shipped_files():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = [d.split(";")[0].split("[")[0].split("<")[0].split(">")[0].split("=")[0].strip().lower()
             for d in project["project"]["dependencies"]]
    assert "saxonche" in names and "efatura-kontrol" not in names and "mcp" not in names
    assert any(d.startswith("efatura-kontrol") for d in project["project"]["optional-dependencies"]["test"])
    globs = project["tool"]["setuptools"]["package-data"]["services.einvoicing.gib"]
    package = ROOT / "services" / "einvoicing" / "gib"
    shipped = [p.relative_to(package).as_posix() for p in (package / "data").rglob("*") if p.is_file()]
    assert {"data/NOTE.md", "data/schematron/efatura.sch", "data/schematron/efatura.xsl",
            "data/xsd/maindoc/UBL-Invoice-2.1.xsd"} <= set(shipped)
    assert [f for f in shipped if not any(fnmatch.fnmatch(f, g) for g in globs)] == []
    assert fnmatch.fnmatch(rules.COMPILED.relative_to(package).as_posix(), "data/schematron/*")


def test_no_runtime_code_imports_efatura_kontrol():
    """efatura-kontrol is a test dependency only: the served code never names it."""
    named = [str(p.relative_to(ROOT)) for top in ("app", "services", "schema", "rest_compat", "models")
             for p in (ROOT / top).rglob("*.py") if "efatura_kontrol" in p.read_text(encoding="utf-8")]
    assert named == []
