"""The layer direction of DESIGN.md, enforced: models <- services <- {schema, rest_compat} <- app."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_linter_contracts_hold():
    result = subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; "
                             "lint_imports_command()"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 2 kept, 0 broken." in result.stdout


# ---------------------------------------------------------------- services/: imports point one way

DOMAINS = ("services.billing", "services.crm", "services.identity", "services.money", "services.payments")


def _services_graph():
    import grimp
    return grimp.build_graph("services", "models", include_external_packages=False, cache_dir=None)


def _cycles(graph, modules: set[str]) -> list[list[str]]:
    """The import cycles among `modules` (strongly connected components of more than one module)."""
    edges = {m: {i for i in graph.find_modules_directly_imported_by(m) if i in modules} for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for m in sorted(modules):
        if m not in index:
            visit(m)
    return found


def test_services_have_no_import_cycle():
    """No circle of imports anywhere in services/ (the one that tied billing, money, payments and
    the scheduler together is untied: one clock at the kernel, job kinds registered by the app, the
    payment's event shape in its own module). Imports inside functions count too."""
    graph = _services_graph()
    modules = {m for m in graph.modules if m.startswith("services")}
    assert "services.scheduler" in modules and "services.money.disputes" in modules
    assert _cycles(graph, modules) == []


def test_cycle_finder_sees_a_cycle():
    """The check above can fail: the circle as it was (two of its edges added back) is found."""
    graph = _services_graph()
    graph.add_import(importer="services.scheduler", imported="services.billing.subscriptions")
    graph.add_import(importer="services.money.analytics", imported="services.billing.test_clock")
    modules = {m for m in graph.modules if m.startswith("services")}
    assert any("services.scheduler" in c and "services.billing.subscriptions" in c for c in _cycles(graph, modules))


def test_scheduler_and_clock_import_no_domain():
    """The scheduler and the clock are kernel: they import no domain, even indirectly; each domain
    registers its job kinds with the scheduler when the app starts (app/jobs.py)."""
    graph = _services_graph()
    for kernel in ("services.scheduler", "services.infra.clock"):
        reached = graph.find_upstream_modules(kernel)
        assert not [m for m in reached if m.startswith(DOMAINS)], kernel


async def test_every_domain_job_kind_is_registered_at_start(client):
    """Nothing registers on import any more: the app's start registers every kind, in the order
    ties at one instant run (settling before disputes before renewals, as before; ZATCA reporting last)."""
    from services import scheduler
    assert [j.name for j in scheduler.JOBS] == ["settlement.settle", "settlement.payout", "dispute.open",
                                                "dispute.decide", "subscription.renewal",
                                                "subscription.dunning_retry", "intent.expire", "fawry.expire",
                                                "bnpl.authorization_expire", "zatca.submit",
                                                "einvoicing.submit", "gib.report", "gib.payment_invoice",
                                                "gib.intent_invoice", "eta.receipt_build", "eta.receipt_submit",
                                                    "marketplace.split_release", "marketplace.payouts",
                                                    "marketplace.past_due"]


# ---------------------------------------------------------------- app/checkout: no circle either

def _checkout_graph():
    import grimp
    return grimp.build_graph("app", include_external_packages=False, cache_dir=None)


def _checkout_modules(graph) -> set[str]:
    return {m for m in graph.modules if m.startswith("app.checkout.")}


def test_checkout_pages_have_no_import_cycle():
    """The checkout pages and the sandbox bank pages share their pieces through app.checkout.common
    and import neither each other nor anything that leads back (imports inside functions count)."""
    graph = _checkout_graph()
    modules = _checkout_modules(graph)
    assert {"app.checkout.pages", "app.checkout.sandbox", "app.checkout.common"} <= modules
    assert _cycles(graph, modules) == []
    assert not graph.chain_exists(importer="app.checkout.pages", imported="app.checkout.sandbox")
    assert not graph.chain_exists(importer="app.checkout.sandbox", imported="app.checkout.pages")
    assert not [m for m in graph.find_modules_directly_imported_by("app.checkout.common")
                if m in {"app.checkout.pages", "app.checkout.sandbox", "app.checkout.local"}]


def test_checkout_cycle_finder_sees_the_old_circle():
    """The check above can fail: the circle as it was (pages importing sandbox back) is found."""
    graph = _checkout_graph()
    graph.add_import(importer="app.checkout.pages", imported="app.checkout.sandbox")
    graph.add_import(importer="app.checkout.sandbox", imported="app.checkout.pages")
    assert ["app.checkout.pages", "app.checkout.sandbox"] in _cycles(graph, _checkout_modules(graph))
