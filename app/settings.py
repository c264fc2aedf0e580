"""Configuration from the environment, validated once at start-up with a clear message."""
from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ENVIRONMENTS = ("development", "test", "production")


class SettingsError(Exception):
    """A bad configuration value; the message names the variable and what is expected."""


@dataclass
class Settings:
    env: str = "development"
    database_url: str = "sqlite://./var/qafila.sqlite3"
    redis_url: str | None = None
    secret_key: str = ""
    public_url: str = "http://127.0.0.1:8000"
    crm_public_url: str = "http://127.0.0.1:8001"   # QAFILA_CRM_PUBLIC_URL: the CRM's base URL (its OpenAPI servers)
    pay_url: str = "http://127.0.0.1:8000/pay"
    js_url: str = "http://127.0.0.1:8000/js"        # QAFILA_JS_URL: where {js_url}/v1/qafila.js is served
    smtp_url: str | None = None
    cors_origins: list[str] = field(default_factory=list)
    var_dir: Path = Path("./var")
    migrate_on_start: bool = True
    access_log: bool = True            # QAFILA_ACCESS_LOG=0 turns the per-request line off
    log_format: str = "text"           # QAFILA_LOG_FORMAT: text | json
    metrics: bool = True               # QAFILA_METRICS: /metrics (default on, off in production)
    rate_limit_scale: int = 1
    messaging: dict[str, str] = field(default_factory=dict)   # QAFILA_MESSAGING_* (CRM), see messaging_settings
    zatca_url: str = ""                # QAFILA_ZATCA_URL: ZATCA's e-invoicing API (empty: the built-in simulator in test mode)
    # Wallets (services.payments.wallets), test mode only: roots a token may also chain to.
    apple_pay_test_roots: str = ""     # QAFILA_APPLE_PAY_TEST_ROOTS: a PEM file of extra Apple Pay roots
    google_pay_test_root_keys: str = ""   # QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS: a JSON key list (Google's format)
    google_pay_root_keys: str = ""     # QAFILA_GOOGLE_PAY_ROOT_KEYS: Google's production key list (live mode)
    # Capacity and slow-client limits (see `capacity_settings`).
    redis_pool_size: int = 50              # QAFILA_REDIS_POOL_SIZE: Redis connections per process
    db_pool_size: int = 20                 # QAFILA_DB_POOL_SIZE: PostgreSQL connections per process
    pool_timeout: float = 5.0              # QAFILA_POOL_TIMEOUT: wait for a pooled connection, then 503
    header_timeout: float = 10.0           # QAFILA_HEADER_TIMEOUT: a request head must arrive within it
    body_timeout: float = 30.0             # QAFILA_BODY_TIMEOUT: a request body must arrive within it
    max_connections: int = 1000            # QAFILA_MAX_CONNECTIONS: open client connections per process
    max_connections_per_client: int = 256  # QAFILA_MAX_CONNECTIONS_PER_CLIENT: per client address, 0 = no limit
    session_idle_seconds: int = 1800       # QAFILA_SESSION_IDLE_SECONDS: a member's idle session ends (10-86400)

    @property
    def embedded_store(self) -> bool:
        return self.redis_url is None

    @property
    def sqlite(self) -> bool:
        return self.database_url.startswith("sqlite://")


def _url(name: str, value: str, schemes: tuple[str, ...]) -> str:
    parts = urlsplit(value)
    if parts.scheme not in schemes or not (parts.netloc or parts.path):
        raise SettingsError(f"{name}={value!r} is not valid: expected a URL starting with "
                            f"{' or '.join(s + '://' for s in schemes)}")
    return value.rstrip("/")


def _secret_key(env: str, value: str | None, var_dir: Path) -> str:
    if value:
        if len(value) < 32:
            raise SettingsError("QAFILA_SECRET_KEY must be at least 32 characters (e.g. `openssl rand -hex 32`)")
        return value
    if env == "production":
        raise SettingsError("QAFILA_SECRET_KEY is required when QAFILA_ENV=production")
    if env == "test":
        return secrets.token_hex(32)
    path = var_dir / "secret_key"
    if path.exists():
        return path.read_text().strip()
    var_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    path.write_text(key + "\n")
    path.chmod(0o600)
    return key


DEFAULT_PORT, DEFAULT_CRM_PORT = 8000, 8001       # `qafila serve`'s --port and --crm-port


def _host_in_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _public_default_url(host: str | None, port: int | None) -> str:
    """Where this process answers when nobody said otherwise: the host and port `qafila serve`
    listens on (an any-address bind -- 0.0.0.0, :: -- is reached on the loopback address)."""
    host = (host or "").strip("[]")
    if host in ("", "0.0.0.0", "::", "*"):
        host = "127.0.0.1"
    return f"http://{_host_in_url(host)}:{port or DEFAULT_PORT}"


