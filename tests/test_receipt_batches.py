"""The receipts worker's step: it claims a batch of up to CLAIM_BATCH receipts and sends them
SEND_CONCURRENCY at a time (never more connections to the mail server at once), every one of
them sent and recorded by the one step (issue 48: a step's reads and writes shared by the batch)."""
from __future__ import annotations

import asyncio

import pytest
from tortoise import Tortoise

from models.receipts import Receipt
from services.payments import receipts
from tests.payments_fixtures import pay


async def test_one_step_sends_the_whole_batch_a_few_at_a_time(client, merchant, mailer, smtp_sink, monkeypatch):
    for i in range(9):
        status, p = await pay(client, merchant.sk, customer={"email": f"buyer{i}@example.com"})
        assert status == 200 and p["status"] == "succeeded", p
    monkeypatch.setattr(receipts, "SEND_CONCURRENCY", 4)
    sending, most = 0, 0
    real_send = mailer.send

    async def counted(**kw):
        nonlocal sending, most
        sending += 1
        most = max(most, sending)
        try:
            await asyncio.sleep(0)          # the others may start meanwhile: the gate alone holds them
            return await real_send(**kw)
        finally:
            sending -= 1

    monkeypatch.setattr(mailer, "send", counted)
    stats = await receipts.run_once(owner="test-worker", merchant_id=merchant.id)
    assert (stats.claimed, stats.sent, stats.failed) == (9, 9, 0)
    assert most == 4
    assert sorted(r for rcpt, _ in smtp_sink.messages for r in rcpt) == sorted(f"buyer{i}@example.com"
                                                                               for i in range(9))
    rows = await Receipt.filter(merchant_id=merchant.id).values("status", "attempts", "lease_owner")
    assert rows and all(r == {"status": "sent", "attempts": 1, "lease_owner": None} for r in rows), rows
    assert (await receipts.run_once(owner="test-worker", merchant_id=merchant.id)).claimed == 0


def test_the_lease_outlasts_a_batch_sent_a_few_at_a_time():
    rounds = -(-receipts.CLAIM_BATCH // receipts.SEND_CONCURRENCY)
    assert receipts.LEASE.total_seconds() > rounds * (receipts.SEND_TIMEOUT + 5)


async def test_the_claim_and_the_record_are_planned_for_their_values(client, merchant, smtp_sink, monkeypatch):
    """On PostgreSQL the service's connections run generic plans, made at a statement's first
    execution and kept until the next ANALYZE: on a fresh database the receipts claim's plan,
    made while the outbox was empty, read the whole table at every claim (18-183 ms a claim in
    the first seconds of payment creates, 0.3-0.7 ms once planned on the table as it is). The claim
    and the batch's record are planned for their values each time (once a batch); everything else
    keeps its generic plan."""
    from tortoise import Tortoise
    from tortoise.exceptions import IntegrityError

    from models import _lookup as lookup

    if Tortoise.get_connection("default").capabilities.dialect != "postgres":
        pytest.skip("plans are PostgreSQL's")
    mode = "SELECT current_setting('plan_cache_mode') AS mode"
    assert await lookup.fetch_custom_plan(Receipt, mode, []) == [{"mode": "force_custom_plan"}]
    assert await lookup.query(Receipt, mode, []) == [{"mode": "force_generic_plan"}]     # the pool's own
    with pytest.raises(IntegrityError):         # a write's driver error, as the ORM's would be
        await lookup.fetch_custom_plan(Receipt, 'INSERT INTO "receipts" ("id") VALUES ($1)', ["rcpt_no_columns"])
    seen: list[str] = []
    real = lookup.fetch_custom_plan

    async def spied(model, sql, values):
        seen.append(sql.split()[0] + " " + sql.split()[1])
        return await real(model, sql, values)

    monkeypatch.setattr(lookup, "fetch_custom_plan", spied)
    status, p = await pay(client, merchant.sk, customer={"email": "buyer@example.com"})
    assert status == 200, p
    stats = await receipts.run_once(owner="test-worker", merchant_id=merchant.id)
    assert (stats.claimed, stats.sent) == (1, 1)
    assert seen == ["UPDATE receipts", 'UPDATE "receipts"'], seen


async def test_a_step_reads_its_batch_in_a_few_statements_whatever_its_size(client, merchant, smtp_sink):
    """The claim returns the receipts it leased (PostgreSQL: no second read of them), and the
    batch's payments and merchants are one statement each, the same text for any number of ids."""
    from tests.payments_fixtures import count_statements

    for i in range(5):
        status, p = await pay(client, merchant.sk, customer={"email": f"step{i}@example.com"})
        assert status == 200, p
    with count_statements() as seen:
        stats = await receipts.run_once(owner="test-worker", merchant_id=merchant.id)
    assert (stats.claimed, stats.sent, stats.failed) == (5, 5, 0)
    reads = [s for s in seen if s.startswith("SELECT")]
    assert len(reads) == len(set(reads)), seen          # no table read twice
    if Tortoise.get_connection("default").capabilities.dialect == "postgres":
        assert [s.split()[0] for s in seen] == ["UPDATE", "SELECT", "SELECT", "UPDATE"], seen
        assert '"payments"' in reads[0] and '"merchants"' in reads[1], reads
    else:                   # SQLite (one writer): the claim and the record are an update per receipt
        assert sum(s.startswith("UPDATE") and "receipts" in s for s in seen) == 2 * 5, seen
    rows = await Receipt.filter(merchant_id=merchant.id).values("status", "attempts", "lease_owner", "sent_at")
    assert len(rows) == 5 and all(r["status"] == "sent" and r["attempts"] == 1 and r["lease_owner"] is None
                                  and r["sent_at"] is not None for r in rows), rows


async def test_by_ids_reads_the_rows_of_any_number_of_ids(client, merchant):
    from models import _lookup as lookup
    from models.payments import Payment
    from tests.payments_fixtures import count_statements

    made = []
    for amount in (1000, 2000, 3000):
        status, p = await pay(client, merchant.sk, amount=amount, customer={"email": "ids@example.com"})
        assert status == 200, p
        made.append(p["id"])
    with count_statements() as seen:
        assert await lookup.by_ids(Payment, [], ("id",)) == []
    assert seen == []                       # nothing asked, nothing read
    with count_statements() as seen:
        columns = ("id", "amount", "created_at", "installments")
        one = await lookup.by_ids(Payment, made[:1], columns)
        three = await lookup.by_ids(Payment, [*made, "pay_unknown", made[0]], columns)
    assert len(seen) == 2 and seen[0] == seen[1], seen      # one statement text for 1 id and for 5
    assert [(v.id, v.amount) for v in one] == [(made[0], 1000)]
    assert one[0].installments is None and one[0].created_at.tzinfo is not None
    assert sorted((v.id, v.amount) for v in three) == sorted(zip(made, (1000, 2000, 3000)))
