"""Routes of the merchant interface `/api` for payments (mounted by rest_compat/merchant_api.py)."""
from __future__ import annotations

from rest_compat.routing import Route

ROUTES: list[Route] = []
