"""Configuration validation and the `qafila` command line."""
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from app.settings import SettingsError, load_settings


@pytest.mark.parametrize("env,needle", [
    ({"QAFILA_ENV": "staging"}, "QAFILA_ENV"),
    ({"DATABASE_URL": "mysql://x"}, "DATABASE_URL"),
    ({"REDIS_URL": "http://x"}, "REDIS_URL"),
    ({"QAFILA_ENV": "production"}, "QAFILA_SECRET_KEY is required"),
    ({"QAFILA_SECRET_KEY": "short"}, "at least 32"),
    ({"QAFILA_PUBLIC_URL": "ftp://x"}, "QAFILA_PUBLIC_URL"),
    ({"QAFILA_SMTP_URL": "imap://x"}, "QAFILA_SMTP_URL"),
    ({"QAFILA_ENV": "production", "QAFILA_SECRET_KEY": "k" * 40, "QAFILA_CORS_ORIGINS": "*"}, "CORS"),
])
def test_bad_configuration_is_refused_with_a_clear_message(env, needle, tmp_path):
    with pytest.raises(SettingsError) as e:
        load_settings({"QAFILA_VAR_DIR": str(tmp_path), **env})
    assert needle in str(e.value)


def test_development_secret_key_is_generated_once_and_kept(tmp_path):
    a = load_settings({"QAFILA_VAR_DIR": str(tmp_path)})
    b = load_settings({"QAFILA_VAR_DIR": str(tmp_path)})
    assert a.secret_key == b.secret_key and len(a.secret_key) >= 32
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0
    assert a.database_url == f"sqlite://{tmp_path}/qafila.sqlite3"
    assert load_settings({"DATABASE_URL": "postgresql://u:p@h/db", "QAFILA_VAR_DIR": str(tmp_path)}).database_url \
        == "postgres://u:p@h/db"


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("QAFILA_") and k not in ("DATABASE_URL", "REDIS_URL")}
    env.update({"QAFILA_ENV": "test", "QAFILA_VAR_DIR": str(tmp_path / "var"),
                "DATABASE_URL": f"sqlite://{tmp_path}/cli.sqlite3", **extra})
    return env


