"""GİB's rules on a UBL-TR invoice, checked offline as GİB and its integrators check them: the
UBL-TR 1.2.1 XSDs (lxml) and the e-Fatura package's schematron, compiled once to XSLT and run with
SaxonC-HE (saxonche). The files are GİB's, shipped under data/ (data/NOTE.md names their source,
version and date); this module only loads and runs them.

`check(xml)` answers the errors as `{code, message, source}`: an XSD error is `code` "xsd" with
libxml2's text; a failed schematron assertion is GİB's rule id (`InvoiceTypeCodeCheck-1`) with
GİB's own text. Both validators load on first use, once per process (0.3-0.7 s; about 130 MB of
resident memory, mostly SaxonC's native heap holding GİB's 503 compiled assertions: a process
that never checks a GİB document never pays it, and each forked worker loads its own), and are
reused after that; checks run one at a time under a lock (a SaxonC executable and lxml's schema
error log are not for concurrent use; any thread may call), 2-10 ms a document.

`python -m services.einvoicing.gib.rules compile TRANSPILE_XSL` recompiles the shipped
schematron (data/schematron/efatura.sch) to data/schematron/efatura.xsl with SchXslt2's
transpile.xsl (see data/NOTE.md)."""
from __future__ import annotations

import pathlib
import sys
import threading

from lxml import etree

DATA = pathlib.Path(__file__).parent / "data"
XSD = DATA / "xsd" / "maindoc" / "UBL-Invoice-2.1.xsd"
SCHEMATRON = DATA / "schematron" / "efatura.sch"
COMPILED = DATA / "schematron" / "efatura.xsl"

INVOICE = "{urn:oasis:names:specification:ubl:schema:xsd:Invoice-2}Invoice"
_PROFILE = "{urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2}ProfileID"
_SVRL = "{http://purl.oclc.org/dsdl/svrl}"
_SCHXSLT = "{http://dmaus.name/ns/2023/schxslt}"
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True)


def _text(node: etree._Element) -> str:
    return " ".join("".join(node.itertext()).split())


class _Rules:
    """The XSD and the compiled schematron, loaded once."""

    def __init__(self) -> None:
        from saxonche import PySaxonProcessor

        self.schema = etree.XMLSchema(etree.parse(str(XSD)))     # our own files: their DTD entities resolve
        self.saxon = PySaxonProcessor(license=False)
        self.executable = self.saxon.new_xslt30_processor().compile_stylesheet(stylesheet_file=str(COMPILED))
        self.kind: str | None = None

    def xsd(self, doc: etree._Element) -> list[dict]:
        if self.schema.validate(doc):
            return []
        return [{"code": "xsd", "source": "xsd", "message": f"line {e.line}: {e.message}"}
                for e in self.schema.error_log]

    def schematron(self, xml: str, kind: str) -> list[dict]:
        # The schematron's $type: GİB's e-Arşiv rules ("earchive") or e-Fatura rules ("efatura").
        if kind != self.kind:
            self.executable.set_parameter("type", self.saxon.make_string_value(kind))
            self.kind = kind
        svrl = self.executable.transform_to_string(xdm_node=self.saxon.parse_xml(xml_text=xml))
        report = etree.fromstring(svrl.encode("utf-8"), _PARSER)
        out = []
        for failed in report.iter(_SVRL + "failed-assert"):
            text = failed.find(_SVRL + "text")
            out.append({"code": failed.get("id") or "schematron", "source": "schematron",
                        "message": _text(text) if text is not None else failed.get("test", "")})
        for error in report.iter(_SVRL + "error"):       # a rule the document makes fail to evaluate
            out.append({"code": "schematron-error", "source": "schematron",
                        "message": f"{error.get('code')}: {_text(error)}"})
        return out


_rules: _Rules | None = None
_lock = threading.Lock()


def check(xml: bytes) -> list[dict]:
    """GİB's XSD and schematron errors on a UBL-TR invoice ([] when GİB's rules take it)."""
    global _rules
    try:
        doc = etree.fromstring(xml, _PARSER)
    except etree.XMLSyntaxError as exc:
        return [{"code": "xml", "source": "xml", "message": f"not well-formed XML: {exc}"}]
    if doc.tag != INVOICE:
        return [{"code": "xml", "source": "xml", "message": f"not a UBL-TR Invoice: the root is {doc.tag}"}]
    kind = "earchive" if (doc.findtext(_PROFILE) or "").strip() == "EARSIVFATURA" else "efatura"
    with _lock:
        if _rules is None:
            _rules = _Rules()
        return _rules.xsd(doc) + _rules.schematron(xml.decode("utf-8"), kind)


def compile_schematron(transpile: pathlib.Path, source: pathlib.Path = SCHEMATRON,
                       target: pathlib.Path = COMPILED) -> int:
    """Compiles the schematron to XSLT with SchXslt2's transpile.xsl; a rule that fails to
    evaluate is reported (svrl:error), not fatal. Answers the size written."""
    from saxonche import PySaxonProcessor

    with PySaxonProcessor(license=False) as saxon:
        transpiler = saxon.new_xslt30_processor()
        transpiler.set_parameter(_SCHXSLT + "terminate-validation-on-error", saxon.make_boolean_value(False))
        compiled = transpiler.compile_stylesheet(stylesheet_file=str(transpile)).transform_to_string(
            xdm_node=saxon.parse_xml(xml_text=source.read_text(encoding="utf-8")))
    # GİB's rules are written for XPath 1.0 semantics (a path of several nodes compared or cast
    # as its first): the stylesheet runs in XSLT's backwards-compatible mode.
    compiled = compiled.replace('version="3.0"', 'version="1.0"', 1)
    target.write_text(compiled, encoding="utf-8", newline="\n")
    return len(compiled)


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "compile":
        print("usage: python -m services.einvoicing.gib.rules compile PATH/TO/schxslt2/transpile.xsl",
              file=sys.stderr)
        return 2
    size = compile_schematron(pathlib.Path(argv[1]))
    print(f"{COMPILED}: {size} characters")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
