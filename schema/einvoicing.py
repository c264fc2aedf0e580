"""GraphQL for ZATCA e-invoicing: the EGS unit (zatcaUnit, zatcaOnboard), an invoice's
`zatca` block, credit and debit notes -- the same services as /api/einvoicing/zatca and
/api/invoices/{id}/credit-notes|debit-notes."""
from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from schema.context import Context
from schema.errors import UserError, user_errors
from schema.inputs import to_data
from schema.scalars import MinorAmount
from services.einvoicing import core
from services.einvoicing.eta import documents as eta_documents, units as eta_units
from services.einvoicing.gib import documents as gib_documents, units as gib_units
from services.einvoicing.zatca import documents, units


@strawberry.type
class ZatcaMessage:
    type: str
    code: str
    category: str
    message: str


@strawberry.type
class InvoiceZatca:
    type: str = strawberry.field(description="simplified (B2C, reported) or standard (B2B, cleared)")
    uuid: str
    icv: int = strawberry.field(description="Invoice counter value: +1 per document of the unit")
    hash: str = strawberry.field(description="The invoice hash (base64 SHA-256 of the canonical XML)")
    status: str = strawberry.field(description="pending, reported, cleared or rejected")
    messages: list[ZatcaMessage]


def zatca_of(block: dict | None) -> InvoiceZatca | None:
    if not block:
        return None
    return InvoiceZatca(type=block["type"], uuid=block["uuid"], icv=block["icv"], hash=block["hash"],
                        status=block["status"],
                        messages=[ZatcaMessage(type=m.get("type", ""), code=m.get("code", ""),
                                               category=m.get("category", ""), message=m.get("message", ""))
                                  for m in block.get("messages") or []])


@strawberry.type
class GibMessage:
    code: str
    message: str


@strawberry.type
class EtaError:
    path: str = strawberry.field(description="The document's field ETA found wrong (e.g. receiver.id)")
    code: str
    message: str


@strawberry.type
class InvoiceGib:
    type: str = strawberry.field(description="efatura (a buyer registered with GİB) or earsiv")
    profile: str | None = strawberry.field(description="TICARIFATURA, TEMELFATURA or EARSIVFATURA")
    number: str = strawberry.field(description="prefix + year + 9 digits, e.g. QAF2026000000001")
    uuid: str = strawberry.field(description="The ETTN")
    status: str = strawberry.field(description="pending, sent, accepted, rejected, reported or canceled")
    messages: list[GibMessage]


def gib_of(block: dict | None) -> InvoiceGib | None:
    if not block:
        return None
    return InvoiceGib(type=block["type"], profile=block.get("profile"), number=block["number"], uuid=block["uuid"],
                      status=block["status"],
                      messages=[GibMessage(code=str(m.get("code") or ""), message=str(m.get("message") or ""))
                                for m in block.get("messages") or []])


@strawberry.type
class InvoiceEta:
    document_id: str
    type: str = strawberry.field(description="I (invoice), C (credit note) or D (debit note)")
    uuid: str | None = strawberry.field(description="ETA's uuid, once ETA accepted the submission")
    long_id: str | None
    submission_id: str | None
    internal_id: str
    status: str = strawberry.field(description="pending, submitted, valid, invalid, rejected or cancelled")
    errors: list[EtaError]


def eta_of(block: dict | None) -> InvoiceEta | None:
    if not block:
        return None
    return InvoiceEta(document_id=block["document_id"], type=block["type"], uuid=block.get("uuid"),
                      long_id=block.get("long_id"), submission_id=block.get("submission_id"),
                      internal_id=block["internal_id"], status=block["status"],
                      errors=[EtaError(path=e.get("path", ""), code=e.get("code", ""), message=e.get("message", ""))
                              for e in block.get("errors") or []])


@strawberry.type
class EtaAddress:
    country: str
    governate: str
    region_city: str
    street: str
    building_number: str


@strawberry.type
class EtaBranch:
    id: str
    address: EtaAddress


@strawberry.type
class EtaPos:
    serial: str
    os_version: str


