"""The receipt tokens of payments and intents paid before `receipt_token` existed: each gets a
random one from the database's own strong source, so its receipt stays reachable (by the new URL)."""


async def backfill(client, table: str, paid: tuple[str, ...]) -> None:
    states = ", ".join(f"'{s}'" for s in paid)
    if client.capabilities.dialect == "postgres":
        token = "replace(gen_random_uuid()::text, '-', '')"      # 122 random bits (PostgreSQL 13+)
    else:
        token = "lower(hex(randomblob(16)))"                      # 128 bits
    await client.execute_script(f'UPDATE "{table}" SET "receipt_token" = {token} '
                                f'WHERE "receipt_token" IS NULL AND "status" IN ({states})')
