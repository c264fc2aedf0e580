"""The `qafila` command: serve, migrate, create-merchant, makemigrations."""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import fcntl
import gc
import json
import logging
import os
import signal
import sys

from app.backend import Backend, migrate_database
from app.settings import DEFAULT_CRM_PORT, DEFAULT_PORT, Settings, SettingsError, load_settings

log = logging.getLogger("qafila")
GC_YOUNG_THRESHOLD = 7000      # allocations between young collections (CPython's default: 700)


def _run(coro) -> None:
    """Run the process's event loop: uvloop where it is installed (a faster loop for the same
    asyncio code), else asyncio's own."""
    try:
        import uvloop
    except ImportError:
        asyncio.run(coro)
    else:
        uvloop.run(coro)


def _serve_processes(args, settings: Settings) -> None:
    """--workers N: migrate once, then fork N-1 more serving processes on the same ports. The
    first process forwards SIGINT/SIGTERM to the others and waits for them."""
    if settings.migrate_on_start:
        asyncio.run(migrate_database(settings))
    settings = dataclasses.replace(settings, migrate_on_start=False)
    if settings.metrics:              # every process writes its samples there; any answers /metrics
        from app import metrics
        metrics.prepare_multiprocess(settings.var_dir)
    children = []
    for index in range(1, args.workers):
        pid = os.fork()
        if pid == 0:                      # a child: serve until told to stop
            try:
                _run(_serve(args, settings, index))
            finally:
                os._exit(0)
        children.append(pid)
    try:
        _run(_serve(args, settings, 0))
    except KeyboardInterrupt:
        pass
    finally:
        for pid in children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        for pid in children:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            if settings.metrics:
                from app import metrics
                metrics.process_exited(pid)