def _qafila(*args, env, timeout=60):
    return subprocess.run([sys.executable, "-m", "app.cli", *args], env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_create_merchant_prints_one_json_object_with_its_keys(tmp_path):
    r = _qafila("create-merchant", "--email", "cli@example.com", "--name", "CLI Shop", env=_env(tmp_path))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["merchant_id"].startswith("mer_")
    assert out["secret_key"].startswith("sk_test_") and out["publishable_key"].startswith("pk_test_")
    again = _qafila("create-merchant", "--email", "cli@example.com", env=_env(tmp_path))
    assert again.returncode == 1 and "already exists" in again.stderr
    bad = _qafila("serve", env=_env(tmp_path, QAFILA_ENV="nope"))
    assert bad.returncode == 2 and "QAFILA_ENV" in bad.stderr


def test_serve_refuses_several_workers_on_the_embedded_store(tmp_path):
    r = _qafila("serve", "--workers", "2", env=_env(tmp_path))
    assert r.returncode == 2 and "REDIS_URL" in r.stderr


def test_serve_refuses_to_leave_background_work_to_workers_on_the_embedded_store(tmp_path):
    r = _qafila("serve", "--no-background", env=_env(tmp_path))
    assert r.returncode == 2 and "REDIS_URL" in r.stderr and "qafila worker" in r.stderr


def test_a_second_serve_on_the_same_embedded_store_is_refused(tmp_path):
    import socket

    def port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    env = _env(tmp_path)
    first = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--port", str(port()), "--crm-port", str(port())],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "var" / "embedded-store.lock").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        second = _qafila("serve", "--port", str(port()), "--crm-port", str(port()), env=env)
        assert second.returncode == 2 and "embedded store" in second.stderr
    finally:
        first.terminate()
        first.wait(10)


@pytest.mark.skipif(not (os.environ.get("DATABASE_URL", "").startswith("postgres") and os.environ.get("REDIS_URL")),
                    reason="several serving processes need PostgreSQL and Redis")
def test_serve_with_several_workers_shares_the_port_and_the_rate_limit(tmp_path):
    import socket
    import urllib.error
    import urllib.request

    def port():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    env = _env(tmp_path, DATABASE_URL=os.environ["DATABASE_URL"], REDIS_URL=os.environ["REDIS_URL"])
    made = _qafila("create-merchant", "--email", f"workers-{os.urandom(4).hex()}@example.com", env=env)
    assert made.returncode == 0, made.stderr
    sk = json.loads(made.stdout.strip().splitlines()[-1])["secret_key"]
    main_port = port()
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--workers", "2", "--port", str(main_port),
                             "--crm-port", str(port())], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        deadline, served = time.monotonic() + 60, []
        while len(served) < 2 and time.monotonic() < deadline:     # both processes announce themselves
            line = proc.stdout.readline()
            if "process 1 of 2" in line or "process 2 of 2" in line:
                served.append(line)
        assert len(served) == 2, "two serving processes"
        # Keep reading what the servers print (their workers send what the shared test database
        # left pending: mail lines): a pipe nobody reads fills up and blocks them.
        threading.Thread(target=proc.stdout.read, daemon=True).start()

        def get(path):
            req = urllib.request.Request(f"http://127.0.0.1:{main_port}{path}", headers={"Authorization": f"Bearer {sk}"})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:    # a new connection each time
                    return r.status
            except urllib.error.HTTPError as e:
                return e.code
        # The limit counts per fixed minute of the real clock (the servers run in their own
        # processes): start with at least 15 s left in a window, so the 101 requests stay in one.
        while time.time() % 60 > 45:
            time.sleep(0.25)
        statuses = [get("/api/api-keys?limit=1") for _ in range(101)]
        assert statuses[:100] == [200] * 100 and statuses[100] == 429    # one count across both processes
    finally:
        proc.terminate()
        proc.wait(30)                                 # the first process waits for the others
    with pytest.raises(OSError):                      # so none of them still listens
        socket.create_connection(("127.0.0.1", main_port), timeout=2).close()


# ---------------------------------------------------------------- issue 22: URLs follow the ports served

