"""GraphQL for merchants, API keys and one-time-password sign-in."""
from __future__ import annotations

import enum
from datetime import date, datetime

import strawberry
from strawberry.types import Info

from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.relay import Connection, Node, check_first, connection, node_resolver
from schema.team import TWO_FACTOR_DESCRIPTION, Member, SessionKind, session_fields
from services.identity import api_keys, auth, merchants, team
from services.infra import clock
from services.money import markets
from services.errors import NotFound


@strawberry.enum
class ApiKeyMode(enum.Enum):
    TEST = "test"
    LIVE = "live"


@strawberry.enum
class ApiKeyType(enum.Enum):
    SECRET = "secret"
    PUBLISHABLE = "publishable"


@strawberry.type
class Merchant(Node):
    id: strawberry.ID
    email: str
    name: str
    created_at: datetime
    livemode: bool

    country: str | None = strawberry.field(default=None, description="The merchant's country (PUT /api/merchant)")
    market: str = strawberry.field(default=markets.DEFAULT_MARKET, description="The market whose calendar and time "
                                   "zone its dates follow: its country, TR when none is set")
    time_zone: str = strawberry.field(default="Europe/Istanbul", description="The market's IANA time zone: every "
                                      "local date (analytics, settlements) is a date there")

    @classmethod
    def of(cls, m, livemode: bool) -> Merchant:
        market = markets.market(m.country)
        return cls(id=strawberry.ID(m.id), email=m.email, name=m.name, created_at=m.created_at, livemode=livemode,
                   country=m.country, market=market, time_zone=markets.tz(market).key)

    @strawberry.field(description="The local date in the merchant's market now (test mode: on the test clock)")
    async def today(self, info: Info[Context, None]) -> date:
        principal = info.context.principal
        return markets.local_date(self.market, await clock.now_for(principal))

    @strawberry.field(description="The signed-in member (a member's session); null for an API key.")
    async def member(self, info: Info[Context, None]) -> Member | None:
        principal = info.context.principal
        if principal.member_id is None:
            return None
        return Member.of(await team.me(principal))


@strawberry.type
class ApiKey(Node):
    id: strawberry.ID
    name: str
    type: str
    prefix: str
    mode: str
    status: str
    created_at: datetime
    last_used: datetime | None

    @classmethod
    def of(cls, k) -> ApiKey:
        return cls(id=strawberry.ID(k.id), name=k.name, type=k.kind, prefix=k.prefix,
                   mode="live" if k.livemode else "test", status=k.status, created_at=k.created_at,
                   last_used=k.last_used)


@node_resolver("key")
async def _key_node(info: Info[Context, None], node_id: str):
    return ApiKey.of(await api_keys.get_api_key(principal=info.context.principal, key_id=node_id))


@node_resolver("mer")
async def _merchant_node(info: Info[Context, None], node_id: str):
    p = info.context.principal
    if node_id != p.merchant_id:
        raise NotFound()
    return Merchant.of(await merchants.get_viewer(principal=p), p.livemode)


@strawberry.input
class ApiKeyCreateInput:
    name: str | None = strawberry.UNSET
    mode: ApiKeyMode | None = strawberry.UNSET
    type: ApiKeyType | None = strawberry.UNSET


@strawberry.type
class ApiKeyCreatePayload:
    api_key: ApiKey | None = None
    key: str | None = strawberry.field(default=None, description="The full key, shown once.")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class ApiKeyRevokeInput:
    id: strawberry.ID


@strawberry.type
class ApiKeyRevokePayload:
    api_key: ApiKey | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class OtpRequestInput:
    email: str


@strawberry.type
class OtpRequestPayload:
    request_id: str | None = None
    expires_in: int | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class OtpVerifyInput:
    request_id: str
    otp: str
    merchant_id: strawberry.ID | None = strawberry.field(
        default=strawberry.UNSET, description="Which merchant to sign in to, for an e-mail in several teams "
                                              "(default: the oldest membership).")
    session: SessionKind | None = strawberry.field(
        default=strawberry.UNSET, description="TOKEN (default): the session token in the answer; COOKIE: the "
                                              "qafila_session cookie is set and csrfToken answered.")


@strawberry.type
class OtpVerifyPayload:
    token: str | None = strawberry.field(default=None, description="The session token (a token session)")
    csrf_token: str | None = strawberry.field(default=None, description="A cookie session's X-CSRF-Token")
    merchant_id: str | None = None
    member_id: str | None = None
    session_id: str | None = None
    expires_in: int | None = None
    two_factor: str | None = strawberry.field(default=None, description=TWO_FACTOR_DESCRIPTION)
    challenge_id: str | None = strawberry.field(default=None, description="With twoFactor challenge: "
                                                                          "twoFactorVerify's challengeId")
    merchant_created: bool | None = strawberry.field(
        default=None, description="True when this verification created the merchant (sign-up).")
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class Query:
    @strawberry.field(description="The merchant the credential belongs to.")
    async def viewer(self, info: Info[Context, None]) -> Merchant:
        p = info.context.principal
        return Merchant.of(await merchants.get_viewer(principal=p), p.livemode)

    @strawberry.field
    async def api_keys(self, info: Info[Context, None], first: int | None = None,
                       after: str | None = None) -> Connection[ApiKey]:
        page = await api_keys.list_api_keys(principal=info.context.principal, limit=check_first(first),
                                            starting_after=after)
        return connection(page, ApiKey.of, after=after)


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def api_key_create(self, info: Info[Context, None], input: ApiKeyCreateInput) -> ApiKeyCreatePayload:
        principal = info.context.principal
        created, errors = await user_errors(lambda: api_keys.create_api_key(principal=principal,
                                                                           data=to_data(input)))
        if errors:
            return ApiKeyCreatePayload(user_errors=errors)
        return ApiKeyCreatePayload(api_key=ApiKey.of(created.key), key=created.secret)

    @strawberry.mutation
    async def api_key_revoke(self, info: Info[Context, None], input: ApiKeyRevokeInput) -> ApiKeyRevokePayload:
        principal = info.context.principal
        key, errors = await user_errors(lambda: api_keys.revoke_api_key(principal=principal, key_id=str(input.id)))
        return ApiKeyRevokePayload(api_key=ApiKey.of(key) if key else None, user_errors=errors)

    @strawberry.mutation
    async def otp_request(self, info: Info[Context, None], input: OtpRequestInput) -> OtpRequestPayload:
        r, errors = await user_errors(lambda: auth.request_otp(data=to_data(input),
                                                               client_address=info.context.client_address))
        if errors:
            return OtpRequestPayload(user_errors=errors)
        return OtpRequestPayload(request_id=r.request_id, expires_in=r.expires_in)

    @strawberry.mutation
    async def otp_verify(self, info: Info[Context, None], input: OtpVerifyInput) -> OtpVerifyPayload:
        s, errors = await user_errors(lambda: auth.verify_otp(data=to_data(input)))
        if errors:
            return OtpVerifyPayload(user_errors=errors)
        return OtpVerifyPayload(**session_fields(info, s), merchant_created=s.merchant_created)