def _settings(args=None) -> Settings:
    """The settings; for `serve`, with the URLs following the ports it listens on."""
    where = {"host": args.host, "port": args.port, "crm_port": args.crm_port} if args.command == "serve" else {}
    try:
        return load_settings(**where)
    except SettingsError as exc:
        print(f"qafila: configuration error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _logging(fmt: str = "text") -> None:
    from app import logs
    logs.configure(fmt)


def _embedded_lock(settings: Settings):
    """The embedded key-value store lives in one process: refuse a second one on this var dir."""
    settings.var_dir.mkdir(parents=True, exist_ok=True)
    fh = open(settings.var_dir / "embedded-store.lock", "w")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print("qafila: another `qafila serve` already runs on the embedded store in "
              f"{settings.var_dir}; the embedded store cannot be shared between processes. "
              "Set REDIS_URL (and DATABASE_URL to PostgreSQL) to run several workers.", file=sys.stderr)
        raise SystemExit(2) from None
    return fh


async def _demo(backend: Backend) -> dict:
    from models.core import Merchant
    from services.identity import api_keys
    from services.identity.merchants import create_merchant

    email = "demo@qafila.example.com"
    merchant = await Merchant.get_or_none(email=email)
    if merchant is None:
        merchant, keys = await create_merchant(email=email, name="Demo Merchant")
    else:
        keys = {}
        for kind in ("secret", "publishable"):
            _, keys[f"{kind}_key"] = await api_keys.issue_key(merchant_id=merchant.id, kind=kind,
                                                              livemode=False, name=f"demo {kind}")
    # A payment link to open in a browser (the hosted checkout; test cards in the README).
    from services.payments import links
    from services.principal import Principal
    link = await links.create_link(principal=Principal(merchant.id, False, "secret"),
                                   data={"amount": 15000, "currency": "TRY", "description": "Demo: handmade rug"})
    return {"merchant_id": merchant.id, "email": email, **keys, "payment_link": links.url_of(link.id)}


def settle_heap() -> None:
    """Once started, move everything the process made to start (modules, the schema, the routes,
    the ORM's metadata: some 150,000 objects) out of the garbage collector's sight with
    gc.freeze(). They live as long as the process; without this every full collection walked
    them all, a pause of over 100 ms in the middle of a request (seen under load)."""
    gc.collect()
    gc.freeze()
    # A request leaves no reference cycle (GraphQL included, tests/test_graphql_operations.py),
    # so young collections only scan requests still in flight: ten times fewer of them.
    gc.set_threshold(GC_YOUNG_THRESHOLD, 10, 10)
    log.info("heap settled: %d objects frozen, young collections every %d allocations",
             gc.get_freeze_count(), GC_YOUNG_THRESHOLD)


async def _serve(args, settings: Settings, index: int = 0) -> None:
    """One serving process. With --workers N, N of these share the ports (SO_REUSEPORT, the
    kernel spreads connections); only the first runs the background workers."""
    from app.serving import raise_open_files_limit, start_servers

    raise_open_files_limit(settings)
    backend = Backend(settings)
    await backend.start()
    servers = None
    try:
        # Header and body timeouts and connection limits (app.serving); app.logs writes the access lines.
        servers = await start_servers(settings, backend, host=args.host, port=args.port, crm_port=args.crm_port,
                                      workers=index == 0 and not args.no_background, reuse_port=args.workers > 1)
        if args.demo and index == 0:
            # The URLs to open: QAFILA_PUBLIC_URL's (and the CRM's), else where this process listens.
            main_url, crm_url = settings.public_url, settings.crm_public_url
            demo = await _demo(backend)
            print(json.dumps(demo), flush=True)
            print(f"Qafila is running.\n  Dashboard:       {main_url}/dashboard  (sign in as {demo['email']}: "
                  f"the code is in this log unless QAFILA_SMTP_URL is set)\n"
                  f"  API and GraphQL: {main_url}/graphql  (GraphiQL in a browser)\n"
                  f"  REST:            {main_url}/api/...  {main_url}/v1/...\n"
                  f"  CRM:             {crm_url}/api/...\n  Health:          {main_url}/health\n"
                  f"  Pay in a browser: {demo['payment_link']}  (test card 4242 4242 4242 4242)\n"
                  f"  Try: curl -H 'Authorization: Bearer {demo['secret_key']}' {main_url}/api/api-keys",
                  flush=True)
        settle_heap()
        log.info("serving main on %s and CRM on %s (env=%s, db=%s, kv=%s, process %d of %d)",
                 f"http://{args.host}:{args.port}", f"http://{args.host}:{args.crm_port}",
                 settings.env, settings.database_url.split("://")[0], backend.runtime.kv.name, index + 1, args.workers)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
    finally:
        if servers is not None:
            await servers.close()
        await backend.stop()


async def _create_merchant(args, settings: Settings) -> None:
    from services.errors import DomainError
    from services.identity.merchants import create_merchant

    settings.migrate_on_start = True
    backend = Backend(settings)
    await backend.start()
    try:
        merchant, keys = await create_merchant(email=args.email, name=args.name)
        print(json.dumps({"merchant_id": merchant.id, "email": merchant.email, **keys}), flush=True)
    except DomainError as exc:
        print(f"qafila: {exc.message}", file=sys.stderr)
        raise SystemExit(1) from None
    finally:
        await backend.stop()


async def _worker(settings: Settings) -> None:
    """The background workers alone (webhook dispatcher, ...), for deployments that run them apart."""
    from app.workers import WORKER_MODULES, run_all

    backend = Backend(settings)
    await backend.start()
    settle_heap()          # as a serving process does: a tenth of the worker's CPU was the collector's
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    log.info("running workers %s (env=%s, db=%s)", ", ".join(WORKER_MODULES), settings.env,
             settings.database_url.split("://")[0])
    try:
        await run_all(backend, stop)
    finally:
        await backend.stop()


async def _wallets(args, settings: Settings) -> None:
    """`qafila wallets rotate-google-pay-key [--mode test|live|both]`: a new Google Pay key pair;
    the previous one still decrypts (services.payments.wallets.service)."""
    from services.payments.wallets import service as wallets

    settings.migrate_on_start = True
    backend = Backend(settings)
    await backend.start()
    try:
        modes = {"test": (False,), "live": (True,), "both": (False, True)}[args.mode]
        out = {}
        for livemode in modes:
            key = await wallets.rotate_google_pay_key(livemode=livemode)
            out["live" if livemode else "test"] = {"id": key.id, "public_key": key.public_key}
        print(json.dumps(out), flush=True)
    finally:
        await backend.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="qafila", description="Qafila payments and CRM back end")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the main (API, /v1, GraphQL) and CRM applications")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=DEFAULT_PORT)
    serve.add_argument("--crm-port", type=int, default=DEFAULT_CRM_PORT)
    serve.add_argument("--workers", type=int, default=1,
                       help="serving processes sharing the ports (needs REDIS_URL and PostgreSQL)")
    serve.add_argument("--demo", action="store_true", help="create a demo merchant and print its keys")
    serve.add_argument("--no-background", action="store_true",
                       help="run no background work here (webhook delivery, scheduler, receipts): leave it to "
                            "`qafila worker` processes (needs REDIS_URL and PostgreSQL)")
    sub.add_parser("migrate", help="apply the database migrations")
    sub.add_parser("worker", help="run only the background workers (webhook dispatcher, ...)")
    cm = sub.add_parser("create-merchant", help="create a merchant and print its test keys as JSON")
    cm.add_argument("--email", required=True)
    cm.add_argument("--name", default="")
    wl = sub.add_parser("wallets", help="Apple Pay and Google Pay keys")
    wl_sub = wl.add_subparsers(dest="wallets_command", required=True)
    rot = wl_sub.add_parser("rotate-google-pay-key",
                            help="make a new Google Pay key pair (the previous one still decrypts)")
    rot.add_argument("--mode", choices=("test", "live", "both"), default="both")
    sub.add_parser("schema", help="print the GraphQL schema (SDL): the dashboard's dashboard/schema.graphql")
    args = parser.parse_args(argv)
    if args.command == "schema":
        from schema import build_schema
        print(build_schema().as_str())
        return
    _logging()
    settings = _settings(args)
    _logging(settings.log_format)

    if args.command == "serve":
        if args.workers < 1:
            print("qafila: --workers must be at least 1", file=sys.stderr)
            raise SystemExit(2)
        if args.no_background and (settings.embedded_store or settings.sqlite):
            print("qafila: --no-background needs REDIS_URL and a PostgreSQL DATABASE_URL: `qafila worker` runs "
                  "in another process, which the embedded store and SQLite cannot share.", file=sys.stderr)
            raise SystemExit(2)
        if args.workers > 1:
            if settings.embedded_store or settings.sqlite:
                print("qafila: --workers > 1 needs REDIS_URL and a PostgreSQL DATABASE_URL: the embedded "
                      "store and SQLite are for one process only.", file=sys.stderr)
                raise SystemExit(2)
            _serve_processes(args, settings)
            return
        lock = _embedded_lock(settings) if settings.embedded_store else None
        try:
            _run(_serve(args, settings))
        except KeyboardInterrupt:
            pass
        finally:
            if lock:
                lock.close()
    elif args.command == "worker":
        _run(_worker(settings))
    elif args.command == "migrate":
        asyncio.run(migrate_database(settings, analyze=True))
        print("migrations applied" + ("" if settings.sqlite else "; statistics analyzed"), flush=True)
    elif args.command == "create-merchant":
        asyncio.run(_create_merchant(args, settings))
    elif args.command == "wallets":
        asyncio.run(_wallets(args, settings))


if __name__ == "__main__":
    main()