def test_urls_default_to_the_ports_served_and_the_public_url_wins(tmp_path):
    e = {"QAFILA_VAR_DIR": str(tmp_path)}
    s = load_settings(e, host="127.0.0.1", port=8100, crm_port=8101)
    assert (s.public_url, s.pay_url, s.js_url, s.crm_public_url) == (
        "http://127.0.0.1:8100", "http://127.0.0.1:8100/pay", "http://127.0.0.1:8100/js", "http://127.0.0.1:8101")
    s = load_settings(e, host="0.0.0.0", port=9000, crm_port=9001)       # any address: reached on the loopback
    assert (s.public_url, s.crm_public_url) == ("http://127.0.0.1:9000", "http://127.0.0.1:9001")
    s = load_settings(e, host="::1", port=9000)
    assert s.public_url == "http://[::1]:9000" and s.crm_public_url == "http://[::1]:8001"
    s = load_settings({**e, "QAFILA_PUBLIC_URL": "https://api.shop.example"}, host="127.0.0.1", port=8100,
                      crm_port=8101)
    assert (s.public_url, s.pay_url, s.js_url, s.crm_public_url) == (
        "https://api.shop.example", "https://api.shop.example/pay", "https://api.shop.example/js",
        "https://api.shop.example:8101")
    s = load_settings(e)                                                 # not serving (migrate, worker)
    assert (s.public_url, s.crm_public_url) == ("http://127.0.0.1:8000", "http://127.0.0.1:8001")


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve_demo(env, port: int, crm_port: int):
    """`qafila serve --demo` on those ports: the process and the demo's JSON line (its keys, its link)."""
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "serve", "--demo", "--port", str(port),
                             "--crm-port", str(crm_port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    deadline, lines = time.monotonic() + 60, []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
        lines.append(line)
        if line.startswith("{") and "payment_link" in line:
            banner = [proc.stdout.readline() for _ in range(7)]
            return proc, json.loads(line), "".join(banner)
    proc.terminate()
    raise AssertionError("qafila serve --demo printed no demo: " + "".join(lines)[-2000:])


def _http(method: str, url: str, key: str | None = None, body: dict | None = None, accept: str | None = None):
    import urllib.error
    import urllib.request
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    if body is not None:
        headers["Content-Type"] = "application/json"
    if accept:
        headers["Accept"] = accept
    req = urllib.request.Request(url, method=method, headers=headers,
                                 data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(req, timeout=20) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_serve_on_other_ports_prints_and_emits_urls_on_those_ports(tmp_path):
    port, crm_port = _free_port(), _free_port()
    proc, demo, banner = _serve_demo(_env(tmp_path), port, crm_port)
    base = f"http://127.0.0.1:{port}"
    try:
        # The demo link and the banner: on the port served, and the link opens there.
        assert demo["payment_link"].startswith(f"{base}/pay/lnk_"), demo
        assert f"{base}/graphql" in banner and f"http://127.0.0.1:{crm_port}/api/" in banner, banner
        status, html = _http("GET", demo["payment_link"])
        assert status == 200 and "Demo: handmade rug" in html
        # An intent's checkout_url, then its receipt_url once paid: on the port served, and they answer.
        sk = demo["secret_key"]
        status, body = _http("POST", f"{base}/v1/payments/intent", sk,
                             {"amount": 2500, "currency": "TRY", "payment_method": "card"})
        intent = json.loads(body)
        assert status == 201 and intent["checkout_url"] == f"{base}/pay/{intent['id']}", body
        status, body = _http("POST", f"{base}/v1/payments/{intent['id']}/confirm", sk,
                             {"payment_method_id": "pm_card_visa"})
        paid = json.loads(body)
        assert status == 200 and paid["receipt_url"].startswith(f"{base}/pay/{intent['id']}/receipt/"), body
        status, text = _http("GET", paid["receipt_url"], accept="text/plain")
        assert status == 200 and intent["id"] in text
        # The browser script and the CRM's OpenAPI servers name the ports served too.
        status, js = _http("GET", f"{base}/js/v1/qafila.js")
        assert status == 200 and f"{base}/pay" in js
        status, doc = _http("GET", f"http://127.0.0.1:{crm_port}/openapi.json")
        assert status == 200 and json.loads(doc)["servers"][0]["url"].startswith(f"http://127.0.0.1:{crm_port}")
    finally:
        proc.terminate()
        proc.wait(30)
    # QAFILA_PUBLIC_URL set: it wins over the ports.
    port, crm_port = _free_port(), _free_port()
    proc, demo, banner = _serve_demo(_env(tmp_path, QAFILA_PUBLIC_URL="https://qafila.shop.example"), port, crm_port)
    try:
        assert demo["payment_link"].startswith("https://qafila.shop.example/pay/lnk_"), demo
        assert "https://qafila.shop.example/graphql" in banner
    finally:
        proc.terminate()
        proc.wait(30)


def test_the_worker_settles_its_heap_before_it_runs(tmp_path):
    """`qafila worker` freezes what it made to start and collects the young generation rarely, as
    `qafila serve` does: under the payment create's load its steps spent a tenth of their CPU in
    full collections walking the startup heap (docs/decisions.md, issue 48)."""
    proc = subprocess.Popen([sys.executable, "-m", "app.cli", "worker"], env=_env(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    stalled = threading.Timer(60, proc.kill)      # a silent worker ends the read (EOF), not the run
    stalled.start()
    try:
        for line in proc.stdout:
            lines.append(line)
            if "running workers" in line:
                break
    finally:
        stalled.cancel()
        proc.terminate()
        proc.wait(timeout=30)
    text = "".join(lines)
    assert "running workers" in text, text
    settled = [ln for ln in lines if "heap settled" in ln]
    assert settled and lines.index(settled[0]) < next(i for i, ln in enumerate(lines) if "running workers" in ln)
    frozen = int(settled[0].split("heap settled: ")[1].split()[0])
    assert frozen > 10_000, settled[0]       # the modules, the schema, the ORM's metadata
