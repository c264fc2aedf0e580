"""`/metrics` in the Prometheus text format (prometheus-client), for the people who run the service.

- requests by route template (the router's, never the raw path) and status, with latency histograms;
- payments and intents by object, method, provider and outcome (from the events services record);
- webhook delivery attempts by outcome, and the outbox's age (its oldest undelivered event);
- scheduler lag (how long the oldest due job has waited), database and store pool use.

On by default in development and test, off in production unless QAFILA_METRICS=1 (QAFILA_METRICS=0
turns it off anywhere). Under `qafila serve --workers N` every process writes its samples to
PROMETHEUS_MULTIPROC_DIR (`{QAFILA_VAR_DIR}/prometheus`, emptied at start) and any of them answers
the scrape with the sum. Labels are closed sets (templates, methods, statuses, provider and method
names): never a key, an id or an amount."""
from __future__ import annotations

import asyncio
import os
import re
import shutil
import time
from pathlib import Path
from typing import Any

from aiohttp import web

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_METHODS = frozenset(("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"))
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
POOL_SAMPLE = 5.0            # seconds between two samples of a process's pools (--workers)
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def enabled(settings) -> bool:
    return settings.metrics


def prepare_multiprocess(var_dir: Path) -> Path:
    """Before forking the serving processes (and before any metric exists): one directory for all
    of them, emptied of a previous run's samples."""
    path = Path(var_dir).resolve() / "prometheus"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True, exist_ok=True)
    os.environ[MULTIPROC_ENV] = str(path)
    from prometheus_client import values
    values.ValueClass = values.get_value_class()     # in case prometheus_client was imported already
    return path


def _multiprocess_dir() -> str | None:
    return os.environ.get(MULTIPROC_ENV) or None


def label(value: Any) -> str:
    """A provider or method name as a label: a short lower-case name, else "other" (never free text)."""
    return value if isinstance(value, str) and _NAME.fullmatch(value) else "other" if value else "none"


class Metrics:
    """The process's metrics (one set per process: prometheus-client's metrics are process-wide)."""

    def __init__(self):
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter("qafila_http_requests_total", "HTTP requests answered, by route template and status",
                                ("method", "route", "status"), registry=r)
        self.latency = Histogram("qafila_http_request_duration_seconds",
                                 "Time to answer an HTTP request, by route template", ("method", "route"),
                                 buckets=BUCKETS, registry=r)
        self.payments = Counter("qafila_payments_total",
                                "Payment (/api) and intent (/v1) events by method, provider and outcome",
                                ("object", "method", "provider", "outcome"), registry=r)
        self.webhooks = Counter("qafila_webhook_delivery_attempts_total",
                                "Webhook delivery attempts by outcome (delivered | failed)", ("outcome",), registry=r)
        self.pool_in_use = Gauge("qafila_pool_connections_in_use", "Pooled connections checked out",
                                 ("pool",), registry=r, multiprocess_mode="livesum")
        self.pool_max = Gauge("qafila_pool_connections_max", "Pool size limit", ("pool",), registry=r,
                              multiprocess_mode="livesum")
        self._children: dict[tuple[str, str, int], tuple[Any, Any]] = {}

    # ------------------------------------------------------------ the request path (kept tiny)
    def observe_request(self, request: web.Request, status: int, started: float) -> None:
        info = request.match_info
        route = info.route.resource.canonical if info.route.resource is not None else "unmatched"
        method = request.method
        if method not in _METHODS:          # a made-up method is one series (and one cache entry)
            method = "other"
        key = (method, route, status)
        pair = self._children.get(key)
        if pair is None:
            pair = self._children[key] = (self.requests.labels(method, route, str(status)),
                                          self.latency.labels(method, route))
        pair[0].inc()
        pair[1].observe(time.perf_counter() - started)

    # ------------------------------------------------------------ the domain's events
    def observe_event(self, type_: str, obj: dict[str, Any]) -> None:
        if not type_.startswith("payment."):
            return
        if obj.get("object") == "payment_intent":
            kind, method = "intent", label(obj.get("payment_method"))
        else:
            kind, method = "payment", "card"
        self.payments.labels(kind, method, label(obj.get("provider")), type_[len("payment."):]).inc()

    def observe_webhooks(self, delivered: int, failed: int) -> None:
        if delivered:
            self.webhooks.labels("delivered").inc(delivered)
        if failed:
            self.webhooks.labels("failed").inc(failed)

    def observe_pools(self, runtime) -> None:
        from app.health import db_pool_use, kv_pool_use
        for name, use in (("database", _safe(db_pool_use)), ("store", _safe(lambda: kv_pool_use(runtime.kv)))):
            if use is not None:
                self.pool_in_use.labels(name).set(use.in_use)
                self.pool_max.labels(name).set(use.max)


