"""CRM test fixtures: the CRM application (create_app(kind="crm")) and signed-up companies."""
from __future__ import annotations

import hashlib
import hmac
import itertools
import os
from dataclasses import dataclass

import orjson
import pytest

from app.server import BACKEND, create_app

PASSWORD = "Correct-Horse-9-Battery"
_n = itertools.count()


@pytest.fixture
async def crm(aiohttp_client, settings, clock):
    return await aiohttp_client(create_app(settings, kind="crm", clock=clock))


@pytest.fixture
def crm_runtime(crm):
    return crm.app[BACKEND].runtime


@dataclass
class Account:
    email: str
    access: str
    refresh: str
    user_id: str
    company_id: str
    body: dict

    @property
    def h(self) -> dict:
        return {"Authorization": f"Bearer {self.access}"}


def new_email(tag: str = "u") -> str:
    return f"{tag}{next(_n)}-{os.urandom(4).hex()}@example.com"


async def signup(crm, email: str | None = None, **extra) -> Account:
    email = email or new_email()
    body = {"email": email, "password": PASSWORD, "name": "Ada Yilmaz", "company_name": "Acme Trading", **extra}
    r = await crm.post("/api/auth/signup", json=body)
    assert r.status == 201, await r.text()
    b = await r.json()
    return Account(email, b["access_token"], b["refresh_token"], b["user"]["id"], b["company"]["id"], b)


@pytest.fixture
def make_account(crm):
    async def make(**extra) -> Account:
        return await signup(crm, **extra)
    return make


@pytest.fixture
async def acct(make_account) -> Account:
    return await make_account()


async def gql(crm, query: str, variables: dict | None = None, token: str | None = None):
    r = await crm.post("/graphql", json={"query": query, "variables": variables or {}},
                       headers={"Authorization": f"Bearer {token}"} if token else {})
    return r.status, await r.json()


def sign(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def dumps(obj) -> bytes:
    return orjson.dumps(obj)