@strawberry.type
class EtaUnit:
    id: strawberry.ID | None
    status: str = strawberry.field(description="not_set_up or active")
    livemode: bool
    rin: str | None
    name: str | None
    branch: EtaBranch | None
    activity_code: str | None
    pos: EtaPos | None
    receipts: str | None = strawberry.field(description="all (every EGP payment) or on_request (eta_receipt: true)")
    default_item_code: str | None
    base_url: str | None = strawberry.field(description="ETA's API at another base (preprod, a sandbox); null: ETA's")
    certificate_serial: str | None
    certificate_expires_at: datetime | None
    certificate_self_signed: bool | None
    documents_issued: int
    receipts_issued: int

    @classmethod
    def of(cls, d: dict) -> EtaUnit:
        b = d["branch"]
        return cls(id=strawberry.ID(d["id"]) if d["id"] else None, status=d["status"], livemode=d["livemode"],
                   rin=d["rin"], name=d["name"],
                   branch=EtaBranch(id=b["id"], address=EtaAddress(**b["address"])) if b else None,
                   activity_code=d["activity_code"], pos=EtaPos(**d["pos"]) if d["pos"] else None,
                   receipts=d["receipts"], default_item_code=d["default_item_code"], base_url=d.get("base_url"),
                   certificate_serial=d["certificate_serial"],
                   certificate_expires_at=datetime.fromisoformat(d["certificate_expires_at"].replace("Z", "+00:00"))
                   if d["certificate_expires_at"] else None, certificate_self_signed=d["certificate_self_signed"],
                   documents_issued=d["documents_issued"], receipts_issued=d["receipts_issued"])


@strawberry.type
class ZatcaUnit:
    id: strawberry.ID | None
    status: str = strawberry.field(description="not_onboarded or onboarded")
    livemode: bool
    vat_number: str | None
    organization_name: str | None
    organization_unit: str | None
    common_name: str | None
    invoice_types: str | None
    locale: str | None = strawberry.field(description="BCP 47; -u-nu-arab prints Arabic-Indic digits on Arabic PDFs")
    certificate_serial: str | None
    certificate_expires_at: datetime | None
    icv: int

    @classmethod
    def of(cls, d: dict) -> ZatcaUnit:
        return cls(id=strawberry.ID(d["id"]) if d["id"] else None, status=d["status"], livemode=d["livemode"],
                   vat_number=d["vat_number"], organization_name=d["organization_name"],
                   organization_unit=d["organization_unit"], common_name=d["common_name"],
                   invoice_types=d["invoice_types"], locale=d["locale"], certificate_serial=d["certificate_serial"],
                   certificate_expires_at=datetime.fromisoformat(d["certificate_expires_at"].replace("Z", "+00:00"))
                   if d["certificate_expires_at"] else None, icv=d["icv"])


@strawberry.type
class ZatcaNote:
    id: strawberry.ID
    kind: str = strawberry.field(description="credit_note (381) or debit_note (383)")
    invoice_id: str
    number: str
    amount: MinorAmount
    tax: MinorAmount
    reason: str | None
    zatca: InvoiceZatca


@strawberry.type
class InvoiceNote:
    """A note that refers to an invoice (credit, debit, a return), of any authority, as the
    invoice lists it (`notes` in REST and webhooks)."""
    id: strawberry.ID
    kind: str = strawberry.field(description="credit_note, debit_note or return")
    number: str
    amount: MinorAmount = strawberry.field(description="Tax included, minor units")
    tax: MinorAmount
    reason: str | None
    created_at: datetime | None
    zatca: InvoiceZatca | None = strawberry.field(description="Its ZATCA document, for a Saudi note")
    gib: InvoiceGib | None = strawberry.field(description="Its GİB document, for a Turkish return (IADE)")
    eta: InvoiceEta | None = strawberry.field(description="Its ETA document, for an Egyptian note")

    @classmethod
    def of(cls, n: dict) -> InvoiceNote:
        return cls(id=strawberry.ID(n["id"]), kind=n["kind"], number=n["number"], amount=n["amount"], tax=n["tax"],
                   reason=n.get("reason"),
                   created_at=datetime.fromisoformat(n["created_at"].replace("Z", "+00:00")) if n.get("created_at")
                   else None, zatca=zatca_of(n.get("zatca")), gib=gib_of(n.get("gib")),
                   eta=eta_of(n.get("eta")))


