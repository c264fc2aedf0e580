"""Scalars shared by every domain."""
from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import NewType

import strawberry
from strawberry.schema.types.base_scalars import DateTimeDefinition

from services.timestamps import iso

# GraphQL's Int is 32-bit; amounts in minor units (IQD and KWD have 3 decimals) outgrow it.
# parse_value passes the raw value on, so the service validates it and names the field.
MinorAmount = strawberry.scalar(NewType("MinorAmount", int), serialize=int, parse_value=lambda v: v,
                                description="An amount in minor units (kuruş, halala, fils); may exceed 32 bits.")

# Every `DateTime` renders as REST and webhooks do (services.timestamps): ISO 8601 UTC with
# milliseconds and Z. Input parsing stays Strawberry's (any ISO 8601 date-time).
DateTime = dataclasses.replace(DateTimeDefinition, serialize=iso,
                               description="ISO 8601 UTC date-time with milliseconds: 2026-01-05T09:00:00.000Z")
SCALAR_OVERRIDES = {datetime: DateTime}
