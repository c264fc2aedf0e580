"""Tortoise models, one module per capability; each module is its own Tortoise app with its own
migrations package under migrations/<app>/ (so capabilities migrate independently)."""
from __future__ import annotations

import pkgutil
from pathlib import Path

_HERE = Path(__file__).parent


def app_labels() -> list[str]:
    """Every model module is an app; `core` first because the others point at its merchants."""
    names = sorted(m.name for m in pkgutil.iter_modules([str(_HERE)]) if not m.name.startswith("_"))
    return sorted(names, key=lambda n: (n != "core", n))


def tortoise_config(connection: str | dict) -> dict:
    """`connection` is a database URL or a Tortoise connection dict (engine + credentials)."""
    return {
        "connections": {"default": connection},
        "apps": {
            label: {"models": [f"models.{label}"], "migrations": f"migrations.{label}",
                    "default_connection": "default"}
            for label in app_labels()
        },
        "use_tz": True,
        "timezone": "UTC",
    }


# For the `tortoise` command line (makemigrations): `tortoise -c models.TORTOISE_ORM makemigrations`
TORTOISE_ORM = tortoise_config(__import__("os").environ.get("DATABASE_URL", "sqlite://:memory:"))
