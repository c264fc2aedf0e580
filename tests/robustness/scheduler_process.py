"""One scheduler pass as its own OS process (for the two-process test): runs everything of one
merchant's test mode due by UNTIL and prints how many items of each kind it ran, as JSON."""
from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime

from app.backend import Backend
from app.settings import load_settings
from services import scheduler


async def main(merchant_id: str, until: str) -> None:
    backend = Backend(load_settings())
    await backend.start()
    try:
        ran = await scheduler.run_due(scheduler.Scope(livemode=False, merchant_id=merchant_id),
                                      datetime.fromisoformat(until))
        kinds: dict[str, int] = {}
        for r in ran:
            kinds[r.kind] = kinds.get(r.kind, 0) + 1
        print(json.dumps({"ran": kinds}), flush=True)
    finally:
        await backend.stop()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
