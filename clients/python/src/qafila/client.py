"""The clients: ``Qafila`` (synchronous) and ``AsyncQafila``; one attribute per resource.

    client = Qafila("sk_test_...", base_url="http://127.0.0.1:8000")
    intent = client.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
    intent = client.payment_intents.confirm(intent.id, payment_method_id="pm_card_visa")
    for pi in client.payment_intents.list(limit=2).auto_paging_iter(): ...

Every POST carries an ``Idempotency-Key`` made once per call (or the one you pass) and sent again
on each retry, so a retried create never makes two objects.
"""
from __future__ import annotations

from typing import (Any, AsyncIterator, Callable, ClassVar, Dict, Generic, Iterator, List, Optional, Type,
                    TypeVar)
from urllib.parse import quote

from . import types as t
from ._http import SAFE, UNSAFE, AsyncRequester, Call, SyncRequester, merge_params
from ._model import Model

T = TypeVar("T", bound=Model)


def _id(value: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError("an object id (a non-empty string) is required")
    return quote(value, safe="")


class Page(Generic[T]):
    """One page of a list. ``auto_paging_iter()`` walks this page and the following ones."""

    def __init__(self, data: List[T], has_more: bool, next_cursor: Optional[str], total: Optional[int],
                 raw: Dict[str, Any], fetch: Callable[[str], Any]):
        self.data = data
        self.has_more = has_more
        self.next_cursor = next_cursor
        self.total = total
        self.raw = raw
        self._fetch = fetch

    def __iter__(self) -> Iterator[T]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"<Page of {len(self.data)} has_more={self.has_more}>"

    @property
    def cursor(self) -> Optional[str]:
        """``starting_after`` for the next page: ``next_cursor`` when the service gives one, else the last id."""
        if self.next_cursor:
            return self.next_cursor
        if self.data:
            return getattr(self.data[-1], "id", None)
        return None

    def next_page(self) -> Optional["Page[T]"]:
        if not self.has_more or not self.cursor:
            return None
        return self._fetch(self.cursor)

    def auto_paging_iter(self) -> Iterator[T]:
        page: Optional[Page[T]] = self
        while page is not None:
            yield from page.data
            page = page.next_page()


class AsyncPage(Page[T]):
    async def next_page(self) -> Optional["AsyncPage[T]"]:  # type: ignore[override]
        if not self.has_more or not self.cursor:
            return None
        return await self._fetch(self.cursor)

    async def auto_paging_iter(self) -> AsyncIterator[T]:  # type: ignore[override]
        page: Optional[AsyncPage[T]] = self
        while page is not None:
            for item in page.data:
                yield item
            page = await page.next_page()


def _page(cls, model, raw, fetch):
    data = [model.from_dict(x) for x in (raw.get("data") or [])]
    total = raw.get("total_count", raw.get("total"))
    return cls(data, bool(raw.get("has_more")), raw.get("next_cursor"), total, raw, fetch)


class _Resource:
    def __init__(self, client):
        self._client = client

    def _call(self, call: Call):
        return self._client._requester.request(call)

    def _list(self, path: str, model: Type[T], params: Dict[str, Any]):
        """A Page (sync) or an awaitable of an AsyncPage, fetching later pages with the same filters."""
        is_async = isinstance(self._client._requester, AsyncRequester)

        def fetch(cursor: Optional[str]):
            p = dict(params)
            if cursor:
                p["starting_after"] = cursor
            pending = self._call(Call("GET", path, params=p))
            if is_async:
                async def done():
                    return _page(AsyncPage, model, await pending, fetch)
                return done()
            return _page(Page, model, pending, fetch)
        return fetch(None)


# ---------------------------------------------------------------------------- /v1 payment intents

class PaymentIntents(_Resource):
    """``/v1/payments``: payment intents."""

    def create(self, params: Optional[t.PaymentIntentCreateParams] = None, /, *,
               idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        return self._call(Call("POST", "/v1/payments/intent", body=merge_params(params, kwargs),  # type: ignore
                               model=t.PaymentIntent, idempotency_key=idempotency_key))

    def confirm(self, id: str, params: Optional[t.PaymentIntentConfirmParams] = None, /, *,
                idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        return self._call(Call("POST", f"/v1/payments/{_id(id)}/confirm", body=merge_params(params, kwargs),  # type: ignore
                               model=t.PaymentIntent, idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> t.PaymentIntent:
        return self._call(Call("GET", f"/v1/payments/{_id(id)}", model=t.PaymentIntent))  # type: ignore

    def cancel(self, id: str, params: Optional[t.PaymentIntentCancelParams] = None, /, *,
               idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        return self._call(Call("POST", f"/v1/payments/{_id(id)}/cancel", body=merge_params(params, kwargs),  # type: ignore
                               model=t.PaymentIntent, idempotency_key=idempotency_key))

    def refund(self, id: str, params: Optional[t.PaymentIntentRefundParams] = None, /, *,
               idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        """Full refund without ``amount``; partial with one. The intent stays ``succeeded`` while
        partly refunded (``amount_refunded`` grows) and is ``refunded`` once nothing is left;
        ``.refund`` is the refund just made."""
        return self._call(Call("POST", f"/v1/payments/{_id(id)}/refund", body=merge_params(params, kwargs),  # type: ignore
                               model=t.PaymentIntent, idempotency_key=idempotency_key))

    def capture(self, id: str, params: Optional[t.PaymentIntentCaptureParams] = None, /, *,
                idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        """BNPL: capture ``amount`` (all that is still authorized without it) of a ``requires_capture``
        intent; it stays ``requires_capture`` until all is captured (``succeeded``)."""
        return self._call(Call("POST", f"/v1/payments/{_id(id)}/capture", body=merge_params(params, kwargs),  # type: ignore
                               model=t.PaymentIntent, idempotency_key=idempotency_key))

    def list(self, params: Optional[t.PaymentIntentListParams] = None, /, **kwargs: Any) -> Page[t.PaymentIntent]:
        """Filters: limit, starting_after, status, currency, payment_method, created_gte / created_lte
        (or ``created={"gte": ..., "lte": ...}``), Unix seconds."""
        p = merge_params(params, kwargs)
        created = p.pop("created", None)
        if isinstance(created, dict):
            for op, v in created.items():
                p[f"created[{op}]"] = v
        for op in ("gte", "lte"):
            if f"created_{op}" in p:
                p[f"created[{op}]"] = p.pop(f"created_{op}")
        return self._list("/v1/payments", t.PaymentIntent, p)  # type: ignore


# ---------------------------------------------------------------------------- /api merchant interface

class Payments(_Resource):
    """``/api/payments``: card payments routed to providers; capture, void, refund."""

    def create(self, params: Optional[t.PaymentCreateParams] = None, /, *,
               idempotency_key: Optional[str] = None, **kwargs: Any) -> t.Payment:
        return self._call(Call("POST", "/api/payments/create", body=merge_params(params, kwargs),  # type: ignore
                               model=t.Payment, idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> t.Payment:
        return self._call(Call("GET", f"/api/payments/{_id(id)}", model=t.Payment))  # type: ignore

    def list(self, params: Optional[t.PaymentListParams] = None, /, **kwargs: Any) -> Page[t.Payment]:
        return self._list("/api/payments/list", t.Payment, merge_params(params, kwargs))  # type: ignore

    def capture(self, id: str, amount: Optional[int] = None, *, idempotency_key: Optional[str] = None) -> t.PaymentCapture:
        return self._call(Call("POST", f"/api/payments/{_id(id)}/capture", body=merge_params({"amount": amount}, {}),  # type: ignore
                               model=t.PaymentCapture, idempotency_key=idempotency_key))

    def void(self, id: str, *, idempotency_key: Optional[str] = None) -> t.PaymentVoid:
        return self._call(Call("POST", f"/api/payments/{_id(id)}/void", body={},  # type: ignore
                               model=t.PaymentVoid, idempotency_key=idempotency_key))

    def refund(self, id: str, amount: Optional[int] = None, reason: Optional[str] = None, *,
               idempotency_key: Optional[str] = None) -> t.Refund:
        """Full refund without ``amount``; partial with one."""
        return self._call(Call("POST", f"/api/payments/{_id(id)}/refund",  # type: ignore
                               body=merge_params({"amount": amount, "reason": reason}, {}),
                               model=t.Refund, idempotency_key=idempotency_key))


class Customers(_Resource):
    def create(self, params: Optional[t.CustomerCreateParams] = None, /, *,
               idempotency_key: Optional[str] = None, **kwargs: Any) -> t.Customer:
        return self._call(Call("POST", "/api/customers", body=merge_params(params, kwargs), model=t.Customer,  # type: ignore
                               idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> t.Customer:
        return self._call(Call("GET", f"/api/customers/{_id(id)}", model=t.Customer))  # type: ignore

    def update(self, id: str, params: Optional[t.CustomerUpdateParams] = None, /, **kwargs: Any) -> t.Customer:
        # Setting fields to given values: safe to repeat.
        return self._call(Call("PUT", f"/api/customers/{_id(id)}", body=merge_params(params, kwargs),  # type: ignore
                               model=t.Customer, retry=SAFE))

    def list(self, params: Optional[t.CustomerListParams] = None, /, **kwargs: Any) -> Page[t.Customer]:
        return self._list("/api/customers", t.Customer, merge_params(params, kwargs))  # type: ignore


class PaymentLinks(_Resource):
    def create(self, params: Optional[t.PaymentLinkCreateParams] = None, /, *,
               idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentLink:
        return self._call(Call("POST", "/api/payment-links", body=merge_params(params, kwargs),  # type: ignore
                               model=t.PaymentLink, idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> t.PaymentLink:
        return self._call(Call("GET", f"/api/payment-links/{_id(id)}", model=t.PaymentLink))  # type: ignore

    def list(self, params: Optional[t.PaymentLinkListParams] = None, /, **kwargs: Any) -> Page[t.PaymentLink]:
        return self._list("/api/payment-links", t.PaymentLink, merge_params(params, kwargs))  # type: ignore

    def cancel(self, id: str) -> t.PaymentLink:
        return self._call(Call("PUT", f"/api/payment-links/{_id(id)}/cancel", model=t.PaymentLink,  # type: ignore
                               retry=UNSAFE))


class Subscriptions(_Resource):
    def create(self, params: Optional[t.SubscriptionCreateParams] = None, /, *,
               idempotency_key: Optional[str] = None, **kwargs: Any) -> t.Subscription:
        return self._call(Call("POST", "/api/subscriptions", body=merge_params(params, kwargs),  # type: ignore
                               model=t.Subscription, idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> t.Subscription:
        return self._call(Call("GET", f"/api/subscriptions/{_id(id)}", model=t.Subscription))  # type: ignore

    def list(self, params: Optional[t.SubscriptionListParams] = None, /, **kwargs: Any) -> Page[t.Subscription]:
        return self._list("/api/subscriptions", t.Subscription, merge_params(params, kwargs))  # type: ignore

    def pause(self, id: str) -> t.Subscription:
        return self._call(Call("PUT", f"/api/subscriptions/{_id(id)}/pause", model=t.Subscription, retry=UNSAFE))  # type: ignore

    def resume(self, id: str) -> t.Subscription:
        return self._call(Call("PUT", f"/api/subscriptions/{_id(id)}/resume", model=t.Subscription, retry=UNSAFE))  # type: ignore

    def cancel(self, id: str) -> t.Subscription:
        return self._call(Call("PUT", f"/api/subscriptions/{_id(id)}/cancel", model=t.Subscription, retry=UNSAFE))  # type: ignore


class Invoices(_Resource):
    def create(self, params: Optional[t.InvoiceCreateParams] = None, /, *,
               idempotency_key: Optional[str] = None, **kwargs: Any) -> t.Invoice:
        return self._call(Call("POST", "/api/invoices", body=merge_params(params, kwargs), model=t.Invoice,  # type: ignore
                               idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> t.Invoice:
        return self._call(Call("GET", f"/api/invoices/{_id(id)}", model=t.Invoice))  # type: ignore

    def list(self, params: Optional[t.InvoiceListParams] = None, /, **kwargs: Any) -> Page[t.Invoice]:
        return self._list("/api/invoices", t.Invoice, merge_params(params, kwargs))  # type: ignore

    def send(self, id: str, channel: str = "email") -> t.Invoice:
        """``channel``: ``email`` or ``messaging``."""
        return self._call(Call("PUT", f"/api/invoices/{_id(id)}/send", body={"channel": channel},  # type: ignore
                               model=t.Invoice, retry=UNSAFE))

    def mark_paid(self, id: str) -> t.Invoice:
        return self._call(Call("PUT", f"/api/invoices/{_id(id)}/mark-paid", body={}, model=t.Invoice,  # type: ignore
                               retry=UNSAFE))


class BalanceResource(_Resource):
    def retrieve(self) -> t.Balance:
        return self._call(Call("GET", "/api/balance", model=t.Balance))  # type: ignore


class Settlements(_Resource):
    def list(self, params: Optional[t.SettlementListParams] = None, /, **kwargs: Any) -> Page[t.Settlement]:
        return self._list("/api/settlements", t.Settlement, merge_params(params, kwargs))  # type: ignore

    def retrieve(self, id: str) -> t.Settlement:
        return self._call(Call("GET", f"/api/settlements/{_id(id)}", model=t.Settlement))  # type: ignore

    def list_transactions(self, id: str, params: Optional[t.SettlementTransactionListParams] = None, /,
                          **kwargs: Any) -> Page[t.SettlementTransaction]:
        """The payments, refunds and fees a settlement is made of."""
        return self._list(f"/api/settlements/{_id(id)}/transactions", t.SettlementTransaction,  # type: ignore
                          merge_params(params, kwargs))


class Installments(_Resource):
    """Installments (taksit) of Turkish credit cards: a card's options and the merchant's plans.
    Pay in installments with ``installments=3`` on ``payments.create`` or ``payment_intents.create``/``confirm``."""

    def options(self, bin: str, amount: int, currency: str = "TRY") -> t.InstallmentOptions:
        """``GET /v1/installments``: the counts a card (its first 6 or 8 digits) gets for an amount."""
        return self._call(Call("GET", "/v1/installments", params={"bin": bin, "amount": amount, "currency": currency},  # type: ignore
                               model=t.InstallmentOptions))

    def plans(self) -> t.InstallmentPlans:
        return self._call(Call("GET", "/api/installments/plans", model=t.InstallmentPlans))  # type: ignore

    def replace_plans(self, plans: List[t.InstallmentPlanParams]) -> t.InstallmentPlans:
        """Replace every plan (a program left out offers none); the same body again changes nothing."""
        return self._call(Call("PUT", "/api/installments/plans", body={"plans": plans},  # type: ignore
                               model=t.InstallmentPlans, retry=SAFE))


class Webhooks(_Resource):
    """Endpoints (``configure`` returns the signing ``secret``, once), events and test deliveries.
    Verifying a delivery: ``qafila.verify_webhook`` / ``qafila.construct_event``."""

    def configure(self, url: str, events: Optional[List[str]] = None, *,
                  idempotency_key: Optional[str] = None) -> t.WebhookEndpoint:
        return self._call(Call("POST", "/api/webhooks/configure",  # type: ignore
                               body=merge_params({"url": url, "events": events}, {}),
                               model=t.WebhookEndpoint, idempotency_key=idempotency_key))

    def list_endpoints(self, **kwargs: Any) -> Page[t.WebhookEndpoint]:
        return self._list("/api/webhooks/endpoints", t.WebhookEndpoint, merge_params(None, kwargs))  # type: ignore

    def disable_endpoint(self, id: str, *, idempotency_key: Optional[str] = None) -> t.WebhookEndpoint:
        return self._call(Call("POST", f"/api/webhooks/endpoints/{_id(id)}/disable", body={},  # type: ignore
                               model=t.WebhookEndpoint, idempotency_key=idempotency_key))

    def list_events(self, params: Optional[t.WebhookEventListParams] = None, /, **kwargs: Any) -> Page[t.WebhookEventRecord]:
        return self._list("/api/webhooks/events", t.WebhookEventRecord, merge_params(params, kwargs))  # type: ignore

    def retrieve_event(self, id: str) -> t.WebhookEventRecord:
        return self._call(Call("GET", f"/api/webhooks/events/{_id(id)}", model=t.WebhookEventRecord))  # type: ignore

    def retry_event(self, id: str, *, idempotency_key: Optional[str] = None) -> t.WebhookEventRecord:
        return self._call(Call("POST", f"/api/webhooks/events/{_id(id)}/retry", body={},  # type: ignore
                               model=t.WebhookEventRecord, idempotency_key=idempotency_key))

    def test(self, event: str, endpoint: Optional[str] = None, *,
             idempotency_key: Optional[str] = None) -> t.WebhookTestResult:
        return self._call(Call("POST", "/api/webhooks/test", body=merge_params({"event": event, "endpoint": endpoint}, {}),  # type: ignore
                               model=t.WebhookTestResult, idempotency_key=idempotency_key))


class PaymentMethodTypes(_Resource):
    """``/v1/payment_method_types``: the methods a payment in a currency can use (card first), with
    their flow (card, redirect, reference, otp, ...), names, fee and limits."""

    def list(self, params: Optional[t.PaymentMethodTypeListParams] = None, /,
             **kwargs: Any) -> Page[t.PaymentMethodType]:
        return self._list("/v1/payment_method_types", t.PaymentMethodType, merge_params(params, kwargs))  # type: ignore


class Bnpl(_Resource):
    """Buy now, pay later (``bnpl_split4``, ``bnpl_split3``)."""

    def eligibility(self, params: Optional[t.BnplEligibilityParams] = None, /, **kwargs: Any) -> t.BnplEligibility:
        """``GET /v1/bnpl/eligibility``: ``eligible`` with the schedule, or ``not_eligible`` with the reason."""
        return self._call(Call("GET", "/v1/bnpl/eligibility", params=merge_params(params, kwargs),  # type: ignore
                               model=t.BnplEligibility))


class TestHelpers(_Resource):
    """Test mode only (a live key is refused with 403)."""

    def fawry_pay(self, reference: str) -> t.PaymentIntent:
        """The buyer pays the Fawry reference at an outlet: the intent succeeds."""
        return self._call(Call("POST", "/api/test-helpers/fawry/pay", body={"reference": reference},  # type: ignore
                               model=t.PaymentIntent))


_RESOURCES = dict(payment_intents=PaymentIntents, payments=Payments, customers=Customers,
                  payment_links=PaymentLinks, subscriptions=Subscriptions, invoices=Invoices,
                  balance=BalanceResource, settlements=Settlements, webhooks=Webhooks,
                  payment_method_types=PaymentMethodTypes, test_helpers=TestHelpers,
                  installments=Installments, bnpl=Bnpl)


class Qafila:
    """Synchronous client.

    ``Qafila(api_key=None, *, base_url=None, max_retries=3, timeout=30.0, transport=None, http_client=None)``;
    the key and the base URL default to ``QAFILA_API_KEY`` and ``QAFILA_BASE_URL``.
    """

    payment_intents: PaymentIntents
    payments: Payments
    customers: Customers
    payment_links: PaymentLinks
    subscriptions: Subscriptions
    invoices: Invoices
    balance: BalanceResource
    settlements: Settlements
    webhooks: Webhooks
    payment_method_types: PaymentMethodTypes
    test_helpers: TestHelpers
    installments: Installments
    bnpl: Bnpl

    def __init__(self, api_key: Optional[str] = None, **options: Any):
        self._requester = SyncRequester(api_key, **options)
        for name, cls in _RESOURCES.items():
            setattr(self, name, cls(self))

    @property
    def base_url(self) -> str:
        return self._requester.base_url

    def request(self, method: str, path: str, *, params=None, body=None, idempotency_key=None) -> Any:
        """Any other operation, as plain JSON (same retries and idempotency keys)."""
        return self._requester.request(Call(method.upper(), path, params=params, body=body,
                                            idempotency_key=idempotency_key))

    def close(self) -> None:
        self._requester.close()

    def __enter__(self) -> "Qafila":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# ---------------------------------------------------------------------------- async
# The same operations, awaited. Each async resource drives its synchronous twin on the async
# requester (whose calls return coroutines), so both share one definition of every request.

class _AsyncResource:
    _sync: ClassVar[type]

    def __init__(self, client):
        self._impl = self._sync(client)


class AsyncPaymentIntents(_AsyncResource):
    """``/v1/payments``: payment intents."""

    _sync = PaymentIntents

    async def create(self, params: Optional[t.PaymentIntentCreateParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        return await self._impl.create(params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def confirm(self, id: str, params: Optional[t.PaymentIntentConfirmParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        return await self._impl.confirm(id, params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def retrieve(self, id: str) -> t.PaymentIntent:
        return await self._impl.retrieve(id)  # type: ignore[misc]

    async def cancel(self, id: str, params: Optional[t.PaymentIntentCancelParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        return await self._impl.cancel(id, params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def refund(self, id: str, params: Optional[t.PaymentIntentRefundParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        """Full refund without ``amount``; partial with one (see the sync client)."""
        return await self._impl.refund(id, params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def capture(self, id: str, params: Optional[t.PaymentIntentCaptureParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentIntent:
        """BNPL: capture ``amount`` of a ``requires_capture`` intent (see the sync client)."""
        return await self._impl.capture(id, params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def list(self, params: Optional[t.PaymentIntentListParams] = None, /,
                  **kwargs: Any) -> AsyncPage[t.PaymentIntent]:
        """Filters: limit, starting_after, status, currency, payment_method, created_gte / created_lte
        (or ``created={"gte": ..., "lte": ...}``), Unix seconds."""
        return await self._impl.list(params, **kwargs)  # type: ignore[misc]


class AsyncPayments(_AsyncResource):
    """``/api/payments``: card payments routed to providers; capture, void, refund."""

    _sync = Payments

    async def create(self, params: Optional[t.PaymentCreateParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.Payment:
        return await self._impl.create(params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def retrieve(self, id: str) -> t.Payment:
        return await self._impl.retrieve(id)  # type: ignore[misc]

    async def list(self, params: Optional[t.PaymentListParams] = None, /, **kwargs: Any) -> AsyncPage[t.Payment]:
        return await self._impl.list(params, **kwargs)  # type: ignore[misc]

    async def capture(self, id: str, amount: Optional[int] = None, *,
                  idempotency_key: Optional[str] = None) -> t.PaymentCapture:
        return await self._impl.capture(id, amount, idempotency_key=idempotency_key)  # type: ignore[misc]

    async def void(self, id: str, *, idempotency_key: Optional[str] = None) -> t.PaymentVoid:
        return await self._impl.void(id, idempotency_key=idempotency_key)  # type: ignore[misc]

    async def refund(self, id: str, amount: Optional[int] = None, reason: Optional[str] = None, *,
                  idempotency_key: Optional[str] = None) -> t.Refund:
        """Full refund without ``amount``; partial with one."""
        return await self._impl.refund(id, amount, reason, idempotency_key=idempotency_key)  # type: ignore[misc]


class AsyncCustomers(_AsyncResource):
    _sync = Customers

    async def create(self, params: Optional[t.CustomerCreateParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.Customer:
        return await self._impl.create(params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def retrieve(self, id: str) -> t.Customer:
        return await self._impl.retrieve(id)  # type: ignore[misc]

    async def update(self, id: str, params: Optional[t.CustomerUpdateParams] = None, /,
                  **kwargs: Any) -> t.Customer:
        return await self._impl.update(id, params, **kwargs)  # type: ignore[misc]

    async def list(self, params: Optional[t.CustomerListParams] = None, /, **kwargs: Any) -> AsyncPage[t.Customer]:
        return await self._impl.list(params, **kwargs)  # type: ignore[misc]


class AsyncPaymentLinks(_AsyncResource):
    _sync = PaymentLinks

    async def create(self, params: Optional[t.PaymentLinkCreateParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.PaymentLink:
        return await self._impl.create(params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def retrieve(self, id: str) -> t.PaymentLink:
        return await self._impl.retrieve(id)  # type: ignore[misc]

    async def list(self, params: Optional[t.PaymentLinkListParams] = None, /,
                  **kwargs: Any) -> AsyncPage[t.PaymentLink]:
        return await self._impl.list(params, **kwargs)  # type: ignore[misc]

    async def cancel(self, id: str) -> t.PaymentLink:
        return await self._impl.cancel(id)  # type: ignore[misc]


class AsyncSubscriptions(_AsyncResource):
    _sync = Subscriptions

    async def create(self, params: Optional[t.SubscriptionCreateParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.Subscription:
        return await self._impl.create(params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def retrieve(self, id: str) -> t.Subscription:
        return await self._impl.retrieve(id)  # type: ignore[misc]

    async def list(self, params: Optional[t.SubscriptionListParams] = None, /,
                  **kwargs: Any) -> AsyncPage[t.Subscription]:
        return await self._impl.list(params, **kwargs)  # type: ignore[misc]

    async def pause(self, id: str) -> t.Subscription:
        return await self._impl.pause(id)  # type: ignore[misc]

    async def resume(self, id: str) -> t.Subscription:
        return await self._impl.resume(id)  # type: ignore[misc]

    async def cancel(self, id: str) -> t.Subscription:
        return await self._impl.cancel(id)  # type: ignore[misc]


class AsyncInvoices(_AsyncResource):
    _sync = Invoices

    async def create(self, params: Optional[t.InvoiceCreateParams] = None, /, *,
                  idempotency_key: Optional[str] = None, **kwargs: Any) -> t.Invoice:
        return await self._impl.create(params, idempotency_key=idempotency_key, **kwargs)  # type: ignore[misc]

    async def retrieve(self, id: str) -> t.Invoice:
        return await self._impl.retrieve(id)  # type: ignore[misc]

    async def list(self, params: Optional[t.InvoiceListParams] = None, /, **kwargs: Any) -> AsyncPage[t.Invoice]:
        return await self._impl.list(params, **kwargs)  # type: ignore[misc]

    async def send(self, id: str, channel: str = "email") -> t.Invoice:
        """``channel``: ``email`` or ``messaging``."""
        return await self._impl.send(id, channel)  # type: ignore[misc]

    async def mark_paid(self, id: str) -> t.Invoice:
        return await self._impl.mark_paid(id)  # type: ignore[misc]


class AsyncBalanceResource(_AsyncResource):
    _sync = BalanceResource

    async def retrieve(self) -> t.Balance:
        return await self._impl.retrieve()  # type: ignore[misc]


class AsyncSettlements(_AsyncResource):
    _sync = Settlements

    async def list(self, params: Optional[t.SettlementListParams] = None, /,
                  **kwargs: Any) -> AsyncPage[t.Settlement]:
        return await self._impl.list(params, **kwargs)  # type: ignore[misc]

    async def retrieve(self, id: str) -> t.Settlement:
        return await self._impl.retrieve(id)  # type: ignore[misc]

    async def list_transactions(self, id: str,
                  params: Optional[t.SettlementTransactionListParams] = None, /, **kwargs: Any) -> AsyncPage[t.SettlementTransaction]:
        """The payments, refunds and fees a settlement is made of."""
        return await self._impl.list_transactions(id, params, **kwargs)  # type: ignore[misc]


class AsyncInstallments(_AsyncResource):
    """Installments (taksit): a card's options and the merchant's plans."""

    _sync = Installments

    async def options(self, bin: str, amount: int, currency: str = "TRY") -> t.InstallmentOptions:
        return await self._impl.options(bin, amount, currency)  # type: ignore[misc]

    async def plans(self) -> t.InstallmentPlans:
        return await self._impl.plans()  # type: ignore[misc]

    async def replace_plans(self, plans: List[t.InstallmentPlanParams]) -> t.InstallmentPlans:
        return await self._impl.replace_plans(plans)  # type: ignore[misc]


class AsyncWebhooks(_AsyncResource):
    """Endpoints (``configure`` returns the signing ``secret``, once), events and test deliveries.
    Verifying a delivery: ``qafila.verify_webhook`` / ``qafila.construct_event``."""

    _sync = Webhooks

    async def configure(self, url: str, events: Optional[List[str]] = None, *,
                  idempotency_key: Optional[str] = None) -> t.WebhookEndpoint:
        return await self._impl.configure(url, events, idempotency_key=idempotency_key)  # type: ignore[misc]

    async def list_endpoints(self, **kwargs: Any) -> AsyncPage[t.WebhookEndpoint]:
        return await self._impl.list_endpoints(**kwargs)  # type: ignore[misc]

    async def disable_endpoint(self, id: str, *, idempotency_key: Optional[str] = None) -> t.WebhookEndpoint:
        return await self._impl.disable_endpoint(id, idempotency_key=idempotency_key)  # type: ignore[misc]

    async def list_events(self, params: Optional[t.WebhookEventListParams] = None, /,
                  **kwargs: Any) -> AsyncPage[t.WebhookEventRecord]:
        return await self._impl.list_events(params, **kwargs)  # type: ignore[misc]

    async def retrieve_event(self, id: str) -> t.WebhookEventRecord:
        return await self._impl.retrieve_event(id)  # type: ignore[misc]

    async def retry_event(self, id: str, *, idempotency_key: Optional[str] = None) -> t.WebhookEventRecord:
        return await self._impl.retry_event(id, idempotency_key=idempotency_key)  # type: ignore[misc]

    async def test(self, event: str, endpoint: Optional[str] = None, *,
                  idempotency_key: Optional[str] = None) -> t.WebhookTestResult:
        return await self._impl.test(event, endpoint, idempotency_key=idempotency_key)  # type: ignore[misc]


class AsyncBnpl(_AsyncResource):
    """Buy now, pay later (``bnpl_split4``, ``bnpl_split3``)."""

    _sync = Bnpl

    async def eligibility(self, params: Optional[t.BnplEligibilityParams] = None, /,
                  **kwargs: Any) -> t.BnplEligibility:
        return await self._impl.eligibility(params, **kwargs)  # type: ignore[misc]


_ASYNC_RESOURCES = dict(payment_intents=AsyncPaymentIntents, payments=AsyncPayments, customers=AsyncCustomers,
                        payment_links=AsyncPaymentLinks, subscriptions=AsyncSubscriptions, invoices=AsyncInvoices,
                        balance=AsyncBalanceResource, settlements=AsyncSettlements, webhooks=AsyncWebhooks,
                        installments=AsyncInstallments, bnpl=AsyncBnpl)


class AsyncQafila:
    """Asynchronous client: the same resources and methods as ``Qafila``, awaited.

        async with AsyncQafila("sk_test_...") as client:
            intent = await client.payment_intents.create(amount=10000, currency="TRY", payment_method="card")
            page = await client.payment_intents.list(limit=2)
            async for pi in page.auto_paging_iter(): ...
    """

    payment_intents: AsyncPaymentIntents
    payments: AsyncPayments
    customers: AsyncCustomers
    payment_links: AsyncPaymentLinks
    subscriptions: AsyncSubscriptions
    invoices: AsyncInvoices
    balance: AsyncBalanceResource
    settlements: AsyncSettlements
    webhooks: AsyncWebhooks
    installments: AsyncInstallments
    bnpl: AsyncBnpl

    def __init__(self, api_key: Optional[str] = None, **options: Any):
        self._requester = AsyncRequester(api_key, **options)
        for name, cls in _ASYNC_RESOURCES.items():
            setattr(self, name, cls(self))

    @property
    def base_url(self) -> str:
        return self._requester.base_url

    async def request(self, method: str, path: str, *, params=None, body=None, idempotency_key=None) -> Any:
        return await self._requester.request(Call(method.upper(), path, params=params, body=body,
                                                  idempotency_key=idempotency_key))

    async def aclose(self) -> None:
        await self._requester.aclose()

    async def __aenter__(self) -> "AsyncQafila":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()
