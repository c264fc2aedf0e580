"""services.ids: the ids new_id makes from its pool of characters."""
from __future__ import annotations

import collections
import os

from services import ids


def test_ids_are_prefixed_well_formed_and_distinct():
    made = [ids.new_id("pay") for _ in range(20_000)]       # several refills of the pool
    assert len(set(made)) == len(made)
    assert all(len(i) == 4 + ids.ID_LENGTH and ids.check_id(i) == i for i in made)
    assert ids.new_id("key", 32)[4:].isalnum() and len(ids.new_id("key", 32)) == 36


def test_every_random_character_is_drawn_evenly():
    counts = collections.Counter("".join(ids.new_id("x")[2 + ids.TIME_CHARS:] for _ in range(20_000)))
    assert set(counts) == set(ids._ALPHABET)
    expected = 20_000 * (24 - ids.TIME_CHARS) / 62          # 5,484 each
    assert all(abs(n - expected) < 0.1 * expected for n in counts.values()), counts


def test_a_forked_child_does_not_hand_out_its_parents_next_id():
    ids.new_id("x")                                         # the pool is full in the parent
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                            # the child: its first id, to the parent
        os.write(write, ids.new_id("x").encode())
        os._exit(0)
    os.waitpid(pid, 0)
    child = os.read(read, 64).decode()
    os.close(read), os.close(write)
    assert child.startswith("x_") and child != ids.new_id("x")


def test_ids_sort_by_the_millisecond_they_were_made_in(monkeypatch):
    made = []
    for ms in (0, 61, 62, 1_700_000_000_000, 1_700_000_000_001, 1_765_000_000_000, 62 ** 7 - 1):
        monkeypatch.setattr(ids, "_now_ms", lambda ms=ms: ms)
        made.append(ids.new_id("pay"))
    assert sorted(made) == made                             # byte order: PostgreSQL's "C" collation
    assert [m[4:4 + ids.TIME_CHARS] for m in made[:3]] == ["0000000", "000000z", "0000010"]
    assert made[-1][4:4 + ids.TIME_CHARS] == "zzzzzzz"


def test_short_ids_stay_wholly_random(monkeypatch):
    monkeypatch.setattr(ids, "_now_ms", lambda: 0)
    short = [ids.new_id("x", 12)[2:] for _ in range(2_000)]
    assert len(set(short)) == len(short) and all(len(s) == 12 for s in short)
    assert len({s[0] for s in short}) > 50                  # no fixed time characters in front
