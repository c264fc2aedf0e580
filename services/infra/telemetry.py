"""What the domain tells whoever runs it: every event a service records is shown to the installed
sink (app/metrics.py counts payments and intents by method, provider and outcome from them). No
sink by default: a service never depends on how it is observed."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

_SINK: Callable[[str, dict[str, Any]], None] | None = None


def install(sink: Callable[[str, dict[str, Any]], None] | None) -> None:
    global _SINK
    _SINK = sink


def event(type_: str, obj: dict[str, Any]) -> None:
    """An event was recorded (in the caller's transaction). A failing sink never fails the change."""
    if _SINK is not None:
        try:
            _SINK(type_, obj)
        except Exception:  # noqa: BLE001 - observing must not break the observed
            pass