def _safe(fn):
    try:
        return fn()
    except Exception:  # noqa: BLE001 - no pool yet (or none): nothing to report
        return None


_METRICS: Metrics | None = None


def metrics() -> Metrics:
    global _METRICS
    if _METRICS is None:
        _METRICS = Metrics()
    return _METRICS


# ---------------------------------------------------------------- measured when scraped

async def outbox_age_seconds(now) -> float:
    """The age of the oldest event not yet delivered to every endpoint: not fanned out yet, or
    with a delivery still pending. 0 when all is delivered."""
    from models.events import EventWaiting
    from models.webhooks import WebhookDelivery
    oldest = [*await EventWaiting.all().order_by("created_at").limit(1).values_list("created_at", flat=True),
              *await WebhookDelivery.filter(state="pending").order_by("created_at").limit(1)
              .values_list("created_at", flat=True)]
    return max(0.0, (now - min(oldest)).total_seconds()) if oldest else 0.0


async def scheduler_lag_seconds(now) -> float:
    """How long the oldest job due on the real clock has waited (0: nothing overdue)."""
    from services import scheduler
    from services.infra.clock import moved_clocks
    moved = frozenset(await moved_clocks())
    due = (await scheduler.next_due(scheduler.Scope(livemode=True), now, limit=1)
           + await scheduler.next_due(scheduler.Scope(livemode=False, exclude_merchants=moved), now, limit=1))
    return max(0.0, (now - min(d.when for d in due)).total_seconds()) if due else 0.0


class _Scraped:
    """Gauges measured at scrape time by the process answering it (a database question, not a
    per-process sample)."""

    def __init__(self, values: dict[str, tuple[str, float]]):
        self.values = values

    def collect(self):
        from prometheus_client.core import GaugeMetricFamily
        for name, (text, value) in self.values.items():
            yield GaugeMetricFamily(name, text, value=value)


def install(app: web.Application, backend_of) -> None:
    """/metrics on `app`, the domain's events counted."""
    from services.infra import telemetry
    m = metrics()
    telemetry.install(m.observe_event)

    async def scrape(request: web.Request) -> web.Response:
        from prometheus_client import CollectorRegistry, generate_latest
        from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
        from prometheus_client.multiprocess import MultiProcessCollector

        runtime = backend_of(request.app).runtime
        now = runtime.clock.now()
        m.observe_pools(runtime)
        scraped = _Scraped({
            "qafila_webhook_outbox_oldest_age_seconds": ("Age of the oldest event not yet delivered to every "
                                                         "endpoint", await outbox_age_seconds(now)),
            "qafila_scheduler_lag_seconds": ("How long the oldest due job has waited",
                                             await scheduler_lag_seconds(now)),
        })
        path = _multiprocess_dir()
        if path:
            registry = CollectorRegistry()
            MultiProcessCollector(registry, path=path)
        else:
            registry = m.registry
        # The text format 0.0.4 (names with underscores only), which every Prometheus reads.
        body = generate_latest(registry) + generate_latest(_registry_of(scraped))
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_PLAIN_0_0_4})

    async def sample_pools(app: web.Application):
        """Under --workers, each process samples its own pools (the scrape sees only one process)."""
        task = None
        if _multiprocess_dir():
            async def loop():
                while True:
                    m.observe_pools(backend_of(app).runtime)
                    await asyncio.sleep(POOL_SAMPLE)
            task = asyncio.create_task(loop())
        yield
        if task is not None:
            task.cancel()

    app.cleanup_ctx.append(sample_pools)
    app.router.add_get("/metrics", scrape)


def _registry_of(collector):
    from prometheus_client import CollectorRegistry
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    return registry


def process_exited(pid: int) -> None:
    """A serving process ended: its live gauges leave the sum."""
    if _multiprocess_dir():
        from prometheus_client import multiprocess
        multiprocess.mark_process_dead(pid)