@strawberry.input
class ZatcaAddressInput:
    street: str | None = strawberry.UNSET
    building_number: str | None = strawberry.UNSET
    district: str | None = strawberry.UNSET
    city: str | None = strawberry.UNSET
    postal_code: str | None = strawberry.UNSET


@strawberry.input
class ZatcaOnboardInput:
    otp: str
    vat_number: str
    organization_name: str
    organization_unit: str
    common_name: str
    invoice_types: str | None = strawberry.UNSET
    industry: str | None = strawberry.UNSET
    locale: str | None = strawberry.UNSET
    address: ZatcaAddressInput | None = strawberry.UNSET


@strawberry.input
class EtaAddressInput:
    country: str
    governate: str
    region_city: str
    street: str
    building_number: str


@strawberry.input
class EtaBranchInput:
    address: EtaAddressInput
    id: str | None = strawberry.UNSET


@strawberry.input
class EtaPosInput:
    serial: str
    os_version: str


@strawberry.input
class EtaSetupInput:
    rin: str
    name: str
    branch: EtaBranchInput
    activity_code: str
    client_id: str
    client_secret: str
    certificate: str | None = strawberry.UNSET
    private_key: str | None = strawberry.UNSET
    pos: EtaPosInput | None = strawberry.UNSET
    receipts: str | None = strawberry.UNSET
    default_item_code: str | None = strawberry.UNSET
    base_url: str | None = strawberry.UNSET


@strawberry.input
class EtaNoteInput:
    invoice_id: strawberry.ID
    kind: str = strawberry.field(description="credit_note or debit_note")
    reason: str
    amount: MinorAmount | None = strawberry.UNSET


@strawberry.input
class EinvoiceCancelInput:
    invoice_id: strawberry.ID
    reason: str | None = strawberry.field(default=strawberry.UNSET, description="Required by ETA; kept by GİB")


@strawberry.type
class EtaSetupPayload:
    unit: EtaUnit | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class EtaNotePayload:
    note: InvoiceNote | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class EinvoiceCancelPayload:
    invoice_id: strawberry.ID | None = None
    gib: InvoiceGib | None = None
    eta: InvoiceEta | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.input
class ZatcaNoteInput:
    invoice_id: strawberry.ID
    reason: str
    amount: MinorAmount | None = strawberry.UNSET


@strawberry.type
class ZatcaOnboardPayload:
    unit: ZatcaUnit | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ZatcaNotePayload:
    note: ZatcaNote | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


def _note(d) -> ZatcaNote:
    return ZatcaNote(id=strawberry.ID(d.id), kind=d.kind, invoice_id=d.invoice_id, number=d.number, amount=d.amount,
                     tax=d.tax, reason=d.reason, zatca=zatca_of(documents.zatca_of(d)))


@strawberry.type
class GibAddress:
    street: str | None
    building_number: str | None
    district: str | None
    city: str | None
    postal_code: str | None
    country: str | None


@strawberry.type
class GibUnit:
    id: strawberry.ID | None
    status: str = strawberry.field(description="not_set_up or active")
    livemode: bool
    vkn: str | None
    tckn: str | None
    title: str | None
    tax_office: str | None
    address: GibAddress | None
    prefix: str | None
    website: str | None
    kdv_rate: int | None = strawberry.field(description="KDV % of payments that ask for an invoice")
    efatura_profile: str | None
    integrator: str | None = strawberry.field(description="sandbox, or the integrator's URL (credentials never shown)")
    integrator_username: str | None
    next_number: str | None

    @classmethod
    def of(cls, d: dict) -> GibUnit:
        integ = d["integrator"]
        a = d["address"]
        return cls(id=strawberry.ID(d["id"]) if d["id"] else None, status=d["status"], livemode=d["livemode"],
                   vkn=d["vkn"], tckn=d["tckn"], title=d["title"], tax_office=d["tax_office"],
                   address=GibAddress(**{k: a.get(k) for k in ("street", "building_number", "district", "city",
                                                               "postal_code", "country")}) if a else None,
                   prefix=d["prefix"], website=d["website"], kdv_rate=d["kdv_rate"],
                   efatura_profile=d["efatura_profile"],
                   integrator=integ if isinstance(integ, str) or integ is None else integ["url"],
                   integrator_username=integ.get("username") if isinstance(integ, dict) else None,
                   next_number=d["next_number"])


