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


def test_every_character_is_drawn_evenly():
    counts = collections.Counter("".join(ids.new_id("x")[2:] for _ in range(20_000)))
    assert set(counts) == set(ids._ALPHABET)
    expected = 20_000 * 24 / 62                             # 7,742 each
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