def _crm_default_url(public_url: str, crm_port: int | None = None) -> str:
    """The CRM's default base URL: the public URL's scheme and host on the CRM's port (serve's --crm-port)."""
    parts = urlsplit(public_url)
    host = parts.hostname or "127.0.0.1"
    return f"{parts.scheme}://{_host_in_url(host)}:{crm_port or DEFAULT_CRM_PORT}"


MESSAGING_VARS = ("verify_token", "app_secret", "graph_url", "graph_version", "phone_number_id", "access_token")


def messaging_settings(e: dict[str, str], env: str) -> dict[str, str]:
    """QAFILA_MESSAGING_VERIFY_TOKEN, _APP_SECRET, _GRAPH_URL, _GRAPH_VERSION, _PHONE_NUMBER_ID,
    _ACCESS_TOKEN: only those set are returned (the rest keep the service defaults)."""
    out = {k: e[f"QAFILA_MESSAGING_{k.upper()}"].strip() for k in MESSAGING_VARS
           if e.get(f"QAFILA_MESSAGING_{k.upper()}", "").strip()}
    if "graph_url" in out:
        out["graph_url"] = _url("QAFILA_MESSAGING_GRAPH_URL", out["graph_url"], ("http", "https"))
    if env == "production":       # never the development defaults in production: webhooks refused
        out.setdefault("app_secret", "")
        out.setdefault("verify_token", "")
    return out


def _log_format(value: str) -> str:
    value = value.strip().lower() or "text"
    if value not in ("text", "json"):
        raise SettingsError(f"QAFILA_LOG_FORMAT={value!r} is not valid: expected text or json")
    return value


def _number(e: dict[str, str], name: str, default: float, low: float, high: float, *, integer: bool,
            what: str) -> float:
    raw = e.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        value = None
    if value is None or value != value or not low <= value <= high:
        kind = "an integer" if integer else "a number of seconds"
        def show(v: float) -> str:
            return str(int(v)) if float(v).is_integer() else f"{v:g}"
        raise SettingsError(f"{name}={raw!r} is not valid: expected {kind} from {show(low)} to {show(high)} ({what})")
    return value


def capacity_settings(e: dict[str, str]) -> dict:
    """Pool sizes, the pool wait, and the slow-client limits of the HTTP server."""
    return {
        "redis_pool_size": _number(e, "QAFILA_REDIS_POOL_SIZE", 50, 1, 10000, integer=True,
                                   what="Redis connections per process"),
        "db_pool_size": _number(e, "QAFILA_DB_POOL_SIZE", 20, 1, 1000, integer=True,
                                what="PostgreSQL connections per process"),
        "pool_timeout": _number(e, "QAFILA_POOL_TIMEOUT", 5.0, 0.05, 300, integer=False,
                                what="how long a request waits for a pooled connection before a 503"),
        "header_timeout": _number(e, "QAFILA_HEADER_TIMEOUT", 10.0, 0.05, 3600, integer=False,
                                  what="time for a client to send a complete request head"),
        "body_timeout": _number(e, "QAFILA_BODY_TIMEOUT", 30.0, 0.05, 3600, integer=False,
                                what="time for a client to send a request body"),
        "max_connections": _number(e, "QAFILA_MAX_CONNECTIONS", 1000, 1, 1000000, integer=True,
                                   what="open client connections per process"),
        "max_connections_per_client": _number(e, "QAFILA_MAX_CONNECTIONS_PER_CLIENT", 256, 0, 1000000,
                                              integer=True, what="per client address; 0 means no limit"),
        "session_idle_seconds": _number(e, "QAFILA_SESSION_IDLE_SECONDS", 1800, 10, 86400, integer=True,
                                        what="seconds a member's session may stay idle"),
    }


def _metrics(e: dict[str, str], env: str) -> bool:
    """QAFILA_METRICS=1|0; unset: on in development and test, off in production (opt in there)."""
    raw = e.get("QAFILA_METRICS", "").strip().lower()
    if not raw:
        return env != "production"
    if raw not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
        raise SettingsError(f"QAFILA_METRICS={raw!r} is not valid: expected 1 or 0")
    return raw in ("1", "true", "yes", "on")