@strawberry.type
class GibTaxpayer:
    vkn: str
    registered: bool = strawberry.field(description="Registered for e-Fatura (else the buyer gets an e-Arşiv)")
    title: str | None
    alias: str | None = strawberry.field(description="The buyer's e-Fatura mailbox (urn:mail:...pk@...)")


@strawberry.input
class GibAddressInput:
    street: str
    district: str
    city: str
    postal_code: str
    building_number: str | None = strawberry.UNSET
    country: str | None = strawberry.UNSET


@strawberry.input
class GibIntegratorInput:
    url: str
    username: str
    password: str


@strawberry.input
class GibSetupInput:
    title: str
    tax_office: str
    address: GibAddressInput
    prefix: str
    vkn: str | None = strawberry.UNSET
    tckn: str | None = strawberry.UNSET
    website: str | None = strawberry.UNSET
    kdv_rate: int | None = strawberry.UNSET
    efatura_profile: str | None = strawberry.UNSET
    integrator: str | None = strawberry.field(default=strawberry.UNSET, description='"sandbox" (test mode)')
    integrator_credentials: GibIntegratorInput | None = strawberry.field(
        default=strawberry.UNSET, description="Your integrator's {url, username, password} (live mode; kept encrypted)")


@strawberry.input
class GibReturnInput:
    invoice_id: strawberry.ID
    reason: str
    amount: MinorAmount | None = strawberry.UNSET


