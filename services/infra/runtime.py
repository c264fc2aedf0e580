"""The process-wide runtime that services use: configuration, clock, key-value store, mail.

The application (app/) builds one Runtime at start-up and installs it; services read it with
`runtime()`. Tests install their own, with a FrozenClock.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from services.infra import clock as clock_module
from services.infra.clock import Clock
from services.infra.http import HttpSender, NoHttpSender
from services.infra.kv import KeyValueStore, MemoryStore
from services.infra.mail import Mailer


@dataclass
class ServiceConfig:
    env: str = "development"
    secret_key: str = "dev-secret-key-change-me-0123456789abcdef"
    public_url: str = "http://127.0.0.1:8000"
    pay_url: str = "http://127.0.0.1:8000/pay"
    otp_ttl_seconds: int = 600
    otp_max_attempts: int = 5
    session_ttl_seconds: int = 12 * 3600      # a member's session lasts at most this long
    session_idle_seconds: int = 1800          # ... and ends when idle this long (QAFILA_SESSION_IDLE_SECONDS)
    rate_limit_scale: int = 1          # benchmarks only (QAFILA_RATE_LIMIT_SCALE); never in production
    # CRM messaging platform (WhatsApp-Cloud-style Graph API)
    messaging_verify_token: str = "dev-messaging-verify-token"
    messaging_app_secret: str = "dev-messaging-app-secret"
    messaging_graph_url: str = "https://graph.facebook.com"
    messaging_graph_version: str = "v19.0"
    messaging_phone_number_id: str = ""
    messaging_access_token: str = ""
    # ZATCA e-invoicing API (QAFILA_ZATCA_URL). Empty: test mode uses the built-in simulator
    # (services.einvoicing.zatca.simulator, also served at /sandbox/zatca), live mode ZATCA's core URL.
    zatca_url: str = ""
    # Wallet test roots (QAFILA_APPLE_PAY_TEST_ROOTS, QAFILA_GOOGLE_PAY_TEST_ROOT_KEYS): file paths
    # read in test mode only (services.payments.wallets.service).
    apple_pay_test_roots: str = ""
    google_pay_test_root_keys: str = ""
    google_pay_root_keys: str = ""          # QAFILA_GOOGLE_PAY_ROOT_KEYS: Google's production key list (live)

    @property
    def production(self) -> bool:
        return self.env == "production"


@dataclass
class Runtime:
    config: ServiceConfig = field(default_factory=ServiceConfig)
    kv: KeyValueStore = field(default_factory=MemoryStore)
    clock: Clock = field(default_factory=Clock)
    mailer: Mailer = field(default_factory=Mailer)
    http: HttpSender = field(default_factory=NoHttpSender)


_current: Runtime | None = None


def install(rt: Runtime | None) -> None:
    global _current
    _current = rt
    clock_module.install(getattr(rt, "clock", None))


def runtime() -> Runtime:
    if _current is None:
        raise RuntimeError("no Runtime installed: the application installs one at start-up")
    return _current
