"""Scalars shared by every domain."""
from __future__ import annotations

from typing import NewType

import strawberry

# GraphQL's Int is 32-bit; amounts in minor units (IQD and KWD have 3 decimals) outgrow it.
# parse_value passes the raw value on, so the service validates it and names the field.
MinorAmount = strawberry.scalar(NewType("MinorAmount", int), serialize=int, parse_value=lambda v: v,
                                description="An amount in minor units (kuruş, halala, fils); may exceed 32 bits.")
