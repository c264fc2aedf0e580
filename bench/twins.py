"""The reference server of the performance bar, ../shared/perf/yardstick_documented.py (the
yardstick's paths plus their documented twins), and its calling conventions read from it: the
bearer key the keyed twins answer and the seeded intent `/read-documented` reads. Shared by
bench/run.py and bench/pay_profile.py."""
from __future__ import annotations

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def reference_path() -> str:
    """../shared/perf/yardstick_documented.py beside the checkout (or beside a worktree's parent),
    or QAFILA_REFERENCE."""
    if os.environ.get("QAFILA_REFERENCE"):
        return os.environ["QAFILA_REFERENCE"]
    for up in (os.path.dirname(ROOT), os.path.dirname(os.path.dirname(ROOT))):
        path = os.path.join(up, "shared", "perf", "yardstick_documented.py")
        if os.path.exists(path):
            return path
    return os.path.join(os.path.dirname(ROOT), "shared", "perf", "yardstick_documented.py")


def _constants(path: str) -> dict:
    """The module's top-level string constants, read without running it (it loads the yardstick
    and opens nothing, but needs asyncpg and orjson, which the tools calling this may not)."""
    out: dict = {}
    try:
        with open(path) as f:
            tree = ast.parse(f.read())
    except OSError:
        return out
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return out


REFERENCE = reference_path()
_C = _constants(REFERENCE)
KEY = _C.get("KEY", "sk_test_" + "d0cumented" * 3)      # the bearer key the keyed twins answer
READ_ID = _C.get("READ_ID", "pay_documented000000000001")  # the seeded intent the twin read reads
# yardstick path or twin -> (method, path as called, the bearer key it needs: None for any)
ROUTES = {"read": ("GET", "/read", None), "list": ("GET", "/list", None), "create": ("POST", "/create", None),
          "pay": ("POST", "/pay", None),
          "read-documented": ("GET", f"/read-documented?id={READ_ID}", KEY),
          "list-documented": ("GET", "/list-documented?limit=20", KEY),
          "create-documented": ("POST", "/create-documented", KEY),
          "pay-documented": ("POST", "/pay-documented", None)}