@strawberry.type
class GibSetupPayload:
    unit: GibUnit | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class GibReturnPayload:
    note: InvoiceNote | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class Query:
    @strawberry.field(description="The caller's GİB (Turkish e-invoice) unit in this mode.")
    async def gib_unit(self, info: Info[Context, None]) -> GibUnit:
        return GibUnit.of(await gib_units.unit_view(principal=info.context.principal))

    @strawberry.field(description="Whether a VKN/TCKN is registered for e-Fatura (the integrator's taxpayer list).")
    async def gib_taxpayer(self, info: Info[Context, None], vkn: str) -> GibTaxpayer:
        d = await gib_units.taxpayer(principal=info.context.principal, vkn=vkn)
        return GibTaxpayer(vkn=d["vkn"], registered=d["registered"], title=d["title"], alias=d["alias"])

    @strawberry.field(description="The caller's ZATCA EGS unit in this mode.")
    async def zatca_unit(self, info: Info[Context, None]) -> ZatcaUnit:
        principal = info.context.principal
        return ZatcaUnit.of(units.unit_object(await units.get_unit(principal=principal), principal))

    @strawberry.field(description="The caller's ETA (Egypt) unit in this mode.")
    async def eta_unit(self, info: Info[Context, None]) -> EtaUnit:
        principal = info.context.principal
        return EtaUnit.of(eta_units.unit_object(await eta_units.get_unit(principal=principal), principal))


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Onboard the EGS unit with ZATCA (OTP from the Fatoora portal).")
    async def zatca_onboard(self, info: Info[Context, None], input: ZatcaOnboardInput) -> ZatcaOnboardPayload:
        principal = info.context.principal
        u, errors = await user_errors(lambda: units.onboard(principal=principal, data=to_data(input)))
        return ZatcaOnboardPayload(unit=ZatcaUnit.of(units.unit_object(u, principal)) if u else None,
                                   user_errors=errors)

    @strawberry.mutation(description="Set up Turkish e-invoices (GİB) through an integrator.")
    async def gib_setup(self, info: Info[Context, None], input: GibSetupInput) -> GibSetupPayload:
        principal = info.context.principal
        data = to_data(input)
        creds = data.pop("integrator_credentials", None)
        if creds is not None:
            data["integrator"] = creds

        async def run() -> dict:
            await gib_units.setup(principal=principal, data=data)
            return await gib_units.unit_view(principal=principal)
        u, errors = await user_errors(run)
        return GibSetupPayload(unit=GibUnit.of(u) if u else None, user_errors=errors)

    @strawberry.mutation(description="Issue a GİB IADE (return) invoice on a Turkish e-invoice.")
    async def invoice_gib_return(self, info: Info[Context, None], input: GibReturnInput) -> GibReturnPayload:
        principal = info.context.principal
        data = {k: v for k, v in to_data(input).items() if k != "invoice_id"}
        n, errors = await user_errors(lambda: gib_documents.return_for(principal=principal,
                                                                       invoice_id=str(input.invoice_id), data=data))
        return GibReturnPayload(note=InvoiceNote.of(n) if n else None, user_errors=errors)

    @strawberry.mutation(description="Set up the merchant's ETA unit (Egyptian e-invoices and e-receipts).")
    async def eta_setup(self, info: Info[Context, None], input: EtaSetupInput) -> EtaSetupPayload:
        principal = info.context.principal
        u, errors = await user_errors(lambda: eta_units.setup(principal=principal, data=to_data(input)))
        return EtaSetupPayload(unit=EtaUnit.of(eta_units.unit_object(u, principal)) if u else None,
                               user_errors=errors)

    @strawberry.mutation(description="Issue an ETA credit note (C) or debit note (D) on a valid ETA e-invoice.")
    async def invoice_eta_note(self, info: Info[Context, None], input: EtaNoteInput) -> EtaNotePayload:
        principal = info.context.principal
        data = {k: v for k, v in to_data(input).items() if k not in ("invoice_id", "kind")}
        if input.kind not in ("credit_note", "debit_note"):
            return EtaNotePayload(user_errors=[UserError(field="kind", message="kind must be credit_note or debit_note",
                                                         code="invalid_request")])
        d, errors = await user_errors(lambda: eta_documents.issue_note(
            principal=principal, invoice_id=str(input.invoice_id), kind=input.kind, data=data))
        return EtaNotePayload(note=InvoiceNote.of(eta_documents.note_entry(d)) if d else None, user_errors=errors)

    @strawberry.mutation(description="Cancel the invoice's e-document: a GİB e-Arşiv within 7 days of its issue, a "
                                     "valid ETA e-invoice within ETA's window (with a reason).")
    async def invoice_cancel_einvoice(self, info: Info[Context, None], input: EinvoiceCancelInput
                                      ) -> EinvoiceCancelPayload:
        principal = info.context.principal
        data = {k: v for k, v in to_data(input).items() if k != "invoice_id"}
        inv, errors = await user_errors(lambda: core.cancel_einvoice(
            principal=principal, invoice_id=str(input.invoice_id), data=data))
        return EinvoiceCancelPayload(invoice_id=strawberry.ID(inv.id) if inv else None,
                                     gib=gib_of(inv.gib) if inv else None, eta=eta_of(inv.eta) if inv else None,
                                     user_errors=errors)

    @strawberry.mutation(description="Issue a ZATCA credit note (381) on an e-invoice.")
    async def invoice_credit_note(self, info: Info[Context, None], input: ZatcaNoteInput) -> ZatcaNotePayload:
        return await _issue(info, input, "credit_note")

    @strawberry.mutation(description="Issue a ZATCA debit note (383) on an e-invoice.")
    async def invoice_debit_note(self, info: Info[Context, None], input: ZatcaNoteInput) -> ZatcaNotePayload:
        return await _issue(info, input, "debit_note")


async def _issue(info: Info[Context, None], input: ZatcaNoteInput, kind: str) -> ZatcaNotePayload:
    principal = info.context.principal
    data = {k: v for k, v in to_data(input).items() if k != "invoice_id"}
    d, errors = await user_errors(lambda: documents.issue_note(principal=principal, invoice_id=str(input.invoice_id),
                                                               kind=kind, data=data))
    return ZatcaNotePayload(note=_note(d) if d else None, user_errors=errors)
