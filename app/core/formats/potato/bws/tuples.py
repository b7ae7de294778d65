"""The tuples of a best-worst scaling study, made as Potato 2.12.1 makes them.

Why: with a ``bws_config:`` block in ``config.yaml``, Potato's server does not show the
data file's records. When it starts it draws tuples of ``tuple_size`` records from them,
replaces every record with those tuples (ids ``bws_tuple_0001``, ``bws_tuple_0002``…)
and writes them nowhere: not into the project, not into ``output_annotation_dir``. Each
start draws them again from the config and the data with the same seed, so they are the
same every time. The annotators' ``user_state.json`` answers name the tuple ids and the
tuple's positions (``{"best": "D", "worst": "B"}``); read against the data file's ids,
every answer was dropped and the study looked unanswered. So Accord makes the same tuples
again, from the behaviour described in Potato's ``bws_tuple_generator.py`` (its code is
not copied; ``tests/core/test_bws_tuples.py`` checks equality against Potato's own
generator):

- the pool is every record of the data files, in the order they are read;
- ``tuple_size`` (default 4), ``num_tuples`` (default: enough tuples for each record to
  appear ``min_item_appearances`` times, by default twice the tuple size, rounded up, at
  least one) and ``seed`` (default 42) come from ``bws_config``;
- a ``random.Random(seed)`` shuffles the pool's positions into a queue; each tuple takes,
  one after another, the first queued record it does not hold yet, out of the queue, and
  an empty queue is refilled with a new shuffle. So every record is shown once per pass.
  (Potato also appends a new shuffle when the queue holds only records the tuple already
  has; with a tuple no larger than the pool that cannot happen: after a refill at most
  ``tuple_size - 1`` queued records are the tuple's, and the pass holds the whole pool.)
- the tuple's members are lettered A, B, C… in the order they were taken.

Choices where Potato is silent:

- A tuple's text is what Potato shows for it, one line per member: ``"A: <text>"``
  (Potato draws each member's position letter beside its text; its own item text is
  empty). A member's text is its record's ``text_key`` value written as Python's
  ``str`` writes it, as Potato's is (a missing one is empty).
- A ``bws_config`` Potato would refuse at start (a tuple size under 2, over the pool or
  over the 26 letters; ``num_tuples`` under 1; a value of the wrong type) is an
  ``InputError`` naming the key: there would have been no study to answer.
- ``ibws_config`` (iterative BWS) draws each round's tuples from the scores of the last
  one, which Potato keeps in memory; those are not made here.
"""

from __future__ import annotations

import math
import random
from collections import deque
from collections.abc import Mapping
from typing import Any

from app.core.errors import InputError
from app.core.formats.potato.config import PotatoConfig
from app.core.formats.reading.yaml_file import read_yaml
from app.core.model import Item

ID_PREFIX = "bws_tuple_"
DEFAULTS = {"tuple_size": 4, "seed": 42}
MAX_TUPLE_SIZE = 26
"""Potato letters a tuple's members A..Z: a 27th member has no letter."""


def bws_tuples(config: PotatoConfig, items: Mapping[str, Item]) -> Mapping[str, Item]:
    """The study's items: Potato's generated tuples if the config asks for them, else
    ``items`` unchanged. Reads ``config.yaml`` again for its ``bws_config`` block."""
    raw = read_yaml(config.path, root=config.root)
    block = raw.get("bws_config") if isinstance(raw, dict) else None
    if not block:  # Potato: absent, null or empty draws nothing
        return items
    if not isinstance(block, dict):
        raise InputError("expected a mapping (tuple_size, num_tuples, seed)",
                         file=config.path, key="bws_config")
    pool = list(items.values())
    size = _integer(block, "tuple_size", config, minimum=2)
    if size > len(pool) or size > MAX_TUPLE_SIZE:
        raise InputError(f"tuple_size {size} is more than the {len(pool)} items of the data "
                         f"files or the {MAX_TUPLE_SIZE} letters A..Z; expected at most "
                         f"{min(len(pool), MAX_TUPLE_SIZE)}", file=config.path,
                         key="bws_config.tuple_size")
    count = _tuple_count(block, config, len(pool), size)
    seed = block.get("seed", DEFAULTS["seed"])
    if not isinstance(seed, int | str) or isinstance(seed, bool):
        raise InputError(f"expected an integer seed, found {seed!r:.40}", file=config.path,
                         key="bws_config.seed")
    text_key = config.text_key
    out: dict[str, Item] = {}
    for number, members in enumerate(draw_tuples(len(pool), size, count, seed), 1):
        picked = [pool[m] for m in members]
        entries = [{"source_id": item.id, "text": _text(item, text_key),
                    "position": chr(ord("A") + i)} for i, item in enumerate(picked)]
        tuple_id = f"{ID_PREFIX}{number:04d}"
        record = {config.id_key: tuple_id, **({text_key: ""} if text_key else {}),
                  "_bws_items": entries, "_bws_tuple_size": size}
        text = "\n".join(f"{e['position']}: {e['text']}" for e in entries)
        out[tuple_id] = Item(tuple_id, record, text)
    return out


def draw_tuples(pool_size: int, size: int, count: int, seed: int | str
                ) -> list[tuple[int, ...]]:
    """``count`` tuples of ``size`` distinct pool positions, drawn as Potato draws them
    (the module docstring). The queue is a deque: the record taken is nearly always at
    its front, so a pool of a million records is not a million list shifts per tuple."""
    rng = random.Random(seed)
    queue: deque[int] = deque()
    tuples = []
    for _ in range(count):
        chosen: list[int] = []
        while len(chosen) < size:
            if not queue:
                queue.extend(_shuffled(rng, pool_size))
            at = next(i for i, q in enumerate(queue) if q not in chosen)  # size <= pool
            chosen.append(queue[at])
            del queue[at]
        tuples.append(tuple(chosen))
    return tuples


def _shuffled(rng: random.Random, n: int) -> list[int]:
    order = list(range(n))
    rng.shuffle(order)
    return order


def _text(item: Item, text_key: str | None) -> str:
    if not text_key:
        return ""
    return str(item.record.get(text_key, ""))


def _tuple_count(block: Mapping[str, Any], config: PotatoConfig, pool: int, size: int
                 ) -> int:
    if block.get("num_tuples") is not None:
        return _integer(block, "num_tuples", config, minimum=1)
    appearances = (2 * size if block.get("min_item_appearances") is None
                   else _integer(block, "min_item_appearances", config, minimum=None))
    return max(math.ceil(pool * appearances / size), 1)


def _integer(block: Mapping[str, Any], key: str, config: PotatoConfig, *,
             minimum: int | None) -> int:
    """``minimum`` None: any integer (Potato makes one tuple for ``min_item_appearances``
    of 0 or less)."""
    value = block.get(key, DEFAULTS.get(key))
    if (not isinstance(value, int) or isinstance(value, bool)
            or (minimum is not None and value < minimum)):
        least = "" if minimum is None else f" of at least {minimum}"
        raise InputError(f"expected an integer{least}, found {value!r:.40}",
                         file=config.path, key=f"bws_config.{key}")
    return value

