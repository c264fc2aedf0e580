"""Live tests run against a `qafila serve` named by QAFILA_BASE_URL with a test key in QAFILA_API_KEY
(clients/run_tests.sh starts one). Without them the live tests are skipped, unless
QAFILA_REQUIRE_LIVE=1 (CI), which makes that an error."""
import json
import os
import urllib.request

import pytest

from qafila import Qafila

LIVE = bool(os.environ.get("QAFILA_API_KEY") and os.environ.get("QAFILA_BASE_URL"))


def _need_live():
    if not LIVE:
        if os.environ.get("QAFILA_REQUIRE_LIVE") == "1":
            pytest.fail("QAFILA_API_KEY and QAFILA_BASE_URL must be set (QAFILA_REQUIRE_LIVE=1)")
        pytest.skip("no live service: set QAFILA_API_KEY and QAFILA_BASE_URL (clients/run_tests.sh does)")


@pytest.fixture(scope="session")
def api_key():
    _need_live()
    return os.environ["QAFILA_API_KEY"]


@pytest.fixture(scope="session")
def base_url():
    _need_live()
    return os.environ["QAFILA_BASE_URL"].rstrip("/")


@pytest.fixture(scope="session")
def openapi(base_url):
    with urllib.request.urlopen(base_url + "/openapi.json", timeout=30) as r:
        return json.load(r)


@pytest.fixture
def client(api_key, base_url):
    with Qafila(api_key, base_url=base_url, backoff_base=0.05) as c:
        yield c


def require_route(openapi, method, path):
    """Skip (saying why) when the service does not have an operation yet."""
    if method.lower() not in openapi.get("paths", {}).get(path, {}):
        pytest.skip(f"{method} {path} is not in the service's /openapi.json yet (being built)")