def load_settings(environ: dict[str, str] | None = None, *, host: str | None = None, port: int | None = None,
                  crm_port: int | None = None) -> Settings:
    """`host`, `port`, `crm_port`: where `qafila serve` listens. The URLs the service prints and
    emits (`{public_url}`, the pay, script and CRM URLs) default to them; the QAFILA_*_URL
    variables win (a proxy or a load balancer in front)."""
    e = dict(os.environ if environ is None else environ)
    env = e.get("QAFILA_ENV", "development").strip() or "development"
    if env not in ENVIRONMENTS:
        raise SettingsError(f"QAFILA_ENV={env!r} is not valid: expected one of {', '.join(ENVIRONMENTS)}")
    var_dir = Path(e.get("QAFILA_VAR_DIR", "./var"))
    database_url = e.get("DATABASE_URL", "").strip() or f"sqlite://{var_dir}/qafila.sqlite3"
    database_url = _url("DATABASE_URL", database_url, ("sqlite", "postgres", "postgresql"))
    if database_url.startswith("postgresql://"):
        database_url = "postgres://" + database_url[len("postgresql://"):]
    redis_url = e.get("REDIS_URL", "").strip() or None
    if redis_url:
        redis_url = _url("REDIS_URL", redis_url, ("redis", "rediss", "unix"))
    smtp_url = e.get("QAFILA_SMTP_URL", "").strip() or None
    if smtp_url:
        smtp_url = _url("QAFILA_SMTP_URL", smtp_url, ("smtp", "smtps"))
    public_url = _url("QAFILA_PUBLIC_URL", e.get("QAFILA_PUBLIC_URL", "").strip() or _public_default_url(host, port),
                      ("http", "https"))
    pay_url = _url("QAFILA_PAY_URL", e.get("QAFILA_PAY_URL", "").strip() or f"{public_url}/pay", ("http", "https"))
    js_url = _url("QAFILA_JS_URL", e.get("QAFILA_JS_URL", "").strip() or f"{public_url}/js", ("http", "https"))
    crm_public_url = _url("QAFILA_CRM_PUBLIC_URL", e.get("QAFILA_CRM_PUBLIC_URL", "").strip()
                          or _crm_default_url(public_url, crm_port), ("http", "https"))
    origins = [o.strip().rstrip("/") for o in e.get("QAFILA_CORS_ORIGINS", "").split(",") if o.strip()]
    for o in origins:
        if o != "*":
            _url("QAFILA_CORS_ORIGINS", o, ("http", "https"))
    if env == "production" and "*" in origins:
        raise SettingsError("QAFILA_CORS_ORIGINS may not be * in production: list the allowed origins")
    if env == "production" and database_url.startswith("sqlite://"):
        pass    # allowed (a single small shop), but one worker only: enforced at serve time
    scale = e.get("QAFILA_RATE_LIMIT_SCALE", "1").strip() or "1"
    if not scale.isdigit() or not 1 <= int(scale) <= 100000:
        raise SettingsError(f"QAFILA_RATE_LIMIT_SCALE={scale!r} is not valid: expected an integer from 1 to 100000")
    if env == "production" and int(scale) != 1:
        raise SettingsError("QAFILA_RATE_LIMIT_SCALE is for benchmarks and may not be set in production")
    return Settings(env=env, rate_limit_scale=int(scale), database_url=database_url, redis_url=redis_url,
                    secret_key=_secret_key(env, e.get("QAFILA_SECRET_KEY", "").strip() or None, var_dir),
                    public_url=public_url, crm_public_url=crm_public_url, pay_url=pay_url, js_url=js_url,
                    smtp_url=smtp_url,
                    cors_origins=origins,
                    var_dir=var_dir, access_log=e.get("QAFILA_ACCESS_LOG", "1").strip().lower() not in ("0", "false", "no", "off"),
                    log_format=_log_format(e.get("QAFILA_LOG_FORMAT", "")), metrics=_metrics(e, env),
                    messaging=messaging_settings(e, env), **capacity_settings(e),
                    zatca_url=_url("QAFILA_ZATCA_URL", z, ("http", "https")) if (z := e.get("QAFILA_ZATCA_URL", "").strip()) else "",
                    apple_pay_test_roots=_test_file(e, env, "QAFILA_APPLE_PAY_TEST_ROOTS"),
                    google_pay_test_root_keys=_test_file(e, env, "QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS"),
                    google_pay_root_keys=_file(e, "QAFILA_GOOGLE_PAY_ROOT_KEYS"))


def _file(e: dict[str, str], name: str) -> str:
    """The path of a readable file, or "" when the variable is not set."""
    value = e.get(name, "").strip()
    if value and not Path(value).is_file():
        raise SettingsError(f"{name}={value!r} is not valid: expected the path of a readable file")
    return value


def _test_file(e: dict[str, str], env: str, name: str) -> str:
    """A file of wallet test roots: never in production (live mode never reads it anyway)."""
    value = e.get(name, "").strip()
    if value and env == "production":
        raise SettingsError(f"{name} is for tests and may not be set in production")
    if value and not Path(value).is_file():
        raise SettingsError(f"{name}={value!r} is not valid: expected the path of a readable file")
    return value
